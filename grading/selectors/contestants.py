"""Reads of the human contestants' data, for organizer pages and the review (never jurors)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from django.db.models import Count, Max, Min, Q

from puzzles.auto_scores import AutoScore
from puzzles.models import Competition
from puzzles.selectors import system_auto_scores

from ..models import Contestant, ContestantPoints
from ..scale import JuryScale
from .rubrics import current_rubrics
from .scale import jury_scale


@dataclass(frozen=True)
class ContestantsSummary:
    """How many contestants a competition holds, and whether they have criterion points."""

    count: int
    with_points: int
    highest: Decimal | None
    lowest: Decimal | None


@dataclass(frozen=True)
class CriterionShare:
    """The mean fraction of a criterion's maximum that contestants got, over n contestants
    (exact: equal shares compare equal)."""

    problem: int
    code: str
    maximum: Decimal
    mean_fraction: Fraction
    n: int


def contestants_summary(competition: Competition) -> ContestantsSummary:
    """Return the count, range and criterion-points coverage of the contestants (1 query)."""
    figures = Contestant.objects.filter(competition=competition).aggregate(
        count=Count("pk", distinct=True),
        with_points=Count("pk", filter=Q(points__isnull=False), distinct=True),
        highest=Max("total"),
        lowest=Min("total"),
    )
    return ContestantsSummary(**figures)


def contestant_totals(competition: Competition) -> list[Decimal]:
    """Return every contestant's total, highest first (1 query)."""
    return list(
        Contestant.objects.filter(competition=competition)
        .order_by("-total")
        .values_list("total", flat=True)
    )


def contestant_criterion_shares(competition: Competition) -> list[CriterionShare]:
    """Return, per criterion of the current rubrics, the contestants' mean share of its maximum.

    Over the contestants imported with criterion points; a criterion they have no row for
    counts 0. Criteria whose code the current rubric no longer has are left out. 3 queries.
    """
    problems = list(competition.problems.order_by("number"))
    criteria = current_rubrics(problems)
    sums: dict[tuple[int, str], Decimal] = defaultdict(Decimal)
    contestants: set[int] = set()
    for contestant_id, problem_id, code, points in ContestantPoints.objects.filter(
        contestant__competition=competition
    ).values_list("contestant_id", "problem_id", "criterion_code", "points"):
        contestants.add(contestant_id)
        sums[(problem_id, code)] += points
    n = len(contestants)
    if not n:
        return []
    shares = []
    for problem in problems:
        for criterion in criteria.get(problem.pk, []):
            total = sums.get((problem.pk, criterion.code), Decimal(0))
            shares.append(
                CriterionShare(
                    problem=problem.number,
                    code=criterion.code,
                    maximum=criterion.maximum,
                    mean_fraction=Fraction(total) / n / Fraction(criterion.maximum),
                    n=n,
                )
            )
    return shares


@dataclass(frozen=True)
class ReviewInputsPage:
    """The review's inputs as they stand: automatic figures by source, and the contestants."""

    auto_scores: list[AutoScore]
    contestants: ContestantsSummary
    scale: JuryScale


def review_inputs_page(competition: Competition) -> ReviewInputsPage:
    """Return what the review-inputs page shows."""
    return ReviewInputsPage(
        auto_scores=system_auto_scores(competition),
        contestants=contestants_summary(competition),
        scale=jury_scale(competition),
    )

"""Reads of the organizer's jury page: selection, per-problem progress, groups, who is
not blind.

Every function here runs a fixed number of queries whatever the number of papers.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Count

from puzzles.models import Competition, Problem

from ..models import Assignment, Paper, ProblemJuror
from .answers import Recognisable, papers_recognisable
from .blind import NotBlind, not_blind
from .cells import problem_jury
from .sheet import comparison_sheet


@dataclass(frozen=True)
class ProblemProgress:
    """One problem's row on the organizer's jury page."""

    problem: Problem  # annotated with n_papers, n_assignments, n_submitted
    criteria: int
    jurors: list[str]  # its grading group's usernames
    discrepancies: int
    final: int  # papers with a final total
    finalized: object  # when the chair finalized it, or None


@dataclass(frozen=True)
class JuryOverviewPage:
    competition: Competition
    systems: list  # every system, by tier and name, for the selection form
    selected: set[str]  # names of the systems with papers
    progress: list[ProblemProgress]
    not_blind: list[NotBlind]  # group members and juror accounts not blind for it, and why
    tags: list[str]  # the observation tags' names
    recognisable: list[Recognisable]  # selected systems whose papers hold no answers here


def jury_overview_page(competition: Competition) -> JuryOverviewPage:
    """The organizer's jury page: selection, per-problem progress, groups, who is not blind."""
    selected = set(
        Paper.objects.filter(problem__competition=competition).values_list(
            "system__name", flat=True
        )
    )
    problems = list(
        competition.problems.order_by("number")
        .select_related("jury")
        .annotate(
            n_papers=Count("papers", distinct=True),
            n_assignments=Count("papers__assignments", distinct=True),
            n_submitted=Count(
                "papers__assignments",
                filter=Assignment.submitted_q("papers__assignments"),
                distinct=True,
            ),
        )
    )
    members = ProblemJuror.objects.filter(problem__competition=competition)
    groups: dict[int, list[str]] = defaultdict(list)
    for problem_id, username in members.values_list("problem_id", "juror__username"):
        groups[problem_id].append(username)
    progress = []
    for problem in problems:
        criteria, rows = comparison_sheet(problem)
        progress.append(
            ProblemProgress(
                problem=problem,
                criteria=len(criteria),
                jurors=sorted(groups[problem.pk]),
                discrepancies=sum(r.discrepancies for r in rows),
                final=sum(r.final_total is not None for r in rows),
                finalized=problem_jury(problem).finalized_at,
            )
        )
    return JuryOverviewPage(
        competition=competition,
        systems=list(competition.systems.order_by("tier", "name")),
        selected=selected,
        progress=progress,
        not_blind=not_blind(competition),
        tags=list(competition.tags.values_list("name", flat=True)),
        recognisable=papers_recognisable(competition),
    )

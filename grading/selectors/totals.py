"""Reads of the jury totals: each system's final points per problem, and whether the
jury is still grading (asked by puzzles through puzzles.jury).

Every function here runs a fixed number of queries whatever the number of papers.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from puzzles.models import Competition

from ..models import Paper, ProblemJury
from ..scale import JuryScale
from .cells import cells_read, problem_juries
from .scale import jury_scale


@dataclass
class SystemTotal:
    system_id: int
    system: str
    tier: str
    by_problem: dict[int, Decimal | None]
    counted: frozenset[int] = frozenset()  # problems the jury grades (with papers)

    @property
    def total(self) -> Decimal | None:
        values = [v for n, v in self.by_problem.items() if n in self.counted]
        if any(v is None for v in values):
            return None
        return sum(values, Decimal(0))


def final_totals(competition: Competition, *, finalized_only: bool = True) -> list[SystemTotal]:
    """Return each selected system's final points per problem and total (None: not final),
    as cells_read judges the cells (six queries however many problems).

    A problem without papers (not given to the jury) neither counts nor blocks a total.
    """
    problems = list(competition.problems.order_by("number").select_related("jury"))
    juries = problem_juries(problems)  # loaded with the problems: no query
    read = cells_read(problems)
    counted = frozenset(p.number for p in problems if read[p.pk].papers)
    totals: dict[int, SystemTotal] = {}
    for problem in problems:
        finalized = juries[problem.pk].finalized_at is not None
        for paper in read[problem.pk].papers:
            system = paper.paper.system
            entry = totals.setdefault(
                system.pk,
                SystemTotal(
                    system.pk, system.name, system.tier, {p.number: None for p in problems}, counted
                ),
            )
            if finalized or not finalized_only:
                entry.by_problem[problem.number] = paper.final_total
    return sorted(
        totals.values(), key=lambda t: (t.total is None, -(t.total or 0), t.system.casefold())
    )


@dataclass(frozen=True)
class TotalsPage:
    competition: Competition
    problems: list
    totals: list[SystemTotal]
    scale: JuryScale
    provisional: bool

    @property
    def columns(self) -> int:
        """The table's columns: system, tier, one a problem, total."""
        return len(self.problems) + 3


def totals_page(competition: Competition, *, provisional: bool) -> TotalsPage:
    """The jury totals page: final totals (or provisional ones), the scale they are out of and
    what is wrong with it or with the thresholds on it."""
    return TotalsPage(
        competition=competition,
        problems=list(competition.problems.order_by("number")),
        totals=final_totals(competition, finalized_only=not provisional),
        scale=jury_scale(competition),
        provisional=provisional,
    )


def competition_still_grading(competition: Competition) -> bool:
    """Whether some problem of the competition has papers and is not finalized (asked by
    puzzles through puzzles.jury: the public board warns then)."""
    with_papers = Paper.objects.filter(problem__competition=competition).values("problem_id")
    finalized = (
        ProblemJury.objects.finalized()
        .filter(problem__competition=competition)
        .values("problem_id")
    )
    return with_papers.exclude(problem_id__in=finalized).exists()


def problems_finalized(competition: Competition) -> set[int]:
    """Return the ids of the competition's finalized problems (asked by puzzles through
    puzzles.jury: the answer-key page says an amendment there leaves the jury's finals)."""
    return set(
        ProblemJury.objects.finalized()
        .filter(problem__competition=competition)
        .values_list("problem_id", flat=True)
    )

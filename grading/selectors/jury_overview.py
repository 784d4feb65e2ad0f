"""Reads of the organizer's jury page: selection, per-problem progress, groups, who is
not blind.

Every function here runs a fixed number of queries whatever the number of papers.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Count

from puzzles.models import Competition, Problem

from ..consensus import DISCREPANT
from ..models import Assignment, Paper, ProblemJuror
from .answers import Recognisable, papers_recognisable
from .blind import NotBlind, not_blind
from .cells import cells_read, problem_juries


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
    juries = problem_juries(problems)  # loaded with the problems: no query
    read = cells_read(problems)
    progress = []
    for problem in problems:
        cells = read[problem.pk]
        progress.append(
            ProblemProgress(
                problem=problem,
                criteria=len(cells.criteria),
                jurors=sorted(groups[problem.pk]),
                discrepancies=sum(
                    c.state.status == DISCREPANT for p in cells.papers for c in p.cells
                ),
                final=sum(p.final_total is not None for p in cells.papers),
                finalized=juries[problem.pk].finalized_at,
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

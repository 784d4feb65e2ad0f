"""Reads of what awaits a juror on their submitted papers (their home's "needs you").

Every function here runs a fixed number of queries whatever the number of papers.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.urls import reverse

from puzzles.models import Problem

from ..consensus import DISCREPANT
from ..models import Assignment, Criterion, ProblemJury
from .cells import cell_inputs, problem_jury
from .rubrics import current_rubrics
from .sheet import _CODE
from .thread import threads_unread


@dataclass(frozen=True)
class Awaiting:
    """A criterion of one of the juror's submitted papers that needs them: its marks are
    discrepant, or its thread has posts by others they have not read. Names the paper by
    its code only, never its system."""

    problem: Problem
    paper_code: str
    criterion: Criterion
    discrepant: bool
    unread: int  # posts by others after the last one the juror was shown
    url: str  # the criterion's thread


def juror_awaiting(user, *, criteria: dict[int, list[Criterion]] | None = None) -> list[Awaiting]:
    """Return what awaits the juror on the papers they submitted, by competition, problem,
    paper and criterion: discrepant criteria (the consensus rule of the sheet) and threads
    with posts they have not read (ThreadRead). Finalized problems await nothing (their
    discussion is closed). Five queries, however many papers, and two more unless the
    caller gives the current criteria of the juror's problems (`criteria`)."""
    finalized = ProblemJury.objects.finalized().values("problem_id")
    papers = {
        a.paper_id: a.paper
        for a in Assignment.objects.submitted()
        .filter(juror=user)
        .exclude(paper__problem_id__in=finalized)
        .select_related("paper__problem__competition", "paper__problem__jury")
    }
    if not papers:
        return []
    if criteria is None:
        criteria = current_rubrics({p.problem_id for p in papers.values()})
    by_id = {c.pk: c for p in {p.problem_id for p in papers.values()} for c in criteria.get(p, [])}
    # The sheet's cells (comparison_sheet): the same inputs, judged by the same rule.
    jurors: dict[int, list[int]] = defaultdict(list)
    for paper_id, juror_id in Assignment.objects.filter(paper_id__in=papers).values_list(
        "paper_id", "juror_id"
    ):
        jurors[paper_id].append(juror_id)
    inputs = cell_inputs(papers, by_id)
    unread = threads_unread(user, papers, by_id)
    thread_base = reverse("grading:thread", args=[_CODE, 0])
    found = []
    for paper in papers.values():
        tolerance = problem_jury(paper.problem).tolerance
        for criterion in criteria.get(paper.problem_id, []):
            key = (paper.pk, criterion.pk)
            _, state = inputs.cell(paper.pk, jurors[paper.pk], criterion, tolerance=tolerance)
            discrepant = state.status == DISCREPANT
            if discrepant or unread.get(key):
                found.append(
                    Awaiting(
                        problem=paper.problem,
                        paper_code=paper.code,
                        criterion=criterion,
                        discrepant=discrepant,
                        unread=unread.get(key, 0),
                        url=thread_base.replace(_CODE, paper.code).replace(
                            "/0/", f"/{criterion.pk}/"
                        ),
                    )
                )
    return sorted(
        found,
        key=lambda a: (
            a.problem.competition.slug,
            a.problem.number,
            a.paper_code,
            a.criterion.order,
        ),
    )

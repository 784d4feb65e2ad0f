"""Reads of the cells of papers x criteria: the submitted marks and the chair's decisions
that the consensus rule judges, and the problem's jury settings.

Every function here runs a fixed number of queries whatever the number of papers.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

from puzzles.models import Problem

from ..consensus import CellState, cell_state
from ..models import Assignment, Criterion, Mark, Paper, ProblemJury, Resolution
from ..text import points_text


def problem_jury(problem: Problem) -> ProblemJury:
    """Return the problem's jury settings (an unsaved default when it has none yet): as
    select_related("jury") loaded them with the problem, else read (one query)."""
    if not Problem.jury.is_cached(problem):
        return ProblemJury.objects.filter(problem=problem).first() or ProblemJury(problem=problem)
    try:
        return problem.jury
    except ProblemJury.DoesNotExist:
        return ProblemJury(problem=problem)


@dataclass(frozen=True)
class CellInputs:
    """What the consensus rule judges the cells of some papers by (cell_inputs)."""

    # (paper id, criterion id) -> juror id -> points: the marks of submitted papers only
    marks: dict[tuple[int, int], dict[int, Decimal | None]]
    decisions: dict[tuple[int, int], Decimal | None]  # (paper id, criterion id) -> the chair's

    def cell(
        self, paper_id: int, jurors: list[int], criterion: Criterion, *, tolerance: Decimal
    ) -> tuple[dict[int, Decimal | None], CellState]:
        """Return one cell's submitted marks by juror, in the order of `jurors` (every juror
        assigned the paper: as many marks are expected), and its state."""
        found = self.marks.get((paper_id, criterion.pk), {})
        submitted = {juror: found[juror] for juror in jurors if juror in found}
        return submitted, cell_state(
            submitted=submitted,
            expected=len(jurors),
            decision=self.decisions.get((paper_id, criterion.pk)),
            tolerance=tolerance,
            step=criterion.step,
        )


def cell_inputs(paper_ids: Iterable[int], criterion_ids: Iterable[int]) -> CellInputs:
    """Return the submitted marks and the chair's decisions of these papers' cells (two
    queries): what the sheet and a juror's "needs you" both judge cells by."""
    paper_ids, criterion_ids = list(paper_ids), list(criterion_ids)
    marks: dict[tuple[int, int], dict[int, Decimal | None]] = defaultdict(dict)
    for paper_id, criterion_id, juror_id, points in (
        Mark.objects.submitted()
        .filter(assignment__paper_id__in=paper_ids, criterion_id__in=criterion_ids)
        .values_list("assignment__paper_id", "criterion_id", "assignment__juror_id", "points")
    ):
        marks[(paper_id, criterion_id)][juror_id] = points
    decisions = {
        (paper_id, criterion_id): points
        for paper_id, criterion_id, points in Resolution.objects.filter(
            paper_id__in=paper_ids, criterion_id__in=criterion_ids
        ).values_list("paper_id", "criterion_id", "points")
    }
    return CellInputs(marks=dict(marks), decisions=decisions)


@dataclass(frozen=True)
class PaperCell:
    """One criterion of one paper as a juror sees it after submitting: marks and state."""

    marks: dict[str, Decimal | None]  # juror name -> submitted points
    state: CellState

    @property
    def text(self) -> str:
        return " · ".join(f"{name} {points_text(p)}" for name, p in self.marks.items())


def paper_cells(paper: Paper, criteria: list[Criterion]) -> dict[int, PaperCell]:
    """Return per criterion of one paper every submitted mark, by juror name, and the cell's
    state, as the sheet judges it (cell_inputs; four queries)."""
    names = dict(
        Assignment.objects.filter(paper=paper)
        .order_by("juror__username")
        .values_list("juror_id", "juror__username")
    )
    inputs = cell_inputs([paper.pk], [c.pk for c in criteria])
    tolerance = problem_jury(paper.problem).tolerance
    cells = {}
    for criterion in criteria:
        submitted, state = inputs.cell(paper.pk, list(names), criterion, tolerance=tolerance)
        cells[criterion.pk] = PaperCell({names[j]: p for j, p in submitted.items()}, state)
    return cells

"""Reads of the cells of papers x criteria: the submitted marks and the chair's decisions
that the consensus rule judges, and the problems' jury settings.

`cells_read` is the one read of whole problems' cells: the comparison sheet, the jury totals,
the organizer's jury page, the marks export and the result review all ask it, so a cell has
one state and one final mark wherever it is shown. `CELL_SOURCES` names the rows it reads;
the review's cache fingerprint is built from the same list (grading.review.selectors).

Every function here runs a fixed number of queries whatever the number of papers.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

from django.db.models import BooleanField, ExpressionWrapper, QuerySet

from puzzles.models import Problem

from ..consensus import CellState, agreed_value, cell_state
from ..models import Assignment, Criterion, Mark, Paper, ProblemJury, Resolution, Rubric
from ..text import points_text
from .rubrics import current_rubrics

# --- what the cells are read from ---------------------------------------------------------


@dataclass(frozen=True)
class CellSource:
    """A table the cells are read from: its rows (`rows`, then filtered through `to_problem`
    to some problems), what moves when one of them is added, removed or edited (aggregates
    as (SQL function, column): the review's fingerprint) and the fields printed from them."""

    name: str
    rows: Callable[[], QuerySet]
    to_problem: str  # the path from a row to its problem
    figures: tuple[tuple[str, str], ...]
    texts: tuple[str, ...] = ()

    @property
    def model(self):
        return self.rows().model

    def of_problems(self, problems) -> QuerySet:
        return self.rows().filter(**{f"{self.to_problem}__in": problems})

    def of_competition(self, competition) -> QuerySet:
        """The rows of a competition (an id, or an OuterRef to one)."""
        return self.rows().filter(**{f"{self.to_problem}__competition": competition})


PAPERS = CellSource("paper", Paper.objects.all, "problem", (("COUNT", "id"), ("MAX", "id")))
# Assigned jurors are as many marks expected; a submission (or a reopening) moves the counts.
ASSIGNMENTS = CellSource(
    "assignment",
    Assignment.objects.all,
    "paper__problem",
    (("COUNT", "id"), ("MAX", "id"), ("COUNT", "submitted_at"), ("MAX", "submitted_at")),
)
# Drafts are their jurors' own: no cell sees them, so they move nothing here.
MARKS = CellSource(
    "mark",
    Mark.objects.submitted,
    "assignment__paper__problem",
    (("COUNT", "id"), ("MAX", "id"), ("MAX", "updated_at")),
)
DECISIONS = CellSource(
    "decision", Resolution.objects.all, "paper__problem", (("COUNT", "id"), ("MAX", "decided_at"))
)
JURIES = CellSource(
    "jury",
    ProblemJury.objects.all,
    "problem",
    (("SUM", "tolerance"), ("COUNT", "finalized_at"), ("MAX", "finalized_at")),
)
RUBRICS = CellSource("rubric", Rubric.objects.all, "problem", (("MAX", "id"),))
CRITERIA = CellSource(
    "criterion",
    Criterion.objects.all,
    "rubric__problem",
    (("COUNT", "id"), ("MAX", "id"), ("SUM", "maximum")),
    texts=("id", "code", "title", "kind", "maximum", "step", "order"),
)
CELL_SOURCES = (PAPERS, ASSIGNMENTS, MARKS, DECISIONS, JURIES, RUBRICS, CRITERIA)


# --- the problems' jury settings ----------------------------------------------------------


def problem_juries(problems: Iterable[Problem]) -> dict[int, ProblemJury]:
    """Return each problem's jury settings (an unsaved default for a problem without any):
    those select_related("jury") loaded with the problems, the rest in one query."""
    found: dict[int, ProblemJury] = {}
    unread = []
    for problem in problems:
        if not Problem.jury.is_cached(problem):
            unread.append(problem)
            continue
        try:
            found[problem.pk] = problem.jury
        except ProblemJury.DoesNotExist:
            found[problem.pk] = ProblemJury(problem=problem)
    if unread:
        rows = {j.problem_id: j for j in JURIES.of_problems(unread)}
        for problem in unread:
            found[problem.pk] = rows.get(problem.pk) or ProblemJury(problem=problem)
    return found


def problem_jury(problem: Problem) -> ProblemJury:
    """Return the problem's jury settings (an unsaved default when it has none yet): as
    select_related("jury") loaded them with the problem, else read (one query)."""
    return problem_juries([problem])[problem.pk]


# --- the inputs of some cells, and one cell judged ----------------------------------------


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
        MARKS.rows()
        .filter(assignment__paper_id__in=paper_ids, criterion_id__in=criterion_ids)
        .order_by()  # in no order: the marks' own would join the papers, problems, competitions
        .values_list("assignment__paper_id", "criterion_id", "assignment__juror_id", "points")
    ):
        marks[(paper_id, criterion_id)][juror_id] = points
    decisions = {
        (paper_id, criterion_id): points
        for paper_id, criterion_id, points in DECISIONS.rows()
        .filter(paper_id__in=paper_ids, criterion_id__in=criterion_ids)
        .values_list("paper_id", "criterion_id", "points")
    }
    return CellInputs(marks=dict(marks), decisions=decisions)


# --- whole problems' cells ----------------------------------------------------------------

_SYSTEM_UNREAD = ("metadata", "oracle_of", "created_at")  # deferred: see cells_read


@dataclass(frozen=True, slots=True)
class Cell:
    """One criterion of one paper: its submitted marks by juror and its state."""

    criterion: Criterion
    marks: dict[int, Decimal | None]  # juror id -> submitted points, in the paper's juror order
    state: CellState

    @property
    def estimated(self) -> bool:
        """Whether the cell is not settled yet but has a submitted mark to count."""
        return not self.state.resolved and any(v is not None for v in self.marks.values())

    @property
    def standing(self) -> Decimal | None:
        """Return the points the cell counts as the marks stand (the review's figures): its
        final mark; before it has one, the mean of its submitted marks rounded to the
        criterion's step, as an agreement would (`estimated`); None without a mark."""
        if self.state.resolved:
            return self.state.final
        given = [v for v in self.marks.values() if v is not None]
        return agreed_value(given, self.criterion.step) if given else None


def final_total(states: Iterable[CellState]) -> Decimal | None:
    """Return the sum of a paper's final marks once every cell has one (None before, and
    None for a paper without cells: no rubric yet)."""
    states = list(states)
    if not states or not all(s.resolved for s in states):
        return None
    return sum((s.final for s in states), Decimal(0))


@dataclass(frozen=True, slots=True)
class Juror:
    """A juror assigned a paper, as the sheet names them."""

    pk: int
    username: str
    submitted: bool  # the paper, by this juror


@dataclass(frozen=True)
class PaperCells:
    """One paper's cells, in the order of its problem's current rubric."""

    paper: Paper  # with its system
    jurors: tuple[Juror, ...]  # every juror assigned the paper, by username: the marks' order
    cells: tuple[Cell, ...]

    @property
    def final_total(self) -> Decimal | None:
        return final_total(c.state for c in self.cells)

    @property
    def juror_totals(self) -> dict[int, Decimal]:
        """Return each juror's sum of submitted points (a cleared mark counts 0), by juror id,
        for the jurors with a submitted mark."""
        totals: dict[int, Decimal] = {}
        for cell in self.cells:
            for juror_id, points in cell.marks.items():
                totals[juror_id] = totals.get(juror_id, Decimal(0)) + (points or 0)
        return totals


@dataclass(frozen=True)
class ProblemCells:
    """One problem's cells: its current criteria and its papers', by paper code."""

    problem_id: int
    tolerance: Decimal
    criteria: list[Criterion]
    papers: list[PaperCells]


def cells_read(
    problems: Sequence[Problem],
    *,
    tolerances: Mapping[int, Decimal] | None = None,
    paper: Paper | None = None,
) -> dict[int, ProblemCells]:
    """Return, by problem id, every cell of the problems' papers (of one paper alone with
    `paper`) judged from the submitted marks and the chair's decisions.

    Five queries however many problems and papers (six when `tolerances`, each problem's
    tolerance by id, is not given and the problems were not loaded with their juries)."""
    problems = list(problems)
    if tolerances is None:
        tolerances = {pk: jury.tolerance for pk, jury in problem_juries(problems).items()}
    criteria_of = current_rubrics(problems)
    # No page shows the systems' JSON or either date beside a cell: at 1,500 papers decoding
    # them showed.
    papers = (
        PAPERS.of_problems(problems)
        .select_related("system")
        .defer("created_at", *(f"system__{name}" for name in _SYSTEM_UNREAD))
        .order_by("code")
    )
    if paper is not None:
        papers = papers.filter(pk=paper.pk)
    papers = list(papers)
    # Grouped here rather than by prefetch_related, which clones a queryset per paper: at
    # 1,500 papers that took longer than the query.
    jurors_of: dict[int, list[Juror]] = defaultdict(list)
    for paper_id, juror_id, username, submitted in (
        ASSIGNMENTS.rows()
        .filter(paper_id__in=[p.pk for p in papers])
        .order_by("juror__username")
        .annotate(submitted=ExpressionWrapper(Assignment.submitted_q(), BooleanField()))
        .values_list("paper_id", "juror_id", "juror__username", "submitted")
    ):
        jurors_of[paper_id].append(Juror(juror_id, username, submitted))
    criterion_ids = [c.pk for criteria in criteria_of.values() for c in criteria]
    inputs = cell_inputs([p.pk for p in papers], criterion_ids)
    read = {
        problem.pk: ProblemCells(problem.pk, tolerances[problem.pk], criteria_of[problem.pk], [])
        for problem in problems
    }
    for one in papers:
        problem = read[one.problem_id]
        jurors = tuple(jurors_of[one.pk])
        ids = [j.pk for j in jurors]
        cells = []
        for criterion in problem.criteria:
            marks, state = inputs.cell(one.pk, ids, criterion, tolerance=problem.tolerance)
            cells.append(Cell(criterion, marks, state))
        problem.papers.append(PaperCells(one, jurors, tuple(cells)))
    return read


# --- one paper's cells as a juror sees them ------------------------------------------------


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

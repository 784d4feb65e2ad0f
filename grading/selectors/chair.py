"""Reads of the chair: a problem's overview, a cell decided from the sheet, the next
discrepancy. Each runs a fixed number of queries whatever the number of papers."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from decimal import Decimal

from django.db.models import Count, Q

from puzzles.models import Problem

from ..consensus import AGREED, DECIDED, DISCREPANT, PENDING
from ..models import Assignment, Criterion, DiscussionComment, Mark, Paper, ProblemJury
from ..sheet_rules import next_open
from ..text import explanation_html
from .answers import paper_answers_of, paper_held_elsewhere
from .cells import problem_jury
from .sheet import SheetCell, SheetFilters, comparison_sheet, open_count, sheet_page

# --- the chair's overview of a problem ------------------------------------------------------


@dataclass(frozen=True)
class JurorProgress:
    """One juror's papers of a problem: submitted, in progress (some mark), not started."""

    username: str
    submitted: int = 0
    in_progress: int = 0
    not_started: int = 0

    @property
    def papers(self) -> int:
        return self.submitted + self.in_progress + self.not_started


@dataclass(frozen=True)
class ChairOverviewPage:
    problem: Problem
    jury: ProblemJury
    papers: int
    criteria: int
    jurors: list[JurorProgress]
    cells: dict[str, int]  # cell state -> how many cells are in it

    @property
    def discrepant(self) -> int:
        return self.cells.get(DISCREPANT, 0)

    @property
    def decided(self) -> int:
        return self.cells.get(DECIDED, 0)

    @property
    def agreed(self) -> int:
        return self.cells.get(AGREED, 0)

    @property
    def waiting(self) -> int:
        return self.cells.get(PENDING, 0)

    @property
    def open(self) -> int:
        """Cells without a final mark yet: discrepant or waiting for a juror."""
        return self.discrepant + self.waiting


def juror_progress(rows: list[tuple[str, bool, int]]) -> list[JurorProgress]:
    """Count each juror's papers by progress from (username, submitted, marks given) rows."""
    counts: dict[str, Counter] = defaultdict(Counter)
    for username, submitted, marked in rows:
        state = "submitted" if submitted else "in_progress" if marked else "not_started"
        counts[username][state] += 1
    return [JurorProgress(name, **counts[name]) for name in sorted(counts)]


def chair_overview_page(problem: Problem) -> ChairOverviewPage:
    """A problem's progress for its chair: papers per juror by progress, cells by state."""
    jury = problem_jury(problem)
    criteria, rows = comparison_sheet(problem, tolerance=jury.tolerance)
    progress = (
        Assignment.objects.filter(paper__problem=problem)
        .annotate(marked=Count("marks", filter=Q(marks__points__isnull=False)))
        .values_list("juror__username", "submitted_at", "marked")
    )
    return ChairOverviewPage(
        problem=problem,
        jury=jury,
        papers=len(rows),
        criteria=len(criteria),
        jurors=juror_progress([(name, when is not None, n) for name, when, n in progress]),
        cells=dict(Counter(cell.state.status for row in rows for cell in row.cells)),
    )


# --- a cell decided from the sheet ----------------------------------------------------------


@dataclass(frozen=True)
class PanelMark:
    """One juror's submitted mark of the cell and the comment they gave with it."""

    juror: str
    points: Decimal | None
    comment: str


@dataclass(frozen=True)
class DecidePanel:
    """One cell of the sheet opened for the chair's decision, with the answers it is about
    and what the jurors said of it: their comments on their marks and the thread's posts."""

    problem: Problem
    paper: Paper
    criterion: Criterion
    cell: SheetCell
    row: object  # the paper's SheetRow, re-rendered in place after a decision
    answers: list[dict]  # the paper's answers to the criterion's task and items
    held_elsewhere: bool
    finalized: bool
    marks: list[PanelMark]  # submitted marks only, by juror name, as the thread shows them
    posts: list[DiscussionComment]  # the criterion's thread, oldest first
    open_cells: int | None = None  # the sheet's open discrepancies, when read with filters

    @property
    def may_decide(self) -> bool:
        return not self.finalized and self.cell.state.status in (DISCREPANT, DECIDED)

    @property
    def comments(self) -> list[PanelMark]:
        """The submitted marks that came with a comment."""
        return [m for m in self.marks if m.comment.strip()]


def criterion_answers(answers: list[dict], criterion: Criterion) -> list[dict]:
    """Keep the answers a criterion is about: its task's (every task when it names none),
    and of that task its items when it names some."""
    if criterion.task_id is None:
        return answers
    kept = []
    for row in answers:
        if row["task"].pk != criterion.task_id:
            continue
        items = row["items"]
        if criterion.items:
            items = [item for item in items if item["number"] in set(criterion.items)]
        kept.append({**row, "items": items})
    return kept


def decide_panel(
    problem: Problem, paper: Paper, criterion_id: int, *, filters: SheetFilters | None = None
) -> DecidePanel:
    """A cell of the sheet with its marks, state and answers, for the chair to decide: a
    paper of the problem and a criterion of its current rubric (grading.access.chair_cell).

    With the sheet's `filters` (after a decision), the whole sheet is read once for the
    panel's row and the count of open discrepancies the sheet's caption gives under them."""
    jury = problem_jury(problem)
    criteria, rows = comparison_sheet(
        problem, tolerance=jury.tolerance, paper=None if filters else paper
    )
    row = next(r for r in rows if r.paper.pk == paper.pk)
    # grading.access.chair_cell found the criterion in the current rubric a query ago; only a
    # new rubric version committed in between would miss it here.
    cell = next(c for c in row.cells if c.criterion.pk == criterion_id)
    answers = criterion_answers(paper_answers_of(paper), cell.criterion)
    for answer in answers:
        answer["explanation_html"] = explanation_html(answer["explanation"])
    return DecidePanel(
        problem=problem,
        paper=paper,
        criterion=cell.criterion,
        cell=cell,
        row=row,
        answers=answers,
        held_elsewhere=paper_held_elsewhere(paper),
        finalized=jury.finalized_at is not None,
        marks=cell_marks(paper, cell.criterion),
        posts=list(
            DiscussionComment.objects.filter(paper=paper, criterion=cell.criterion)
            .select_related("author")
            .order_by("created_at", "pk")
        ),
        open_cells=open_count(filters.apply(rows)) if filters else None,
    )


def cell_marks(paper: Paper, criterion: Criterion) -> list[PanelMark]:
    """Return the submitted marks of one criterion of a paper with their comments, by juror
    name (a draft stays its juror's own until submitted, as on the thread page)."""
    return [
        PanelMark(juror, points, comment)
        for juror, points, comment in Mark.objects.submitted()
        .filter(assignment__paper=paper, criterion=criterion)
        .order_by("assignment__juror__username")
        .values_list("assignment__juror__username", "points", "comment")
    ]


# --- the next discrepancy -------------------------------------------------------------------


def cell_key(text: str) -> tuple[str, int] | None:
    """Read a cell reference 'CODE:criterion id' from a query string (None if malformed)."""
    code, _, criterion = text.rpartition(":")
    # ASCII digits only: "²" passes str.isdigit() and int() refuses it, "١" int() reads as 1;
    # a criterion id has at most 19 digits, and int() refuses over 4,300.
    if code and criterion.isascii() and criterion.isdigit() and len(criterion) <= 19:
        return code, int(criterion)
    return None


def next_discrepancy(
    problem: Problem, filters: SheetFilters, after: str = ""
) -> tuple[str, int] | None:
    """Return (paper code, criterion id) of the next open discrepancy after the cell `after`
    in the sheet's order under these filters, row by row, wrapping around; None if none."""
    page = sheet_page(problem, filters)
    cells = [
        ((cell.paper_code, cell.criterion.pk), cell.is_open)
        for row in page.rows
        for cell in row.cells
    ]
    return next_open(cells, cell_key(after))

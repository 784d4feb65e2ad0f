"""Reads of the comparison sheet: papers x criteria with every submitted mark, the cells'
states and totals, and the sheet as a page with its filters and sort.

Every function here runs a fixed number of queries whatever the number of papers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from urllib.parse import urlencode

from django.db.models import Count, Q
from django.urls import reverse

from puzzles.models import Output, Problem

from ..consensus import AGREED, DECIDED, DISCREPANT, PENDING, CellState
from ..models import Criterion, DiscussionComment, Paper, ProblemJury
from ..sheet_rules import DEFAULT_SORT, SORTS, absolute_differences, sort_rows
from ..text import points_text
from .answers import answers_held_elsewhere
from .cells import Juror, cells_read, final_total, problem_jury

# A cell's state as a symbol and a word, so that no state is told by colour alone.
STATE_WORDS = {
    DISCREPANT: ("≠", "discrepant"),
    AGREED: ("=", "agreed"),
    DECIDED: ("✓", "decided"),
    PENDING: ("…", "waiting"),
}


@dataclass
class SheetCell:
    criterion: Criterion
    marks: dict[int, Decimal | None]  # juror id -> submitted points
    state: CellState
    comments: int = 0
    url: str = ""  # the criterion's thread
    names: dict[int, str] = field(default_factory=dict)  # juror id -> username (the row's)
    paper_code: str = ""
    decide_url: str = ""  # the chair's decision of it from the sheet

    @property
    def text(self) -> str:
        """Return the submitted marks as the sheet shows them: '2.5 · 3'."""
        return " · ".join(points_text(p) for p in self.marks.values()) or "…"

    @property
    def symbol(self) -> str:
        return STATE_WORDS[self.state.status][0]

    @property
    def word(self) -> str:
        return STATE_WORDS[self.state.status][1]

    @property
    def state_text(self) -> str:
        """Return the state as the sheet shows it: '≠ discrepant', '= agreed → 1.5'."""
        text = f"{self.symbol} {self.word}"
        if self.state.final is not None:
            text += f" → {points_text(self.state.final)}"
        return text

    @property
    def label(self) -> str:
        """Return the cell in words: 'P1-7KQ2 1b: anna 1.5, boris 0.5: discrepant' (and
        the mark that counts)."""
        marks = ", ".join(
            f"{self.names.get(j, '?')} {points_text(p) if p is not None else 'cleared'}"
            for j, p in self.marks.items()
        )
        text = (
            f"{self.paper_code} {self.criterion.code}: {marks or 'no mark submitted'}: {self.word}"
        )
        if self.state.final is not None:
            text += f", {points_text(self.state.final)} counts"
        return text

    @property
    def differences(self) -> Decimal:
        return absolute_differences(self.marks.values())

    @property
    def is_open(self) -> bool:
        """Whether the chair has a discrepancy to settle here."""
        return self.state.status == DISCREPANT

    @property
    def decidable(self) -> bool:
        """Whether the chair may decide it from the sheet (again, once decided)."""
        return self.state.status in (DISCREPANT, DECIDED)

    @property
    def dom_id(self) -> str:
        return f"cell-{self.paper_code}-{self.criterion.pk}"


@dataclass
class SheetRow:
    paper: Paper
    jurors: list[Juror]  # every juror assigned the paper, by username
    submitted: set[int]
    juror_names: str = ""
    cells: list[SheetCell] = field(default_factory=list)
    totals: dict[int, Decimal] = field(default_factory=dict)  # juror id -> total
    held_elsewhere: bool = False  # its answers are outside ioleval (HELD_ELSEWHERE_NOTE)

    @property
    def discrepancies(self) -> int:
        return sum(c.state.status == DISCREPANT for c in self.cells)

    @property
    def differences(self) -> Decimal:
        """Return the sum over criteria of the absolute differences between its jurors."""
        return sum((c.differences for c in self.cells), Decimal(0))

    @property
    def juror_totals(self) -> list[tuple[str, Decimal]]:
        """Return (username, total) of each juror with submitted marks, in the jurors' order."""
        return [(j.username, self.totals[j.pk]) for j in self.jurors if j.pk in self.totals]

    @property
    def spread(self) -> Decimal | None:
        values = [t for j, t in self.totals.items() if j in self.submitted]
        return max(values) - min(values) if len(values) > 1 else None

    @property
    def final_total(self) -> Decimal | None:
        return final_total(c.state for c in self.cells)


_CODE = "P0-CODE"


def comparison_sheet(
    problem: Problem, *, tolerance: Decimal | None = None, paper: Paper | None = None
) -> tuple[list[Criterion], list[SheetRow]]:
    """Return papers x criteria with every submitted mark, discrepancy states and totals
    (of one paper's row alone with `paper`, as the chair's inline decision re-renders it),
    as cells_read judges them."""
    read = cells_read(
        [problem],
        tolerances=None if tolerance is None else {problem.pk: tolerance},
        paper=paper,
    )[problem.pk]
    one = Q(paper=paper) if paper is not None else Q()
    threads = dict(
        ((p, c), n)
        for p, c, n in DiscussionComment.objects.filter(one, paper__problem=problem)
        .values_list("paper_id", "criterion_id")
        .annotate(n=Count("pk"))
    )
    external = {p.paper.system_id for p in read.papers if p.paper.system.external}
    answered = (
        set(
            Output.objects.filter(system_id__in=external, task__problem=problem).values_list(
                "system_id", flat=True
            )
        )
        if external
        else set()
    )
    thread_base = reverse("grading:thread", args=[_CODE, 0])
    decide_base = reverse(
        "grading:sheet_decide", args=[problem.competition.slug, problem.number, _CODE, 0]
    )
    rows = []
    for paper_cells in read.papers:
        paper, jurors = paper_cells.paper, paper_cells.jurors
        row = SheetRow(
            paper=paper,
            jurors=list(jurors),
            submitted={j.pk for j in jurors if j.submitted},
            juror_names=" · ".join(j.username for j in jurors),
            totals=paper_cells.juror_totals,
            held_elsewhere=answers_held_elsewhere(
                external=paper.system_id in external, has_outputs=paper.system_id in answered
            ),
        )
        # One reverse() per sheet, not per cell: at 300 papers x 10 criteria it showed.
        thread_url = thread_base.replace(_CODE, paper.code)
        names = {j.pk: j.username for j in jurors}  # shared by the row's cells
        decide_url = decide_base.replace(_CODE, paper.code)
        row.cells = [
            SheetCell(
                cell.criterion,
                cell.marks,
                cell.state,
                threads.get((paper.pk, cell.criterion.pk), 0),
                thread_url.replace("/0/", f"/{cell.criterion.pk}/"),
                names,
                paper.code,
                decide_url.replace("/0/", f"/{cell.criterion.pk}/"),
            )
            for cell in paper_cells.cells
        ]
        rows.append(row)
    return read.criteria, rows


def problem_unresolved(problem: Problem) -> list[str]:
    """List 'CODE criterion' cells that keep the problem from being finalized."""
    _, rows = comparison_sheet(problem)
    if not rows:
        return ["no papers"]
    return [
        f"{row.paper.code} {cell.criterion.code} ({cell.state.status})"
        for row in rows
        for cell in row.cells
        if not cell.state.resolved
    ] or ([] if all(row.cells for row in rows) else ["no rubric"])


@dataclass(frozen=True)
class SheetFilters:
    """The comparison sheet's filters, read from its query string."""

    only: bool = False  # only rows with a discrepancy
    juror: str = ""  # only rows this juror (username) is assigned
    status: str = ""  # "complete" (all submitted), "incomplete", or "" for both
    sort: str = DEFAULT_SORT  # one of sheet_rules.SORTS

    STATUSES = ("complete", "incomplete")

    @classmethod
    def from_query(cls, query) -> SheetFilters:
        status = query.get("status", "")
        sort = query.get("sort", DEFAULT_SORT)
        return cls(
            only=query.get("only") == "discrepancies",
            juror=query.get("juror", ""),
            status=status if status in cls.STATUSES else "",
            sort=sort if sort in SORTS else DEFAULT_SORT,
        )

    def query(self, **changes) -> str:
        """Return these filters (with `changes`) as a query string, defaults left out."""
        values = {
            "only": "discrepancies" if self.only else "",
            "juror": self.juror,
            "status": self.status,
            "sort": "" if self.sort == DEFAULT_SORT else self.sort,
        }
        values.update(changes)
        if values["sort"] == DEFAULT_SORT:
            values["sort"] = ""
        return urlencode({k: v for k, v in values.items() if v})

    def apply(self, rows: list[SheetRow]) -> list[SheetRow]:
        """Return the rows these filters keep, in their sort order."""
        rows = sort_rows(rows, self.sort)
        if self.only:
            rows = [r for r in rows if r.discrepancies]
        if self.juror:
            rows = [r for r in rows if any(j.username == self.juror for j in r.jurors)]
        if self.status:
            complete = self.status == "complete"
            rows = [r for r in rows if (len(r.submitted) == len(r.jurors)) == complete]
        return rows


@dataclass(frozen=True)
class SheetSort:
    """One of the sheet's sort links."""

    value: str
    label: str
    query: str  # the sheet's query string with this order and the current filters
    current: bool


@dataclass(frozen=True)
class SheetPage:
    problem: Problem
    jury: ProblemJury
    criteria: list[Criterion]
    rows: list[SheetRow]
    jurors: list[str]  # the usernames on the rows shown, for the juror filter
    filters: SheetFilters

    @property
    def sorts(self) -> list[SheetSort]:
        return [
            SheetSort(value, label, self.filters.query(sort=value), value == self.filters.sort)
            for value, label in SORTS.items()
        ]

    @property
    def columns(self) -> int:
        """The table's columns: paper, jurors, one a criterion, totals, differences, spread,
        final."""
        return len(self.criteria) + 6

    @property
    def open_cells(self) -> int:
        """The discrepancies on the rows shown that the chair has yet to settle."""
        return open_count(self.rows)


def open_count(rows: list[SheetRow]) -> int:
    """Count the discrepancies the chair has yet to settle on these rows of the sheet."""
    return sum(c.is_open for r in rows for c in r.cells)


def sheet_page(problem: Problem, filters: SheetFilters) -> SheetPage:
    """The comparison sheet of a problem under the filters, for whoever grading.access lets
    read it (the chair's one rule)."""
    jury = problem_jury(problem)
    criteria, rows = comparison_sheet(problem, tolerance=jury.tolerance)
    rows = filters.apply(rows)
    return SheetPage(
        problem=problem,
        jury=jury,
        criteria=criteria,
        rows=rows,
        jurors=sorted({j.username for r in rows for j in r.jurors}),
        filters=filters,
    )

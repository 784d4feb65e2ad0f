"""One problem's loaded marks sorted into its cells: what the figures are computed from (no
query here)."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from decimal import Decimal

from ...consensus import DISCREPANT, cell_state

Cell = tuple[int, int]  # (paper id, criterion id)


@dataclass
class Submitted:
    """A submitted assignment: whose, and when."""

    pk: int
    paper_id: int
    juror_id: int
    submitted_at: object


@dataclass
class Gathered:
    """One problem's cells, read from the loaded marks: what its figures are computed from.

    Per criterion code, its cells' marks in points (alpha units, ICC rows) and each cell's
    paper; `shares` is every criterion's cells on shares of its maximum, with `share_papers`,
    for the problem's figures; `severity` holds (paper, cell, juror, share) rows."""

    problem: object
    criteria: list
    tolerance: Decimal
    finalized: bool
    k: int
    units: dict[str, list[list[float | None]]]
    rows: dict[str, list[list[float | None]]]
    papers: dict[str, list[int]]  # code -> the paper of each unit and row
    counted: dict[str, list[int]]  # code -> [discrepant, compared]
    shares: list[list[float | None]]
    share_rows: list[list[float | None]]
    share_papers: list[int]
    share_row_papers: list[int]
    severity: list[tuple[int, Cell, int, float]]
    cells: int
    extra: int
    revised: int
    unmarked: int
    without_maximum: list[str]  # codes left out of the problem's figures (maximum 0)

    @property
    def codes(self) -> list[str]:
        return [c.code for c in self.criteria]

    @property
    def scale(self) -> float:
        """The sum of the criteria's maxima (a whole paper's points)."""
        return float(sum(c.maximum for c in self.criteria))


def gather_cells(
    problem,
    *,
    papers: list[int],
    criteria: list,
    tolerance: Decimal,
    finalized: bool,
    expected: Counter,
    slots_of: dict[int, list[Submitted]],
    first_marks: dict,
    current: dict,
) -> Gathered:
    """Sort one problem's loaded marks into its cells (no query)."""
    # k: the usual number of submitted jurors of a paper (the larger one on a tie).
    sizes = Counter(len(slots_of.get(p, [])) for p in papers)
    k = max((n for n in sizes if n >= 2), key=lambda n: (sizes[n], n), default=0)

    units: dict[str, list[list[float | None]]] = defaultdict(list)
    rows: dict[str, list[list[float | None]]] = defaultdict(list)
    papers_by_code: dict[str, list[int]] = defaultdict(list)
    counted: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    shares: list[list[float | None]] = []
    share_rows: list[list[float | None]] = []
    share_papers: list[int] = []
    share_row_papers: list[int] = []
    severity: list[tuple[int, Cell, int, float]] = []
    extra = revised = unmarked = 0
    without_maximum = [c.code for c in criteria if not c.maximum]
    for paper_id in papers:
        slots = slots_of.get(paper_id, [])
        for criterion in criteria:
            cell = (paper_id, criterion.pk)
            marks = {
                a.juror_id: first_marks[(a.pk, criterion.pk)]
                for a in slots
                if (a.pk, criterion.pk) in first_marks
            }
            now = {
                a.juror_id: current[(a.pk, criterion.pk)]
                for a in slots
                if (a.pk, criterion.pk) in current
            }
            revised += sum(now[j] != marks[j] for j in marks)
            values = [v for v in marks.values() if v is not None]
            if not values:
                unmarked += 1
                continue
            # The statistics work in floats: convert each mark once, not in every figure.
            floats = {j: None if v is None else float(v) for j, v in marks.items()}
            maximum = float(criterion.maximum) if criterion.maximum else None
            units[criterion.code].append(list(floats.values()))
            papers_by_code[criterion.code].append(paper_id)
            if maximum:
                share = {j: None if v is None else v / maximum for j, v in floats.items()}
                shares.append(list(share.values()))
                share_papers.append(paper_id)
                severity.extend((paper_id, cell, j, v) for j, v in share.items() if v is not None)
            if len(values) >= 2:
                # The consensus rule itself, on the marks as submitted and without decisions.
                before = cell_state(
                    submitted=marks,
                    expected=expected[paper_id],
                    decision=None,
                    tolerance=tolerance,
                    step=criterion.step,
                )
                counted[criterion.code][0] += before.status == DISCREPANT
                counted[criterion.code][1] += 1
            if k:
                row = [floats.get(a.juror_id) for a in slots[:k]]
                extra += max(0, len(slots) - k)
                row += [None] * (k - len(row))
                rows[criterion.code].append(row)
                if maximum:
                    share_rows.append([None if v is None else v / maximum for v in row])
                    share_row_papers.append(paper_id)

    return Gathered(
        problem=problem,
        criteria=criteria,
        tolerance=tolerance,
        finalized=finalized,
        k=k,
        units=units,
        rows=rows,
        papers=papers_by_code,
        counted=counted,
        shares=shares,
        share_rows=share_rows,
        share_papers=share_papers,
        share_row_papers=share_row_papers,
        severity=severity,
        cells=len(papers) * len(criteria),
        extra=extra,
        revised=revised,
        unmarked=unmarked,
        without_maximum=without_maximum,
    )

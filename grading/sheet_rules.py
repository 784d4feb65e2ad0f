"""The comparison sheet's orders and the chair's next discrepancy, as pure computation."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from decimal import Decimal
from itertools import combinations

# The sheet's orders: query value -> what the sort link says.
SORTS = {
    "code": "paper code",
    "discrepancies": "most discrepant criteria",
    "differences": "largest differences between jurors",
}
DEFAULT_SORT = "code"


def absolute_differences(values: Iterable[Decimal | None]) -> Decimal:
    """Return the sum of |a - b| over every pair of jurors' marks (cleared marks left out).

    Unlike the spread of totals, differences of opposite sign on two criteria add up here
    instead of cancelling out."""
    marks = [v for v in values if v is not None]
    return sum((abs(a - b) for a, b in combinations(marks, 2)), Decimal(0))


def sort_rows(rows: Sequence, sort: str) -> list:
    """Return the rows in the sheet's order `sort` (see SORTS): "code" keeps them as given
    (the sheet reads them by paper code), and the stable sort keeps that order among ties.

    A row has `discrepancies` (discrepant criteria) and `differences` (the sum of its
    cells' absolute differences)."""
    if sort == "discrepancies":
        return sorted(rows, key=lambda r: (-r.discrepancies, -r.differences))
    if sort == "differences":
        return sorted(rows, key=lambda r: (-r.differences, -r.discrepancies))
    return list(rows)


def next_open(cells: Sequence[tuple[Hashable, bool]], after: Hashable | None) -> Hashable | None:
    """Return the first open cell after `after` in the given order, wrapping around to the
    start; the first open cell when `after` is None or not among them; None when no cell
    is open. `cells` are (key, open) pairs in the sheet's reading order."""
    keys = [key for key, _ in cells]
    start = keys.index(after) + 1 if after in keys else 0
    for key, is_open in [*cells[start:], *cells[:start]]:
        if is_open and key != after:
            return key
    return None

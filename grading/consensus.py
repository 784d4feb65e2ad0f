"""Consensus as pure computation: is a criterion of a paper agreed, discrepant or decided?"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

PENDING = "pending"  # some assigned juror has not submitted, and those who did agree
AGREED = "agreed"  # all submitted marks within the tolerance
DISCREPANT = "discrepant"  # submitted marks differ by more than the tolerance (so far)
DECIDED = "decided"  # the chair (or an imported final mark) settled it


@dataclass(frozen=True, slots=True)  # one per cell read: tens of thousands at a time
class CellState:
    """The state and final mark of one criterion of one paper."""

    status: str
    final: Decimal | None
    spread: Decimal | None

    @property
    def resolved(self) -> bool:
        return self.status in (AGREED, DECIDED)


def agreed_value(marks: list[Decimal], step: Decimal) -> Decimal:
    """Return the mean of agreeing marks, rounded half up to the criterion's step."""
    mean = sum(marks) / len(marks)
    return (mean / step).quantize(Decimal(1), rounding=ROUND_HALF_UP) * step


def cell_state(
    *,
    submitted: Mapping[object, Decimal | None],
    expected: int,
    decision: Decimal | None,
    tolerance: Decimal,
    step: Decimal,
) -> CellState:
    """Judge one cell from the submitted marks by juror, how many jurors are assigned, and
    the chair's decision if any."""
    values = [v for v in submitted.values() if v is not None]
    spread = max(values) - min(values) if values else None
    if decision is not None:
        return CellState(DECIDED, decision, spread)
    # Marks already too far apart stay so whatever the others give: discuss them now.
    if spread is not None and spread > tolerance:
        return CellState(DISCREPANT, None, spread)
    # A cleared mark (None) waits for its juror like a missing one.
    if not values or len(values) < expected:
        return CellState(PENDING, None, spread)
    return CellState(AGREED, agreed_value(values, step), spread)

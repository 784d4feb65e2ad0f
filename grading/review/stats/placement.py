"""Where a total stands among the human contestants, and which medal it earns."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ._common import as_float, present

# Best first: a total earns the first of these whose threshold it reaches.
MEDALS = ("gold", "silver", "bronze", "honourable_mention")


@dataclass(frozen=True)
class Placement:
    """A total among n contestants: 1 + the number with a strictly higher total (the paper's
    "4th of 255"), and the share (0-100) with a strictly lower total."""

    n: int
    equivalent_rank: int | None
    percentile: float | None
    note: str | None = None


def placement(total: object, contestant_totals: Sequence[object]) -> Placement:
    """Place a total among the contestants' totals (missing totals are ignored)."""
    others = present(contestant_totals)
    value = as_float(total)
    if not others:
        return Placement(0, None, None, "No contestant totals have been imported.")
    if value is None:
        return Placement(len(others), None, None, "There is no total to place yet.")
    higher = sum(1 for t in others if t > value)
    lower = sum(1 for t in others if t < value)
    return Placement(len(others), 1 + higher, 100 * lower / len(others))


def medal(total: object, thresholds: Mapping[str, object]) -> str | None:
    """Return the best medal whose threshold the total reaches (total >= threshold), among
    MEDALS; thresholds that are None or absent are not awarded; None for no medal."""
    value = as_float(total)
    if value is None:
        return None
    for name in MEDALS:
        threshold = as_float(thresholds.get(name))
        if threshold is not None and value >= threshold:
            return name
    return None

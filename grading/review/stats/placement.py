"""Where a total stands among the human contestants, and which medal it earns."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
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
    return placements([total], contestant_totals)[0]


def placements(totals: Sequence[object], contestant_totals: Sequence[object]) -> list[Placement]:
    """Place each total among the contestants' totals: the same as placement() each, with
    the contestants sorted once (hundreds of systems among hundreds of contestants)."""
    others = sorted(present(contestant_totals))
    n = len(others)
    out = []
    for total in totals:
        value = as_float(total)
        if not others:
            out.append(Placement(0, None, None, "No contestant totals have been imported."))
        elif value is None:
            out.append(Placement(n, None, None, "There is no total to place yet."))
        else:
            higher = n - bisect_right(others, value)
            lower = bisect_left(others, value)
            out.append(Placement(n, 1 + higher, 100 * lower / n))
    return out


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

"""Suggested marks of assignment criteria from their items' exact-match flags: the rule alone.

A criterion that points at a task and some of its items gets a suggestion under its rubric's
rule: `share` (the maximum times the share of its items that match the key, rounded down to
the criterion's step), `per_item` (so many points per matching item, capped at the maximum,
rounded down to the step) or `none`. No Django here: the selectors give the flags.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

SHARE = "share"
PER_ITEM = "per_item"
NONE = "none"
RULES = (SHARE, PER_ITEM, NONE)
CENTS = Decimal("0.01")


def floor_to_step(value: Fraction, step: Decimal) -> Decimal:
    """Return the largest multiple of step not above value (exactly, with no float)."""
    steps = value / Fraction(step)
    return (step * (steps.numerator // steps.denominator)).quantize(CENTS)


def suggested_points(
    *,
    rule: str,
    maximum: Decimal,
    step: Decimal,
    flags: list[bool],
    points_per_item: Decimal | None = None,
) -> Decimal | None:
    """Return the suggested points for a criterion whose items matched as `flags`, or None.

    None when the rule is `none`, when there are no items, or `per_item` has no points.
    """
    if rule not in RULES:
        raise ValueError(f"unknown suggestion rule {rule!r}")
    if rule == NONE or not flags:
        return None
    matched = sum(bool(f) for f in flags)
    if rule == SHARE:
        return floor_to_step(Fraction(maximum) * matched / len(flags), step)
    if points_per_item is None:
        return None
    return floor_to_step(min(Fraction(points_per_item) * matched, Fraction(maximum)), step)


def item_flags(items: list[int], exact: list[bool]) -> list[bool]:
    """Return the exact-match flags of these item numbers (from 1); a missing flag is False."""
    return [bool(exact[i - 1]) if 0 < i <= len(exact) else False for i in items]

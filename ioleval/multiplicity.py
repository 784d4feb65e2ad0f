"""Many tests at once: Holm's adjustment of a family of p-values (pure; imports no app).

Why Holm rather than Benjamini-Hochberg: a flag on the analytics pages reads as "this
condition (or technique) moves the score", and the tests of one page are dependent (a
model's overall change shares its runs with its per-problem changes, techniques share
teams). Holm's step-down procedure bounds the chance of any false flag in the family
(family-wise error rate) under any dependence; Benjamini-Hochberg bounds only the expected
share of false flags, and only under independence or positive dependence. With families of
a few dozen tests, the stricter and assumption-free guarantee is the one to state.

Holm (1979): sort the m p-values, p(1) <= ... <= p(m); the adjusted value of p(i) is
min(1, max over j <= i of (m - j + 1) p(j)). A test is flagged at level alpha when its
adjusted p-value is at most alpha, which rejects exactly the hypotheses Holm's step-down
procedure rejects at alpha.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

HOLM = "Holm"
ALPHA = 0.05
DESCRIPTION = (
    "Holm's step-down adjustment over the family of {m} tests (family-wise error rate "
    "{alpha:g}, valid under any dependence between the tests)"
)


def holm(pvalues: Sequence[float | None]) -> list[float | None]:
    """Return Holm-adjusted p-values in the input order; a None (no test) stays None and is
    not counted in the family."""
    tested = [(p, i) for i, p in enumerate(pvalues) if p is not None]
    for p, i in tested:
        if not (isinstance(p, int | float) and math.isfinite(p) and 0 <= p <= 1):
            raise ValueError(f"p-value {i} is {p!r}, not a number from 0 to 1")
    m = len(tested)
    adjusted: list[float | None] = [None] * len(pvalues)
    running = 0.0
    # Ties keep the same adjusted value whatever their order: (m - j + 1) p(j) falls as j
    # grows, so the running maximum already holds it.
    for rank, (p, i) in enumerate(sorted(tested)):
        running = max(running, min(1.0, (m - rank) * float(p)))
        adjusted[i] = running
    return adjusted


def flagged(adjusted: Sequence[float | None], *, alpha: float = ALPHA) -> list[bool]:
    """Return, for each adjusted p-value, whether it is at most `alpha` (None: never)."""
    return [p is not None and p <= alpha for p in adjusted]


def family_size(pvalues: Sequence[float | None]) -> int:
    """Return how many tests the family holds (the p-values that are not None)."""
    return sum(p is not None for p in pvalues)


def describe(pvalues: Sequence[float | None], *, alpha: float = ALPHA) -> str:
    """Say in words which adjustment flags the family, and over how many tests."""
    return DESCRIPTION.format(m=family_size(pvalues), alpha=alpha)

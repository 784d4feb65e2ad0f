"""How the analytics' sentences write a p-value and a count (shared by their modules)."""

from __future__ import annotations

import math


def p_text(value: float | None) -> str:
    """A p-value as the sentences give it: three significant figures, "< 0.001" below."""
    if value is None or math.isnan(value):
        return "n/a"
    return f"{value:.3g}" if value >= 0.001 else "< 0.001"


def counted(n: int, word: str) -> str:
    """ "no run", "1 run", "3 runs"."""
    return {0: f"no {word}", 1: f"1 {word}"}.get(n, f"{n} {word}s")

"""How every page, chart, report and sentence writes a count of things, and a p-value (and an
interval, with their methods): one rule each, in one place."""

from __future__ import annotations

import math

P_FLOOR = 0.001  # below it a p-value is written "< 0.001", never "0.000"


def plural(count: int, one: str, many: str | None = None) -> str:
    """Return "1 cell" or "3 cells" (`many` for a word that does not take an s: "criteria")."""
    return f"{count} {one if count == 1 else (many or one + 's')}"


def p_cell(value: float | None) -> str:
    """Return a p-value for a table cell: three significant figures, "< 0.001" below, "—"
    for none."""
    if value is None or math.isnan(value):
        return "—"
    return f"{value:.3g}" if value >= P_FLOOR else f"< {P_FLOOR:g}"


def p_text(value: float | None) -> str:
    """Return a p-value for a sentence or a chart: "p = 0.0123", "p < 0.001", "p n/a"."""
    if value is None or math.isnan(value):
        return "p n/a"
    return f"p = {value:.3g}" if value >= P_FLOOR else f"p < {P_FLOOR:g}"


def p_method_text(value: float | None, method: str | None) -> str:
    """Return a p-value with the method that gave it: "p = 0.0167 (exact permutation, all 120
    orderings)"; as p_text without a method or a p-value."""
    text = p_text(value)
    if not method or value is None or math.isnan(value):
        return text
    return f"{text} ({method})"


def interval_text(interval: tuple[float, float] | None, method: str | None) -> str:
    """Return an interval with its method: "95% interval 0.91 to 1.00, Fisher z"; "" for
    none."""
    if interval is None:
        return ""
    low, high = interval
    text = f"95% interval {low:.2f} to {high:.2f}"
    return f"{text}, {method}" if method else text

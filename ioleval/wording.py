"""How every page, chart, report and sentence writes a p-value: one rule, in one place."""

from __future__ import annotations

import math

P_FLOOR = 0.001  # below it a p-value is written "< 0.001", never "0.000"


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

"""The ablations chart: a forest plot of each model's overall change under each condition
against the reference, with its 95% interval (matplotlib through `ioleval.charts`). Pure:
plain tuples in, SVG markup out.

A flagged change (its Holm-adjusted p-value at most 0.05, `stats.ablations`) is drawn as a
filled vermillion diamond and its label ends with " *"; the others are open blue circles,
so the mark does not rest on colour alone. A change without an interval is drawn without a bar."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from ioleval.charts import BLUE, GREY, VERMILLION, label, no_data_svg

from ..charts import render

if TYPE_CHECKING:
    from .selectors import AblationsPage

TITLE = "Change against the reference (95% interval across seeds)"
MAX_ROWS = 60  # (model, condition) rows drawn; the tables hold them all
FLAG = " *"


def ablation_forest(
    rows: Sequence[tuple[str, str, float, float | None, float | None, bool]],
    *,
    reference: str = "",
    title: str = TITLE,
) -> str:
    """Draw (model, condition, change, low, high, flagged) rows, top to bottom."""
    if not rows:
        return no_data_svg(title, "No change to show: no model has runs under two conditions")
    data = tuple(tuple(r) for r in rows[:MAX_ROWS])

    def draw(figure: Figure) -> None:
        ax = figure.subplots()
        ax.axvline(0.0, color=GREY, linewidth=1.0, linestyle="--")
        n = len(data)
        for i, (_, _, change, low, high, flagged) in enumerate(data):
            y = n - 1 - i
            if low is not None and high is not None:
                ax.plot([low, high], [y, y], color="#333333", linewidth=1.2)
                ax.plot([low, low], [y - 0.15, y + 0.15], color="#333333", linewidth=1.2)
                ax.plot([high, high], [y - 0.15, y + 0.15], color="#333333", linewidth=1.2)
            if flagged:
                ax.plot(change, y, marker="D", markersize=6, color=VERMILLION, linestyle="none")
            else:
                ax.plot(
                    change,
                    y,
                    marker="o",
                    markersize=6,
                    markerfacecolor="white",
                    markeredgecolor=BLUE,
                    markeredgewidth=1.5,
                    linestyle="none",
                )
        names = [
            label(f"{model} · {condition}") + (FLAG if flagged else "")
            for model, condition, _, _, _, flagged in data
        ]
        ax.set_yticks(range(n), list(reversed(names)))
        ax.set_ylim(-0.7, n - 0.3)
        ax.set_xlabel(f"change in score against {label(reference) or 'the reference'} (0-1)")
        figure.legend(
            handles=[
                Line2D(
                    [],
                    [],
                    marker="D",
                    color=VERMILLION,
                    linestyle="none",
                    label="flagged: Holm-adjusted p \u2264 0.05 (*)",
                ),
                Line2D(
                    [],
                    [],
                    marker="o",
                    markerfacecolor="white",
                    markeredgecolor=BLUE,
                    linestyle="none",
                    label="not flagged",
                ),
            ],
            loc="outside lower center",
            ncols=2,
        )

    height = min(1.6 + 0.32 * len(data), 20.0)
    return render(title, (reference, data), (7.0, height), draw)


def ablations_page_chart(page: AblationsPage) -> str:
    """Draw the ablations page's forest plot against its reference (the page's chart and the
    PDF report's)."""
    return ablation_forest(page.forest(), reference=page.reference or "")

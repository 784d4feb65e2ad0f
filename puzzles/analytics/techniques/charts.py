"""The techniques chart: a forest plot of each technique's within-team effect with its 95%
interval, and a zero line (matplotlib through `ioleval.charts`). Pure: plain tuples in, SVG
markup out.

The page's chart has a row per technique and score, the private score (the IOL-AI paper's)
first. A row flagged after Holm's adjustment is a vermillion diamond and its label ends
with " *", so the mark does not rest on colour alone."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from matplotlib.figure import Figure

from ioleval.charts import BLUE, GREY, VERMILLION, label, no_data_svg

from ..charts import render

if TYPE_CHECKING:
    from .selectors import TechniquesPage

TITLE = "Within-team effect of each technique (private and public score)"
MAX_ROWS = 40
FLAG = " *"


def techniques_forest(
    rows: Sequence[tuple[str, int, float, float | None, float | None, bool]],
    *,
    title: str = TITLE,
) -> str:
    """Draw (label, n teams, effect, low, high, flagged) rows, one line each in the given
    order; a row without an interval is a hollow point, a flagged one a diamond."""
    if not rows:
        return no_data_svg(title, "No technique with runs both with and without it")
    data = tuple(rows)[:MAX_ROWS]

    def draw(figure: Figure) -> None:
        ax = figure.subplots()
        ax.grid(axis="y", visible=False)
        ax.axvline(0, color="#333333", linewidth=0.9, zorder=1)
        for y, (_name, _n, effect, low, high, flagged) in enumerate(data):
            if low is not None and high is not None:
                ax.plot([low, high], [y, y], color=BLUE, linewidth=1.6, zorder=2)
                ax.plot([low, low], [y - 0.15, y + 0.15], color=BLUE, linewidth=1.2, zorder=2)
                ax.plot([high, high], [y - 0.15, y + 0.15], color=BLUE, linewidth=1.2, zorder=2)
            if flagged:
                ax.plot([effect], [y], "D", color=VERMILLION, markersize=6, zorder=3)
            elif low is not None and high is not None:
                ax.plot([effect], [y], "s", color=BLUE, markersize=6, zorder=3)
            else:
                ax.plot(
                    [effect], [y], "o", markerfacecolor="white", color=GREY, markersize=6, zorder=3
                )
        ax.set_yticks(
            range(len(data)),
            [f"{label(name)} (n={n}){FLAG if flagged else ''}" for name, n, *_, flagged in data],
        )
        ax.set_ylim(len(data) - 0.5, -0.5)
        values = [v for _, _, e, lo, hi, _ in data for v in (e, lo, hi) if v is not None]
        reach = max(0.05, *(abs(v) for v in values)) * 1.15
        ax.set_xlim(-reach, reach)
        ax.set_xlabel(
            "mean difference in score (0-1), a team's runs with minus without it\n"
            "\u2190 lower with the technique  |  higher with it \u2192\n"
            "hollow: no interval; diamond *: flagged (Holm-adjusted p \u2264 0.05)"
        )

    height = min(1.4 + 0.38 * len(data), 16.0)
    return render(title, data, (7.0, height), draw)


def techniques_page_chart(page: TechniquesPage) -> str:
    """Draw the techniques page's forest plot (the page's chart and the PDF report's): the
    techniques with an effect, in the page's order, on the private score then the public."""
    rows = [
        (f"{e.technique} \u00b7 {part.score}", e.n, e.effect, e.low, e.high, e.flagged)
        for part in page.scores
        for e in part.effects
        if e.effect is not None
    ]
    return techniques_forest(rows)

"""The techniques chart: a forest plot of each technique's within-team effect with its 95%
interval, and a zero line (matplotlib through `ioleval.charts`). Pure: plain tuples in, SVG
markup out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from matplotlib.figure import Figure

from ioleval.charts import BLUE, GREY, label, no_data_svg

from .charts import render

if TYPE_CHECKING:
    from .technique_selectors import TechniquesPage

TITLE = "Within-team effect of each technique (public score)"
MAX_ROWS = 40


def techniques_forest(
    rows: Sequence[tuple[str, int, float, float | None, float | None]], *, title: str = TITLE
) -> str:
    """Draw (technique, n teams, effect, low, high) rows, one line each in the given order;
    a row without an interval is a hollow point."""
    if not rows:
        return no_data_svg(title, "No technique with runs both with and without it")
    data = tuple(rows)[:MAX_ROWS]

    def draw(figure: Figure) -> None:
        ax = figure.subplots()
        ax.grid(axis="y", visible=False)
        ax.axvline(0, color="#333333", linewidth=0.9, zorder=1)
        for y, (_name, _n, effect, low, high) in enumerate(data):
            if low is not None and high is not None:
                ax.plot([low, high], [y, y], color=BLUE, linewidth=1.6, zorder=2)
                ax.plot([low, low], [y - 0.15, y + 0.15], color=BLUE, linewidth=1.2, zorder=2)
                ax.plot([high, high], [y - 0.15, y + 0.15], color=BLUE, linewidth=1.2, zorder=2)
                ax.plot([effect], [y], "s", color=BLUE, markersize=6, zorder=3)
            else:
                ax.plot(
                    [effect], [y], "o", markerfacecolor="white", color=GREY, markersize=6, zorder=3
                )
        ax.set_yticks(range(len(data)), [f"{label(name)} (n={n})" for name, n, *_ in data])
        ax.set_ylim(len(data) - 0.5, -0.5)
        values = [v for _, _, e, lo, hi in data for v in (e, lo, hi) if v is not None]
        reach = max(0.05, *(abs(v) for v in values)) * 1.15
        ax.set_xlim(-reach, reach)
        ax.set_xlabel(
            "mean difference in public score (0-1), a team's runs with minus without it\n"
            "\u2190 lower with the technique  |  higher with it \u2192"
            "   (hollow: one team, no interval)"
        )

    height = min(1.4 + 0.38 * len(data), 16.0)
    return render(title, data, (7.0, height), draw)


def techniques_page_chart(page: TechniquesPage) -> str:
    """Draw the techniques page's forest plot (the page's chart and the PDF report's): the
    techniques with an effect, in the page's order."""
    rows = [
        (e.technique, e.n, e.effect, e.low, e.high) for e in page.effects if e.effect is not None
    ]
    return techniques_forest(rows)

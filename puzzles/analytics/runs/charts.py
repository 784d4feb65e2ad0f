"""The runs chart: submissions per day, scored and failed stacked (matplotlib through
`ioleval.charts`). Pure: plain tuples in, SVG markup out."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import TYPE_CHECKING

from matplotlib.figure import Figure

from ioleval.charts import BLUE, VERMILLION, count_axis, no_data_svg

from ..charts import render
from ..stats.words import counted

if TYPE_CHECKING:
    from .selectors import RunsPage

TITLE = "Submissions per day"


def runs_per_day_chart(
    days: Sequence[tuple[date, int, int]], *, undated: int = 0, title: str = TITLE
) -> str:
    """Draw (day, scored, failed) as stacked bars, one bar per day with a submission; the
    `undated` runs (no known submission time) are in no bar, and the axis says how many."""
    if not days:
        return no_data_svg(title, f"No dated runs ({undated} undated)" if undated else "No runs")
    data = tuple(days)

    def draw(figure: Figure) -> None:
        ax = figure.subplots()
        labels = [d.isoformat() for d, _, _ in data]
        scored = [s for _, s, _ in data]
        failed = [f for _, _, f in data]
        positions = range(len(data))
        ax.bar(positions, scored, color=BLUE, label="scored")
        ax.bar(positions, failed, bottom=scored, color=VERMILLION, label="failed")
        step = max(1, len(labels) // 15)
        ax.set_xticks(list(positions)[::step], labels[::step], rotation=45, ha="right")
        ax.set_ylabel("submissions")
        if undated:
            ax.set_xlabel(f"not shown: {counted(undated, 'run')} without a known submission time")
        count_axis(ax.yaxis)
        # Above the axes: inside, the legend covered the first bars.
        figure.legend(loc="outside upper right", ncols=2)

    return render(title, (data, undated), (7.0, 3.4), draw)


def runs_page_chart(page: RunsPage) -> str:
    """Draw the runs page's submissions per day (the page's chart and the PDF report's)."""
    return runs_per_day_chart(
        [(d.day, d.scored, d.failed) for d in page.days], undated=page.undated
    )

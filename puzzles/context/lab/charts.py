"""Charts of the context lab as inline SVG (matplotlib through `ioleval.charts`); no Django."""

from __future__ import annotations

from collections.abc import Mapping

from matplotlib.figure import Figure

from ioleval.charts import GREY, VERMILLION, count_axis, no_data_svg, render


def max_dq_bars(counts: Mapping[int, int], *, title: str = "Puzzles by max D_Q") -> str:
    """Draw how many puzzles have each value of max_j D_Q(j); the bar at 0 is the robust ones.

    Every value from 0 to the largest is on the axis, so a gap reads as a gap.
    """
    if not counts or not any(counts.values()):
        return no_data_svg(title, "No puzzles")
    top = max(counts)
    values = list(range(top + 1))
    heights = [counts.get(v, 0) for v in values]
    data = tuple(heights)

    def draw(figure: Figure) -> None:
        ax = figure.subplots()
        ax.grid(axis="x", visible=False)
        colours = [GREY if v == 0 else VERMILLION for v in values]
        ax.bar(values, heights, width=0.7, color=colours, edgecolor="#333333", linewidth=0.4)
        for v, h in zip(values, heights, strict=True):
            if h:
                ax.text(v, h, str(h), ha="center", va="bottom", fontsize=8)
        ax.set_xticks(values, [str(v) for v in values])
        # Two lines: on one, the label was wider than a chart of a few bars and was cut.
        ax.set_xlabel("max D_Q: questions damaged\nby the most damaging single deletion")
        ax.set_ylabel("puzzles")
        count_axis(ax.yaxis)
        ax.set_ylim(0, max(heights) * 1.15 + 0.5)

    width = min(7.0, 3.0 + 0.35 * len(values))
    return render(title, data, (width, 2.6), draw)

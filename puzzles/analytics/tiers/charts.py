"""The tiers chart (the paper's Figure 1): one row per tier, each system a dot, the median
marked (matplotlib through `ioleval.charts`). Pure: plain tuples in, SVG markup out."""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.figure import Figure

from ioleval.charts import BLUE, VERMILLION, label, no_data_svg

from ..charts import render

TITLE = "Leaderboard scores by tier"
JITTER = (0.0, 0.12, -0.12, 0.24, -0.24)  # fixed offsets: the same data, the same picture


def tier_strips(strips: Sequence[tuple[str, Sequence[float], float]], *, title: str = TITLE) -> str:
    """Draw (tier label, scores 0-1, median) rows, the first tier on top, scores in percent."""
    if not strips:
        return no_data_svg(title, "No system with outputs")
    data = tuple((name, tuple(scores), median) for name, scores, median in strips)

    def draw(figure: Figure) -> None:
        ax = figure.subplots()
        count = len(data)
        for row, (_, scores, median) in enumerate(data):
            y = count - 1 - row
            xs = [s * 100 for s in scores]
            ys = [y + JITTER[i % len(JITTER)] for i in range(len(xs))]
            ax.scatter(
                xs,
                ys,
                s=22,
                color=BLUE,
                alpha=0.8,
                edgecolor="#333333",
                linewidth=0.4,
                zorder=3,
                label="system" if row == 0 else None,
            )
            ax.plot(
                [median * 100] * 2,
                [y - 0.38, y + 0.38],
                color=VERMILLION,
                linewidth=2.2,
                label="median" if row == 0 else None,
            )
        ax.set_yticks(range(count), [label(d[0]) for d in reversed(data)])
        ax.set_ylim(-0.6, count - 0.4)
        ax.set_xlim(-2, 102)
        ax.set_xlabel("leaderboard score (%)")
        figure.legend(loc="outside upper right", ncols=2)

    return render(title, data, (7.0, 1.2 + 0.55 * len(data)), draw)

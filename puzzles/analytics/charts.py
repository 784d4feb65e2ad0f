"""The analytics' charts as SVG (matplotlib through `ioleval.charts`); no Django."""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.figure import Figure

from ioleval.charts import label, no_data_svg, render

MAX_ROWS = 60  # systems drawn in the heat map; the table holds them all


def format_heatmap(
    systems: Sequence[str],
    columns: Sequence[str],
    shares: Sequence[Sequence[float]],
    *,
    title: str = "Format failures by system (share of tasks)",
) -> str:
    """Draw the prevalence matrix: one row per system, one column per family and stage."""
    if not systems or not columns:
        return no_data_svg(title, "No outputs")
    systems, shares = list(systems)[:MAX_ROWS], [list(r) for r in shares][:MAX_ROWS]
    data = (tuple(systems), tuple(columns), tuple(tuple(r) for r in shares))

    def draw(figure: Figure) -> None:
        ax = figure.subplots()
        ax.grid(visible=False)
        image = ax.imshow(shares, cmap="Blues", vmin=0.0, vmax=1.0, aspect="auto")
        for i, row in enumerate(shares):
            for j, value in enumerate(row):
                if value:
                    ink = "white" if value > 0.55 else "#222222"
                    ax.text(
                        j, i, f"{value * 100:.0f}", ha="center", va="center", fontsize=7, color=ink
                    )
        ax.set_xticks(range(len(columns)), [label(c) for c in columns], rotation=45, ha="right")
        ax.set_yticks(range(len(systems)), [label(s) for s in systems])
        figure.colorbar(image, ax=ax, label="share of tasks", shrink=0.8)

    height = min(2.2 + 0.28 * len(systems), 20.0)
    return render(title, data, (8.0, height), draw)

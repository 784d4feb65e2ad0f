"""The knowledge probes chart: probe accuracy against the automatic score, one point per
model (matplotlib through `ioleval.charts`). Pure: plain tuples in, SVG markup out."""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.figure import Figure

from ioleval.charts import BLUE, label, left_out_note, no_data_svg, place_labels

from ..charts import render

TITLE = "Probe accuracy against the automatic score"


def probes_scatter(points: Sequence[tuple[str, float, float]], *, title: str = TITLE) -> str:
    """Draw (model, accuracy over all probes, automatic score) points, each named."""
    if not points:
        return no_data_svg(title, "No model with both probe results and an automatic score")
    data = tuple(sorted(points))

    def draw(figure: Figure) -> None:
        ax = figure.subplots()
        ax.scatter([p[1] for p in data], [p[2] for p in data], color=BLUE, edgecolor="#333333")
        ax.set_xlim(-0.05, 1.05)
        ax.set_ylim(-0.05, 1.05)
        ax.set_xlabel("probe accuracy (all probes)")
        ax.set_ylabel("automatic score (0-1)")
        left_out = place_labels(
            ax, [(x, y, label(model)) for model, x, y in data], marker_radius=4.0
        )
        if left_out:
            ax.set_title(left_out_note(left_out), loc="right", fontsize=7, color="#555555")

    return render(title, data, (5.0, 3.6), draw)

"""Charts of the context lab's results as inline SVG (matplotlib through `ioleval.charts`).

Pure: plain rows in (ConditionSummary, or mappings / objects with its field names), SVG
markup out; no Django.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from matplotlib.figure import Figure
from matplotlib.patches import Patch

from ioleval.charts import BLUE, GREEN, GREY, ORANGE, VERMILLION, label, no_data_svg, render

from ..lab.variants import CONDITIONS

# One colour and one hatch per model, so the bars read apart without colour too.
SERIES = (
    (BLUE, None),
    (ORANGE, "////"),
    (GREEN, "...."),
    (VERMILLION, "\\\\\\\\"),
    (GREY, "xx"),
)


def _get(row: object, name: str) -> object:
    return row.get(name) if isinstance(row, Mapping) else getattr(row, name, None)


def mean_em_bars(rows: Iterable[object], *, title: str = "Mean EM per model and condition") -> str:
    """Draw each model's mean EM (abstentions as 0, 0-1) under each condition, grouped by condition.

    `rows`: `model`, `condition` (one of CONDITIONS) and `mean_em`. Conditions keep the
    CONDITIONS order and models their sorted order; a model without a run under a condition
    leaves its bar out and says "n/a". Beyond len(SERIES) models colours repeat.
    """
    values: dict[tuple[str, str], float] = {}
    for row in rows:
        condition, em = _get(row, "condition"), _get(row, "mean_em")
        if condition in CONDITIONS and em is not None:
            values[(str(_get(row, "model")), str(condition))] = float(em)
    if not values:
        return no_data_svg(title, "No solver answers yet")
    models = sorted({model for model, _ in values})
    conditions = [c for c in CONDITIONS if any((m, c) in values for m in models)]
    data = tuple(sorted(values.items()))

    def draw(figure: Figure) -> None:
        ax = figure.subplots()
        ax.grid(axis="x", visible=False)
        width = 0.8 / len(models)
        for i, model in enumerate(models):
            colour, hatch = SERIES[i % len(SERIES)]
            for x, condition in enumerate(conditions):
                at = x - 0.4 + width * (i + 0.5)
                em = values.get((model, condition))
                if em is None:
                    ax.text(at, 0.02, "n/a", ha="center", va="bottom", fontsize=7, color="#555555")
                    continue
                ax.bar(
                    at,
                    em,
                    width=width * 0.92,
                    color=colour,
                    edgecolor="#333333",
                    linewidth=0.4,
                    hatch=hatch,
                )
                ax.text(at, em + 0.01, f"{em:.2f}", ha="center", va="bottom", fontsize=7)
        ax.set_xticks(range(len(conditions)), [c.replace("_", " ") for c in conditions])
        ax.set_ylim(0, 1.1)
        ax.set_ylabel("mean EM (abstentions as 0)")
        figure.legend(
            handles=[
                Patch(
                    facecolor=SERIES[i % len(SERIES)][0],
                    edgecolor="#333333",
                    hatch=SERIES[i % len(SERIES)][1],
                    label=label(model),
                )
                for i, model in enumerate(models)
            ],
            loc="outside upper center",
            ncols=min(len(models), 4),
        )

    width = min(7.0, 3.0 + 0.25 * len(models) * len(conditions))
    return render(title, data, (max(width, 4.5), 3.2), draw)

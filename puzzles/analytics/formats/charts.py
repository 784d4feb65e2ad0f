"""The format failures' heat map as SVG, for its page and the PDF report; no Django."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from matplotlib.figure import Figure

from ioleval.charts import label, no_data_svg

from ..charts import render
from ..stats.formats import FAMILIES, FAMILY_LABELS, STAGES

if TYPE_CHECKING:
    from .selectors import FormatsPage

MAX_ROWS = 60  # systems drawn in the heat map; the table holds them all
# Systems per heat map in the PDF: drawn at its natural size (8 in wide, its text 7-8 pt),
# a chart of 12 rows and its column names fits a landscape page with its heading; a
# competition of 46 systems gets four.
PDF_ROWS = 12


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
                    text = ax.text(
                        j, i, f"{value * 100:.0f}", ha="center", va="center", fontsize=7, color=ink
                    )
                    text.set_in_layout(False)  # inside its cell: the layout need not measure it
        ax.set_xticks(range(len(columns)), [label(c) for c in columns], rotation=45, ha="right")
        ax.set_xlabel("failure, before or after extraction")
        ax.set_yticks(range(len(systems)), [label(s) for s in systems])
        figure.colorbar(image, ax=ax, label="share of tasks", shrink=0.8)

    height = min(2.2 + 0.28 * len(systems), 20.0)
    return render(title, data, (8.0, height), draw)


def format_columns() -> list[str]:
    """Return the heat map's column names, in the export's order of its share columns
    (`empty_before`, `empty_after`, ...) but as a reader names them ("empty, before")."""
    return [f"{FAMILY_LABELS[f]}, {stage}" for f in FAMILIES for stage in STAGES]


def formats_pdf_charts(page: FormatsPage) -> list[str]:
    """Draw the heat map for the PDF report: one chart per PDF_ROWS systems, in the page's
    order, each readable at its natural size (one chart of 46 rows shrunk to a page was
    not)."""
    _header, body = page.table()
    charts = []
    for start in range(0, len(body), PDF_ROWS):
        rows = body[start : start + PDF_ROWS]
        title = "Format failures by system (share of tasks)"
        if len(body) > PDF_ROWS:
            title += f", systems {start + 1}-{start + len(rows)} of {len(body)}"
        charts.append(
            format_heatmap(
                [r[0] for r in rows], format_columns(), [r[2:-3] for r in rows], title=title
            )
        )
    return charts


def formats_page_chart(page: FormatsPage) -> str:
    """Draw the format failures page's heat map (the page's chart and the PDF report's):
    the export's share columns, one row per system."""
    _header, body = page.table()
    return format_heatmap([r[0] for r in body], format_columns(), [r[2:-3] for r in body])

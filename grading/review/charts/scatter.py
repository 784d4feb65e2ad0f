"""The jury against the automatic score: one point a system, a least-squares line."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from ioleval import charts as shared

from .style import (
    BLUE,
    GREY,
    NAMED,
    VERMILLION,
    WIDTH,
    _get,
    _label,
    _note,
    _number,
    _render,
    no_data_svg,
)


def jury_vs_auto_scatter(
    points: Iterable,
    *,
    jury_maximum: float = 100.0,
    fit_line: bool = True,
    note: str = "",
    title: str = "Jury total against automatic score",
) -> str:
    """Draw each system's jury total (y) against its automatic score 0-100 (x), labelled.

    `points`: rows with `system`, `auto_score` (0-100), `jury_total` and optional `external`
    (figures imported from elsewhere: hollow marker, legend "external figures"). Rows missing
    either number are left out. `note` (e.g. "Spearman rho = 1.00, n = 5") goes in a corner.
    """
    rows = []
    for row in points:
        x, y = _number(_get(row, "auto_score")), _number(_get(row, "jury_total"))
        if x is not None and y is not None:
            rows.append((_label(_get(row, "system", "")), x, y, bool(_get(row, "external", False))))
    if not rows:
        return no_data_svg(title)

    def draw(figure: Figure) -> None:
        ax = figure.subplots()
        handles = []
        for external in (False, True):
            group = [r for r in rows if r[3] is external]
            if not group:
                continue
            face = "none" if external else BLUE
            edge = VERMILLION if external else BLUE
            ax.scatter(
                [r[1] for r in group],
                [r[2] for r in group],
                s=36,
                marker="o",
                facecolors=face,
                edgecolors=edge,
                linewidths=1.4,
                zorder=3,
            )
            handles.append(
                Line2D(
                    [],
                    [],
                    linestyle="none",
                    marker="o",
                    markersize=6,
                    markerfacecolor=face,
                    markeredgecolor=edge,
                    markeredgewidth=1.4,
                    label="external figures" if external else "systems",
                )
            )
        xs = [r[1] for r in rows]
        if fit_line and len(set(xs)) >= 2:
            slope, intercept = _least_squares(xs, [r[2] for r in rows])
            lo, hi = min(xs), max(xs)
            ax.plot(
                [lo, hi],
                [slope * lo + intercept, slope * hi + intercept],
                color=GREY,
                linestyle="--",
                linewidth=1,
                zorder=2,
            )
            handles.append(Line2D([], [], color=GREY, linestyle="--", label="least-squares fit"))
        ymax = max(jury_maximum, max(r[2] for r in rows))
        ax.set_xlim(0, max(100.0, max(xs)) * 1.04)
        ax.set_ylim(min(0.0, min(r[2] for r in rows)), ymax * 1.06)
        ax.set_xlabel("automatic score (0-100)")
        ax.set_ylabel(f"jury total (of {jury_maximum:g})")
        figure.legend(handles=handles, loc="outside upper center", ncols=len(handles))
        _note(ax, note)
        shown = {(name, x, y) for name, x, y, _ in named}
        left_out = shared.place_labels(
            ax,
            [(x, y, name) for name, x, y, _ in named],
            others=[(x, y) for name, x, y, _ in rows if (name, x, y) not in shown],
        )
        named_note = ""
        if len(named) < len(rows):
            named_note = f"names: the {top} best and {len(named) - top} largest gaps of {len(rows)}"
        _named_note(ax, "; ".join(filter(None, [named_note, shared.left_out_note(left_out)])))

    named, top = _scatter_named(rows, jury_maximum)
    return _render(title, rows, (WIDTH, 4.6), draw)


def _scatter_named(rows: list, jury_maximum: float) -> tuple[list, int]:
    """Return the rows to name (all up to NAMED; else the NAMED // 2 best jury totals, then
    the largest gaps between the automatic score and the jury total on 0-100) and how many
    of them are there for their total. They come in order of priority (best totals, then
    largest gaps): when a crowded chart has no room left for a name, the last ones go."""
    by_total = sorted(range(len(rows)), key=lambda i: (-rows[i][2], rows[i][0]))
    if len(rows) <= NAMED:
        return [rows[i] for i in by_total], len(rows)
    scale = 100 / jury_maximum if jury_maximum else 1.0
    chosen = by_total[: NAMED // 2]
    gaps = sorted(
        range(len(rows)), key=lambda i: (-abs(rows[i][1] - rows[i][2] * scale), rows[i][0])
    )
    for i in gaps:
        if len(chosen) >= NAMED:
            break
        if i not in chosen:
            chosen.append(i)
    return [rows[i] for i in chosen], NAMED // 2


def _named_note(ax, text: str) -> None:
    """Say which points are named, above the axes on the right (not over the points)."""
    if text:
        ax.set_title(text, loc="right", fontsize=7, color="#555555")


def _least_squares(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float]:
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx
    return slope, my - slope * mx


# --- 2. automatic minus jury per problem and system ------------------------------------------

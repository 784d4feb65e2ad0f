"""The systems among the contestants: the contestants' histogram, medal lines, systems."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from ioleval import charts as shared

from .style import (
    BLACK,
    LIGHT,
    MEDALS,
    NAMED,
    WIDTH,
    _get,
    _label,
    _number,
    _rectangles,
    _render,
    no_data_svg,
)


def placement_histogram(
    contestant_totals: Iterable[float],
    thresholds: Mapping | object | None,
    systems: Iterable,
    *,
    maximum: float = 100.0,
    title: str = "Systems placed among the contestants",
) -> str:
    """Draw the contestants' totals as a histogram, the medal thresholds and the systems.

    `contestant_totals`: numbers (may be empty). `thresholds`: a mapping or object with
    `gold`, `silver`, `bronze`, `honourable_mention` (each a number or None; may be None as
    a whole). `systems`: rows with `system`, `jury_total` and optional `external`, drawn as
    labelled markers in a strip under the histogram (alone when there are no contestants).
    """
    totals = sorted(t for t in (_number(v) for v in contestant_totals) if t is not None)
    lines = []
    for key, name, colour, style in MEDALS:
        value = _number(_get(thresholds, key)) if thresholds is not None else None
        if value is not None:
            lines.append((name, value, colour, style))
    placed = []
    for row in systems:
        total = _number(_get(row, "jury_total"))
        if total is not None:
            placed.append((total, _label(_get(row, "system", "")), bool(_get(row, "external"))))
    placed.sort()
    if not totals and not lines and not placed:
        return no_data_svg(title)
    top = max([maximum, *totals, *(v for _, v, _, _ in lines), *(t for t, _, _ in placed)])
    # Beyond NAMED systems, the best NAMED are named; the others share one unnamed row.
    named = placed[-NAMED:] if len(placed) > NAMED else placed
    unnamed = placed[: len(placed) - len(named)]
    levels = _label_levels(named, top)
    n_levels = max(levels, default=-1) + 1 + bool(unnamed)
    strip = 0.45 + 0.2 * max(n_levels, 1)
    hist = 2.8 if totals else 0.0
    legend_room = 0.4 if any(external for *_, external in placed) else 0.0

    def draw(figure: Figure) -> None:
        if totals:
            ax_hist, ax_strip = figure.subplots(
                2, 1, sharex=True, height_ratios=[hist, strip], gridspec_kw={"hspace": 0.02}
            )
            width = top / 40
            bins = [width * k for k in range(41)]
            counts, _ = np.histogram(totals, bins=bins)  # as hist() counts them
            _rectangles(
                ax_hist,
                [(bins[k], 0.0, width, int(c)) for k, c in enumerate(counts) if c],
                facecolor=LIGHT,
                edgecolor="#6B8BA4",
                linewidth=0.5,
            )
            ax_hist.set_ylim(0, max(int(counts.max()), 1) * 1.05)
            ax_hist.set_ylabel("contestants")
            shared.count_axis(ax_hist.yaxis)
            ax_hist.grid(axis="x", visible=False)
            ax_hist.tick_params(axis="x", labelbottom=False)
            axes = (ax_hist, ax_strip)
        else:
            ax_strip = figure.subplots()
            axes = (ax_strip,)
        for name, value, colour, style in lines:
            for ax in axes:
                ax.axvline(value, color=colour, linestyle=style, linewidth=1.4, zorder=1)
            axes[0].annotate(
                f"{name} {value:g}",
                (value, 1),
                xycoords=("data", "axes fraction"),
                xytext=(2, -2),
                textcoords="offset points",
                rotation=90,
                ha="left",
                va="top",
                fontsize=7,
                color="#333333",
            )
        rows = list(levels) + [n_levels - 1] * len(unnamed)
        at = list(zip(named + unnamed, rows, strict=True))
        for external in (False, True):
            group = [(total, level) for (total, _, ext), level in at if ext is external]
            if group:
                ax_strip.scatter(
                    [total for total, _ in group],
                    [level for _, level in group],
                    s=25,
                    marker="D",
                    zorder=3,
                    facecolors="none" if external else BLACK,
                    edgecolors=BLACK,
                    linewidths=1,
                )
        for (total, name, _external), level in zip(named, levels, strict=True):
            right = total + _label_width(name, top) + top * 0.01 <= top
            ax_strip.annotate(
                name,
                (total, level),
                xytext=(5 if right else -5, 0),
                textcoords="offset points",
                ha="left" if right else "right",
                va="center",
                fontsize=7,
                parse_math=False,
            )
        ax_strip.set_ylim(max(n_levels, 1) - 0.4, -0.6)
        if unnamed:
            ax_strip.set_yticks([n_levels - 1], [f"{len(unnamed)} more"])
            ax_strip.tick_params(axis="y", length=0)
        else:
            ax_strip.set_yticks([])
        ax_strip.grid(visible=False)
        ax_strip.spines["left"].set_visible(False)
        ax_strip.set_xlim(0, top * 1.02)
        ax_strip.set_xlabel(f"total (of {maximum:g})")
        if not placed:
            ax_strip.text(
                0.5,
                0.5,
                "no system totals yet",
                transform=ax_strip.transAxes,
                ha="center",
                va="center",
                fontsize=8,
                color="#555555",
            )
        if legend_room:
            figure.legend(
                handles=[
                    Line2D([], [], marker="D", linestyle="none", color=BLACK, label="systems"),
                    Line2D(
                        [],
                        [],
                        marker="D",
                        linestyle="none",
                        markerfacecolor="none",
                        markeredgecolor=BLACK,
                        label="external figures",
                    ),
                ],
                loc="outside lower center",
                ncols=2,
            )

    data = (tuple(totals), tuple(lines), tuple(placed), maximum)
    return _render(title, data, (WIDTH, 0.7 + hist + strip + legend_room), draw)


def _label_width(name: str, span: float) -> float:
    # A 7-point character is about 0.055 in wide; the axes are about 6.2 in for the span.
    return len(name) * 0.055 * span / 6.2


def _label_levels(placed: Sequence[tuple[float, str, bool]], span: float) -> list[int]:
    """Give each system a row of the strip so that no two labels overlap (greedy, by total)."""
    ends: list[float] = []  # per row, where its last label ends
    levels = []
    for total, name, _external in placed:
        width = _label_width(name, span) + span * 0.02
        right = total + width <= span
        start, end = (total, total + width) if right else (total - width, total)
        for level, last in enumerate(ends):
            if start > last:
                ends[level] = end
                levels.append(level)
                break
        else:
            ends.append(end)
            levels.append(len(ends) - 1)
    return levels


# --- 4. criterion difficulty -----------------------------------------------------------------

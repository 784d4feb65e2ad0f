"""Charts of the result review as inline SVG strings, drawn by matplotlib on the server.

Plain data in (dataclasses below, or mappings / objects with the same field names), SVG
markup out, ready to be put into a page or the PDF report as it is: no XML prolog, a
`role="img"` root with an `aria-label` and a `<title>`, `width="100%"` and a viewBox, text
kept as `<text>` (searchable, small). Nothing here imports Django or the ORM.

Thread safety: pyplot is never imported (no global figure registry, no GUI backend); each
chart is its own `Figure` on an explicit SVG canvas. matplotlib's rcParams are one global
dict, read both while a figure is built and while it is saved (`svg.*`), so the style is
applied with `rc_context` inside one process-wide lock: Django request threads and Celery
workers never see each other's settings, and charts of one process render one at a time.

Untrusted text (system names, criterion codes, problem titles) is drawn literally: mathtext
is off (`text.parse_math`), so `$x$` stays two dollar signs; matplotlib escapes `<`, `>`,
`&` and quotes; control characters, which XML forbids, are replaced by spaces.

Output is deterministic: no date, no creator metadata, and the salt of matplotlib's
content-derived ids (clip paths, markers, hatches) is derived from the chart and its data,
so the same input gives the same bytes while two different charts on one page do not share
ids. The `id`s matplotlib puts on every group ("figure_1", "axes_1", ...) are dropped: they
would repeat in a page with several charts and nothing refers to them. Styles become
presentation attributes (`fill="#fff"`, not `style="fill: #fff"`) and matplotlib's `*{...}`
style sheet becomes attributes of the root: a page's strict `style-src` cannot block them,
nothing leaks onto the rest of the page, and WeasyPrint draws the same markup inline in the
PDF report without a warning per property.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from cycler import cycler
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from ioleval import charts as shared

# --- style: one place ------------------------------------------------------------------------

# Okabe & Ito's colour-blind-safe palette (Color Universal Design), in the order we use it.
BLUE = shared.BLUE
ORANGE = shared.ORANGE
GREEN = shared.GREEN
VERMILLION = shared.VERMILLION
SKY = "#56B4E9"
PURPLE = "#CC79A7"
YELLOW = "#F0E442"
BLACK = "#000000"
GREY = shared.GREY
LIGHT = "#C9DCEB"  # the contestants' histogram, behind everything else
PALETTE = (BLUE, ORANGE, GREEN, VERMILLION, SKY, PURPLE, YELLOW, BLACK)

# Medal lines differ by line style as well as colour.
MEDALS = (
    ("gold", "gold", ORANGE, "-"),
    ("silver", "silver", GREY, "--"),
    ("bronze", "bronze", VERMILLION, "-."),
    ("honourable_mention", "HM", BLUE, ":"),
)

WIDTH = 7.0  # inches; the SVG is scaled to its container (width 100%), so this sets text size
LABEL_CHARS = (
    shared.LABEL_CHARS
)  # longer names are cut with an ellipsis (the tables show them whole)
# Beyond this many systems a chart names only the ones a reader looks for (the best and the
# most divergent) and says so; hundreds of overlapping names are unreadable and slow to draw.
NAMED = 30

# What the review's charts add to ioleval.charts.STYLE.
STYLE = {
    "axes.prop_cycle": cycler(color=PALETTE),
    "hatch.linewidth": 0.8,
    "hatch.color": "#333333",
}

# --- inputs ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SystemScore:
    """One system: automatic score 0-100 and jury total (for the scatter and the placement)."""

    system: str
    auto_score: float | None
    jury_total: float | None
    external: bool = False


@dataclass(frozen=True)
class Divergence:
    """Automatic minus jury for one problem and system, both on 0-100."""

    problem: str
    system: str
    difference: float


@dataclass(frozen=True)
class CriterionDifficulty:
    """Mean fraction (0-1) of a criterion's points that contestants and AI systems got."""

    criterion: str
    humans: float | None
    models: float | None


@dataclass(frozen=True)
class Agreement:
    """One problem's Krippendorff's alpha and ICC(2,k), each with an optional (low, high)."""

    problem: str
    alpha: float | None = None
    alpha_ci: tuple[float, float] | None = None
    icc: float | None = None
    icc_ci: tuple[float, float] | None = None


def _get(row, name: str, default=None):
    if isinstance(row, Mapping):
        return row.get(name, default)
    return getattr(row, name, default)


def _number(value) -> float | None:
    if value is None:
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _label(value) -> str:
    return shared.label(value)


def _interval(value) -> tuple[float, float] | None:
    if not value:
        return None
    low, high = (_number(v) for v in value)
    return None if low is None or high is None else (low, high)


# --- rendering -------------------------------------------------------------------------------


def _render(title: str, data, size: tuple[float, float], draw: Callable[[Figure], None]) -> str:
    return shared.render(title, data, size, draw, style=STYLE)


no_data_svg = shared.no_data_svg


def _note(ax, note: str) -> None:
    """Put a note (a statistic) above the axes, left: inside them it could hide a point."""
    if note:
        ax.set_title(_label(note), loc="left", fontsize=8)


def _rectangles(ax, boxes: Sequence[tuple[float, float, float, float]], **style) -> None:
    """Draw (x, y, width, height) boxes as one collection: one artist instead of a patch per
    bar (bar() and hist() make one each, which was most of a chart's drawing time)."""
    ax.add_collection(
        PolyCollection(
            [[(x, y), (x + w, y), (x + w, y + h), (x, y + h)] for x, y, w, h in boxes],
            **style,
        ),
        autolim=False,
    )


# --- 1. jury against automatic ---------------------------------------------------------------


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

_BAR = 0.075  # inches per bar
_GROUP_GAP = 0.12  # inches between systems


def divergence_bars(
    rows: Iterable,
    *,
    title: str = "Automatic minus jury, per problem and system",
) -> str:
    """Draw automatic minus jury (both 0-100) as grouped horizontal bars, one group per system.

    `rows`: `problem`, `system`, `difference` (automatic minus jury, points of 100). Colour
    tells the problem; the sign is told without colour too: bars where the jury is higher
    are hatched, and the axis says which side is which. Systems and problems keep the order
    in which they first appear.
    """
    cells: dict[tuple[str, str], float] = {}
    systems: list[str] = []
    problems: list[str] = []
    for row in rows:
        value = _number(_get(row, "difference"))
        if value is None:
            continue
        system, problem = _label(_get(row, "system", "")), _label(_get(row, "problem", ""))
        if system not in systems:
            systems.append(system)
        if problem not in problems:
            problems.append(problem)
        cells[(system, problem)] = value
    if not cells:
        return no_data_svg(title)
    everyone = len(systems)
    if everyone > NAMED:
        gap: dict[str, float] = {}
        for (system, _), value in cells.items():
            gap[system] = max(gap.get(system, 0.0), abs(value))
        kept = set(sorted(systems, key=lambda s: (-gap[s], s))[:NAMED])
        systems = [s for s in systems if s in kept]
        cells = {key: v for key, v in cells.items() if key[0] in kept}
    n_sys, n_prob = len(systems), len(problems)
    height = 1.3 + 0.35 * math.ceil(n_prob / 6) + n_sys * (n_prob * _BAR + _GROUP_GAP)

    def draw(figure: Figure) -> None:
        ax = figure.subplots()
        ax.grid(axis="y", visible=False)
        bar = 0.8 / n_prob
        for j, problem in enumerate(problems):
            colour = PALETTE[j % len(PALETTE)]
            extra = "" if j < len(PALETTE) else ".."  # colours repeat past eight problems
            bars = [
                (i - 0.4 + bar * (j + 0.5), cells[(system, problem)])
                for i, system in enumerate(systems)
                if (system, problem) in cells
            ]
            # One call per problem and sign: a call per bar is most of the rendering time.
            for negative in (False, True):
                chosen = [(y, v) for y, v in bars if (v < 0) is negative]
                if chosen:
                    half = bar * 0.46
                    _rectangles(
                        ax,
                        [(0.0, y - half, v, 2 * half) for y, v in chosen],
                        facecolor=colour,
                        edgecolor="#333333",
                        linewidth=0.4,
                        hatch=("////" if negative else "") + extra or None,
                    )
        ax.axvline(0, color=BLACK, linewidth=0.8)
        ax.set_yticks(range(n_sys), systems, parse_math=False)
        ax.set_ylim(n_sys - 0.5, -0.5)
        reach = max(10.0, max(abs(v) for v in cells.values()) * 1.08)
        ax.set_xlim(-min(reach, 105.0), min(reach, 105.0))
        ax.set_xlabel(
            "\u2190 jury higher (hatched)    automatic \u2212 jury, points of 100"
            "    automatic higher \u2192"
        )
        handles = [
            Patch(
                facecolor=PALETTE[j % len(PALETTE)],
                edgecolor="#333333",
                hatch=".." if j >= len(PALETTE) else None,
                label=problem,
            )
            for j, problem in enumerate(problems)
        ]
        handles.append(Patch(facecolor="white", edgecolor="#333333", label="automatic higher"))
        handles.append(
            Patch(facecolor="white", edgecolor="#333333", hatch="////", label="jury higher")
        )
        legend = figure.legend(
            handles=handles, loc="outside upper center", ncols=min(len(handles), 6)
        )
        for text in legend.get_texts():
            text.set_parse_math(False)
        if n_sys < everyone:
            ax.set_title(
                f"the {n_sys} systems with the largest gaps, of {everyone}", fontsize=8, loc="left"
            )

    data = (tuple(systems), tuple(problems), tuple(sorted(cells.items())), everyone)
    return _render(title, data, (WIDTH, height), draw)


# --- 3. placement among the contestants ------------------------------------------------------


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


def difficulty_scatter(
    points: Iterable,
    *,
    note: str = "",
    title: str = "Criterion difficulty: AI systems against contestants",
) -> str:
    """Draw, per criterion, the fraction of points models got (y) against humans (x), 0-1.

    `points`: rows with `criterion` (a label such as "P3.b"), `humans` and `models` (mean
    fraction of the criterion's points, 0-1); rows missing either are left out. Points under
    the diagonal are criteria harder for models than for humans. `note` (e.g. the Spearman
    rho and p) goes in a corner.
    """
    rows = []
    for row in points:
        x, y = _number(_get(row, "humans")), _number(_get(row, "models"))
        if x is not None and y is not None:
            rows.append((_label(_get(row, "criterion", "")), x, y))
    if not rows:
        return no_data_svg(title)

    def draw(figure: Figure) -> None:
        ax = figure.subplots()
        ax.plot([0, 1], [0, 1], color=GREY, linestyle="--", linewidth=1, zorder=1)
        ax.scatter([r[1] for r in rows], [r[2] for r in rows], s=28, color=BLUE, zorder=3)
        ax.set_xlim(-0.03, 1.05)
        ax.set_ylim(-0.03, 1.05)
        ax.set_aspect("equal")
        ax.set_xlabel("fraction of points, contestants")
        ax.set_ylabel("fraction of points, AI systems")
        # What each side of the diagonal means, in the legend: text inside the axes could
        # hide a point.
        figure.legend(
            handles=[
                Line2D([], [], color=GREY, linestyle="--", label="equally hard"),
                Line2D([], [], linestyle="none", label="above: harder for humans"),
                Line2D([], [], linestyle="none", label="below: harder for models"),
            ],
            loc="outside upper center",
            ncols=3,
            handlelength=1.5,
        )
        _note(ax, note)
        left_out = shared.place_labels(ax, [(x, y, name) for name, x, y in rows])
        _named_note(ax, shared.left_out_note(left_out))

    return _render(title, rows, (WIDTH * 0.75, WIDTH * 0.75), draw)


# --- 5. juror agreement ----------------------------------------------------------------------


def agreement_bars(
    rows: Iterable,
    *,
    title: str = "Juror agreement per problem",
) -> str:
    """Draw Krippendorff's alpha and ICC(2,k) per problem as bars with interval whiskers.

    `rows`: `problem`, `alpha`, `alpha_ci` ((low, high) or None), `icc`, `icc_ci`. A missing
    value leaves its bar out and says "n/a". ICC bars are hatched, so the two read apart
    without colour; a dotted line marks 0.8, the usual bar for reliable data.
    """
    data = []
    for row in rows:
        alpha, icc = _number(_get(row, "alpha")), _number(_get(row, "icc"))
        data.append(
            (
                _label(_get(row, "problem", "")),
                alpha,
                _interval(_get(row, "alpha_ci")) if alpha is not None else None,
                icc,
                _interval(_get(row, "icc_ci")) if icc is not None else None,
            )
        )
    if not any(r[1] is not None or r[3] is not None for r in data):
        return no_data_svg(title)
    lowest = min(
        [0.0]
        + [v for r in data for v in (r[1], r[3]) if v is not None]
        + [ci[0] for r in data for ci in (r[2], r[4]) if ci is not None]
    )

    def draw(figure: Figure) -> None:
        ax = figure.subplots()
        ax.grid(axis="x", visible=False)
        width = 0.38
        series = ((1, 2, BLUE, None, -width / 2), (3, 4, ORANGE, "////", width / 2))
        for i, row in enumerate(data):
            for value_at, ci_at, colour, hatch, offset in series:
                value, ci = row[value_at], row[ci_at]
                x = i + offset
                if value is None:
                    ax.text(x, 0.02, "n/a", ha="center", va="bottom", fontsize=7, color="#555555")
                    continue
                ax.bar(
                    x,
                    value,
                    width=width * 0.95,
                    color=colour,
                    edgecolor="#333333",
                    linewidth=0.4,
                    hatch=hatch,
                )
                if ci is not None:
                    low, high = min(ci), max(ci)
                    ax.errorbar(
                        x,
                        value,
                        yerr=[[max(value - low, 0)], [max(high - value, 0)]],
                        color=BLACK,
                        capsize=3,
                        linewidth=0.9,
                    )
        ax.axhline(0, color=BLACK, linewidth=0.8)
        ax.axhline(0.8, color=GREY, linestyle=":", linewidth=1)
        ax.set_xticks(range(len(data)), [r[0] for r in data], parse_math=False)
        ax.set_ylim(lowest - 0.05 if lowest < 0 else 0, 1.05)
        ax.set_ylabel("agreement (1 = perfect)")
        figure.legend(
            handles=[
                Patch(facecolor=BLUE, edgecolor="#333333", label="Krippendorff's alpha"),
                Patch(facecolor=ORANGE, edgecolor="#333333", hatch="////", label="ICC(2,k)"),
                Line2D([], [], color=BLACK, marker="_", label="95% interval"),
            ],
            loc="outside upper center",
            ncols=3,
        )

    width = min(WIDTH, 2.0 + 0.9 * len(data))
    return _render(title, data, (max(width, 4.0), 3.4), draw)

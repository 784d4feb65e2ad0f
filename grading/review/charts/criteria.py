"""Criteria and problems: how hard each criterion was for contestants and models, and the
jury's agreement per problem."""

from __future__ import annotations

from collections.abc import Iterable

from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from ioleval import charts as shared

from .scatter import _named_note
from .style import (
    BLACK,
    BLUE,
    GREY,
    ORANGE,
    WIDTH,
    _get,
    _interval,
    _label,
    _note,
    _number,
    _render,
    no_data_svg,
)


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

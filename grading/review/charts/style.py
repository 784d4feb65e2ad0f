"""The review charts' one style: palette, sizes, inputs and the shared drawing helpers."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from cycler import cycler
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure

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

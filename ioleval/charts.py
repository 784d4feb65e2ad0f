"""Server-side SVG charts: the one matplotlib setup every app's charts draw through.

The review's charts (`grading/review/charts/`) and the context lab's
(`puzzles/context/lab/charts.py`) draw through it; any app may import it (`puzzles` may not
import `grading`):

- pyplot is never imported; each chart is its own `Figure` on an explicit SVG canvas, drawn
  under one process-wide lock inside `rc_context(STYLE)`, since rcParams are global;
- `svg.fonttype` "none" keeps text as `<text>`; mathtext is off (`text.parse_math`), so
  untrusted labels are drawn literally; matplotlib escapes `<`, `>`, `&` and quotes, and
  control characters (which XML forbids) become spaces (`label`);
- the output is deterministic (no date or creator; the id salt derives from title and
  data), has a `role="img"` root with an `aria-label` and a `<title>`, `width="100%"`, no
  group ids, and presentation attributes instead of style sheets (a strict `style-src`
  cannot block them and nothing leaks into the page).
"""

from __future__ import annotations

import hashlib
import html
import io
import re
import threading
from collections.abc import Callable

import matplotlib
from matplotlib.axis import Axis
from matplotlib.backends.backend_svg import FigureCanvasSVG
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator
from matplotlib.transforms import Bbox

BLUE = "#0072B2"
ORANGE = "#E69F00"
GREEN = "#009E73"
VERMILLION = "#D55E00"
GREY = "#999999"
LABEL_CHARS = 40
CSS_CLASS = "chart-svg"

STYLE = {
    "svg.fonttype": "none",
    "svg.image_inline": True,
    "text.usetex": False,
    "text.parse_math": False,
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans"],
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "legend.fontsize": 8,
    "legend.frameon": False,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.color": "#E3E3E3",
    "grid.linewidth": 0.6,
    "axes.axisbelow": True,
    "figure.facecolor": "white",
    "path.simplify": True,
}

_NO_METADATA = {"Date": None, "Creator": None, "Format": None, "Type": None}
_LOCK = threading.Lock()
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\ufffe\uffff]")
_ROOT_SIZE = re.compile(r'\s(?:width|height)="[^"]*"')
_GROUP_ID = re.compile(r'<g id="[^"]*"')
_INDENT = re.compile(r">\s+<")
_STYLE_ATTRIBUTE = re.compile(r' style="([^"]*)"')
_SHEET = re.compile(r'<defs>\s*<style type="text/css">\*\{([^}<]*)\}</style>\s*</defs>\s*')
_PRESENTATION = frozenset(
    "fill fill-opacity fill-rule stroke stroke-width stroke-opacity stroke-linecap "
    "stroke-linejoin stroke-miterlimit stroke-dasharray stroke-dashoffset opacity "
    "font-family font-size font-style font-weight font-variant font-stretch text-anchor "
    "dominant-baseline letter-spacing visibility".split()
)


def label(value: object) -> str:
    """Return text fit for a chart: control characters as spaces, at most LABEL_CHARS."""
    text = " ".join(_CONTROL.sub(" ", str(value)).split())
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "\u2026"


def render(
    title: str,
    data: object,
    size: tuple[float, float],
    draw: Callable[[Figure], None],
    *,
    style: dict | None = None,
) -> str:
    """Draw a figure with `draw` and return it as an SVG element to put into a page (and
    WeasyPrint); `style` adds rcParams to STYLE for one family of charts."""
    buffer = io.StringIO()
    salt = "ioleval-" + hashlib.sha256(repr((title, data)).encode()).hexdigest()[:16]
    with _LOCK, matplotlib.rc_context({**STYLE, **(style or {}), "svg.hashsalt": salt}):
        figure = Figure(figsize=size, layout="constrained")
        canvas = FigureCanvasSVG(figure)  # before drawing: place_labels measures text
        draw(figure)
        canvas.print_svg(buffer, metadata=_NO_METADATA)
    return _inline(buffer.getvalue(), title)


def count_axis(axis: Axis) -> None:
    """Tick an axis of counts at whole numbers only (never "2.5 contestants")."""
    axis.set_major_locator(MaxNLocator(integer=True))


# Where a point's label may go, in order of preference: (dx, dy) in points from the point,
# then the alignment that puts the text on that side. Past the first ring, a thin leader
# line ties the label to its point; past the last, the label is left out.
_SIDES = ((1, 1, "left", "bottom"), (1, -1, "left", "top"), (-1, 1, "right", "bottom"))
_SIDES += ((-1, -1, "right", "top"), (0, 1, "center", "bottom"), (0, -1, "center", "top"))
_SIDES += ((1, 0, "left", "center"), (-1, 0, "right", "center"))
_RINGS = (4.0, 10.0, 16.0)


def place_labels(
    ax,
    points: list[tuple[float, float, str]],
    *,
    fontsize: float = 7,
    marker_radius: float = 3.5,
    others: list[tuple[float, float]] = (),
) -> list[str]:
    """Label points (x, y, name) in data coordinates so that no two labels overlap and no
    label covers a point or leaves the axes; return the names left out for want of room.

    Each label takes the first free place around its point, nearest first (greedy, in the
    order given, so put the names that matter most first; deterministic); points at the
    same place share one label. `others` are unlabelled points that labels avoid too. The
    figure's layout is fixed first (`draw_without_rendering`), so the places measured are
    those drawn; the labels stay out of the layout, which therefore does not move.
    """
    figure = ax.get_figure()
    figure.draw_without_rendering()
    frame = ax.get_window_extent()
    shared: dict[tuple[float, float], list[str]] = {}
    for x, y, name in points:
        shared.setdefault((x, y), []).append(name)
    radius = marker_radius * figure.dpi / 72.0
    taken = []
    for x, y in [*shared, *others]:
        px, py = ax.transData.transform((x, y))
        taken.append(Bbox.from_extents(px - radius, py - radius, px + radius, py + radius))
    style = {"fontsize": fontsize, "color": "#222222", "parse_math": False}
    left_out = []
    for (x, y), names in shared.items():
        text = ", ".join(names)
        place = _free_place(ax, text, (x, y), style, taken, frame)
        if place is None:
            left_out.extend(names)
            continue
        ring, offset, ha, va = place
        label_ = ax.annotate(
            text,
            (x, y),
            xytext=offset,
            textcoords="offset points",
            ha=ha,
            va=va,
            arrowprops={"arrowstyle": "-", "color": GREY, "linewidth": 0.6} if ring else None,
            **style,
        )
        label_.set_in_layout(False)
        taken.append(label_.get_window_extent())
    return left_out


def _free_place(ax, text: str, xy: tuple[float, float], style: dict, taken: list, frame: Bbox):
    """Return the first (ring, offset, ha, va) where the text overlaps nothing taken and
    stays in the frame, or None."""
    for ring, distance in enumerate(_RINGS):
        for dx, dy, ha, va in _SIDES:
            offset = (dx * distance, dy * distance)
            probe = ax.annotate(
                text, xy, xytext=offset, textcoords="offset points", ha=ha, va=va, **style
            )
            box = probe.get_window_extent()
            probe.remove()
            inside = _overlap(box, frame) >= box.width * box.height - 1e-6
            if inside and not any(_overlap(box, other) for other in taken):
                return ring, offset, ha, va
    return None


def left_out_note(left_out: list[str]) -> str:
    """Say how many names a chart left out where they would have overlapped."""
    n = len(left_out)
    return f"{n} name{'s' if n != 1 else ''} left out (no room): see the table" if n else ""


def _overlap(a: Bbox, b: Bbox) -> float:
    width = min(a.x1, b.x1) - max(a.x0, b.x0)
    height = min(a.y1, b.y1) - max(a.y0, b.y0)
    return width * height if width > 0 and height > 0 else 0.0


def no_data_svg(title: str, message: str = "No data") -> str:
    """Return a small SVG that says there is nothing to draw, with the chart's title."""
    name = html.escape(label(title), quote=True)
    text = html.escape(label(message), quote=True)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 360 48" width="100%" '
        f'class="{CSS_CLASS}" role="img" aria-label="{name}"><title>{name}</title>'
        '<rect x="0.5" y="0.5" width="359" height="47" fill="none" stroke="#999999"/>'
        '<text x="180" y="29" text-anchor="middle" font-family="\'DejaVu Sans\', sans-serif" '
        f'font-size="13" fill="#555555">{text}</text></svg>\n'
    )


def _inline(svg: str, title: str) -> str:
    """Make matplotlib's SVG document an element to put into HTML."""
    svg = svg[svg.index("<svg") :]
    sheet = _SHEET.search(svg)
    rules = _attributes(sheet[1]) if sheet else ""
    if sheet:
        svg = svg[: sheet.start()] + svg[sheet.end() :]
    head_end = svg.index(">")
    head = _ROOT_SIZE.sub("", svg[:head_end])
    name = html.escape(label(title), quote=True)
    head += f' width="100%" class="{CSS_CLASS}"{rules} role="img" aria-label="{name}">'
    svg = head + f"<title>{name}</title" + svg[head_end:]
    svg = _STYLE_ATTRIBUTE.sub(lambda m: _attributes(m[1], keep_style=True), svg)
    svg = _GROUP_ID.sub("<g", svg)
    return _INDENT.sub(">\n<", svg).strip() + "\n"


def _attributes(declarations: str, *, keep_style: bool = False) -> str:
    """Turn `fill: #fff; stroke: none` into presentation attributes."""
    attributes, rest = [], []
    for declaration in declarations.split(";"):
        name, _, value = (part.strip() for part in declaration.partition(":"))
        if name in _PRESENTATION and value:
            value = value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
            attributes.append(f' {name}="{value}"')
        elif name:
            rest.append(f"{name}: {value}")
    if rest and keep_style:
        attributes.append(' style="{}"'.format("; ".join(rest)))
    return "".join(attributes)

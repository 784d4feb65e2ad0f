"""Where each text of a chart's SVG falls: the boxes of its `<text>` elements, measured with
matplotlib's own DejaVu Sans metrics, so tests can check that no label leaves the picture,
that labels do not overlap and that count axes are ticked at whole numbers.

The charts keep text as `<text>` (ioleval.charts: `svg.fonttype` "none"): an element has a
font size, an anchor (start unless `text-anchor` says otherwise) and either `x`, `y` with
`rotate(-a x y)` or `translate(x y) rotate(a)`.
"""

from __future__ import annotations

import html
import math
import re
from dataclasses import dataclass

from matplotlib.font_manager import FontProperties
from matplotlib.textpath import TextToPath

_TEXT = re.compile(r"<text([^>]*)>([^<]*)</text>")
_ATTRIBUTE = re.compile(r'([\w-]+)="([^"]*)"')
_VIEWBOX = re.compile(r'viewBox="([\d.\s-]+)"')
_TRANSLATE = re.compile(r"translate\(([-\d.e]+)[ ,]+([-\d.e]+)\)")
_ROTATE = re.compile(r"rotate\(([-\d.e]+)")
_MEASURE = TextToPath()
_FONT = FontProperties(family="DejaVu Sans")


@dataclass(frozen=True)
class Text:
    """One `<text>` of the SVG and its box (x0, y0, x1, y1) in the SVG's units, y down."""

    text: str
    size: float
    anchor: str
    angle: float  # degrees, as SVG rotates (clockwise on the screen)
    x: float
    y: float
    box: tuple[float, float, float, float]


def viewbox(svg: str) -> tuple[float, float, float, float]:
    return tuple(float(v) for v in _VIEWBOX.search(svg)[1].split())


def texts(svg: str) -> list[Text]:
    """Return every `<text>` of the SVG with its box."""
    found = []
    for attributes, content in _TEXT.findall(svg):
        attrs = dict(_ATTRIBUTE.findall(attributes))
        text = html.unescape(content)
        size = float(attrs["font-size"].removesuffix("px"))
        anchor = attrs.get("text-anchor", "start")
        transform = attrs.get("transform", "")
        if "x" in attrs:
            x, y = float(attrs["x"]), float(attrs["y"])
        else:
            moved = _TRANSLATE.search(transform)
            x, y = float(moved[1]), float(moved[2])
        rotated = _ROTATE.search(transform)
        angle = float(rotated[1]) if rotated else 0.0
        found.append(Text(text, size, anchor, angle, x, y, _box(text, size, anchor, angle, x, y)))
    return found


def _box(text: str, size: float, anchor: str, angle: float, x: float, y: float) -> tuple:
    prop = _FONT.copy()
    prop.set_size(size)
    width, height, descent = _MEASURE.get_text_width_height_descent(text, prop, ismath=False)
    left = {"start": 0.0, "middle": -width / 2, "end": -width}[anchor]
    corners = [(left, -(height - descent)), (left + width, -(height - descent))]
    corners += [(left, descent), (left + width, descent)]
    a = math.radians(angle)
    points = [
        (x + cx * math.cos(a) - cy * math.sin(a), y + cx * math.sin(a) + cy * math.cos(a))
        for cx, cy in corners
    ]
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return (min(xs), min(ys), max(xs), max(ys))


def outside(svg: str, *, tolerance: float = 0.5) -> list[Text]:
    """Return the texts whose box leaves the SVG's viewBox (a label cut off)."""
    x0, y0, width, height = viewbox(svg)
    return [
        t
        for t in texts(svg)
        if t.text.strip()
        and (
            t.box[0] < x0 - tolerance
            or t.box[1] < y0 - tolerance
            or t.box[2] > x0 + width + tolerance
            or t.box[3] > y0 + height + tolerance
        )
    ]


def overlapping(svg: str, *, tolerance: float = 0.3) -> list[tuple[str, str]]:
    """Return the pairs of horizontal texts whose boxes overlap (by more than `tolerance` in
    both directions). Rotated texts are left out: their upright boxes overlap by design."""
    flat = [t for t in texts(svg) if t.angle % 360 == 0 and t.text.strip()]
    pairs = []
    for i, a in enumerate(flat):
        for b in flat[i + 1 :]:
            width = min(a.box[2], b.box[2]) - max(a.box[0], b.box[0])
            height = min(a.box[3], b.box[3]) - max(a.box[1], b.box[1])
            if width > tolerance and height > tolerance:
                pairs.append((a.text, b.text))
    return pairs


def y_tick_labels(svg: str) -> list[str]:
    """Return the texts anchored at their end and upright: a left axis's tick labels."""
    return [t.text for t in texts(svg) if t.anchor == "end" and t.angle % 360 == 0]


_USE = re.compile(r'<use [^>]*\bx="([-\d.e]+)"[^>]*\by="([-\d.e]+)"')


def markers(svg: str) -> list[tuple[float, float]]:
    """Return the centres of the scatter markers (`<use>` of a marker path)."""
    return [(float(x), float(y)) for x, y in _USE.findall(svg)]


def covering(svg: str) -> list[tuple[str, tuple[float, float]]]:
    """Return (text, marker) pairs where a horizontal text's box covers a marker's centre."""
    flat = [t for t in texts(svg) if t.angle % 360 == 0 and t.text.strip()]
    return [
        (t.text, (x, y))
        for t in flat
        for x, y in markers(svg)
        if t.box[0] < x < t.box[2] and t.box[1] < y < t.box[3]
    ]

"""The analytics' charts as SVG: `render` draws through `ioleval.charts` and keeps each
drawing per process; each analysis draws its own in its room (`runs/charts.py`, ...); no
Django."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable

from matplotlib.figure import Figure

from ioleval import charts

DRAWN_KEPT = 32  # charts each process keeps drawn (a heat map of 60 systems: about 0.2 MB)

_drawn: OrderedDict[str, str] = OrderedDict()
_drawn_lock = threading.Lock()


def render(
    title: str,
    data: object,
    size: tuple[float, float],
    draw: Callable[[Figure], None],
    *,
    style: dict | None = None,
) -> str:
    """Return `ioleval.charts.render`'s SVG, drawn once per process for the same chart
    function, title, data and size (the last DRAWN_KEPT kept).

    A chart draws nothing but its `data` (render's output is deterministic in title and
    data), and new figures behind a page give new data; matplotlib takes 0.3-1.5 s per
    chart at the 2026 challenge's size, the rest of a chart request a few dozen ms.
    """
    key = hashlib.sha256(
        repr((draw.__module__, draw.__qualname__, title, data, size, style)).encode()
    ).hexdigest()
    with _drawn_lock:
        svg = _drawn.get(key)
        if svg is not None:
            _drawn.move_to_end(key)
            return svg
    svg = charts.render(title, data, size, draw, style=style)
    with _drawn_lock:
        _drawn[key] = svg
        while len(_drawn) > DRAWN_KEPT:
            _drawn.popitem(last=False)
    return svg

"""Template helpers of the leaderboard: heatmap colours, lookups, sort links."""

from __future__ import annotations

from django import template
from django.utils.html import format_html

register = template.Library()


HEAT_WHITE_INK_UP_TO = 51  # lightness (%) of hsl(215, 70%, L) below which white reads better


@register.filter
def heat(value: float) -> str:
    """Return a CSS background from white (0) to deep blue (1) for a 0-1 figure."""
    value = max(0.0, min(1.0, float(value or 0)))
    lightness = 100 - round(value * 62)
    # Black or white, whichever contrasts more with the cell: at least 4.58:1 (WCAG AA
    # asks 4.5:1); the site's ink #1d2430 came to 4.0:1 on the mid blues.
    ink = "#fff" if lightness <= HEAT_WHITE_INK_UP_TO else "#000"
    return f"background: hsl(215, 70%, {lightness}%); color: {ink}"


@register.filter
def get_item(mapping, key):
    """Look a key up in a dict."""
    return mapping.get(key) if mapping else None


@register.filter
def pct(value) -> str:
    """Format a 0-1 figure as a percentage with two decimals."""
    return f"{float(value or 0) * 100:.2f}"


@register.simple_tag(takes_context=True)
def sort_link(context, column: str, label: str):
    """Return a header link that sorts the board by a column, toggling the direction."""
    query = context["request"].GET.copy()
    current = query.get("sort", "")
    query["sort"] = column if current == f"-{column}" else f"-{column}"
    arrow = " ▼" if current == f"-{column}" else (" ▲" if current == column else "")
    return format_html('<a href="?{}">{}{}</a>', query.urlencode(), label, arrow)

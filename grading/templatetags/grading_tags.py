"""Template helpers of the jury pages."""

from __future__ import annotations

from django import template

from ..text import points_text

register = template.Library()


@register.filter
def points(value) -> str:
    """Format points as written by hand: 3, 0.5 (never 3.00)."""
    return points_text(value)

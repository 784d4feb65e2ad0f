"""Template helpers of the jury pages."""

from __future__ import annotations

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from ..selectors import HELD_ELSEWHERE_NOTE
from ..text import answer_text, points_text, truncation_note

register = template.Library()


@register.filter
def points(value) -> str:
    """Format points as written by hand: 3, 0.5 (never 3.00)."""
    return points_text(value)


@register.simple_tag
def held_elsewhere_note() -> str:
    """Say, for a juror, that the paper's answers are held elsewhere (never by whom)."""
    return HELD_ELSEWHERE_NOTE


@register.filter
def shown_answer(value) -> SafeString:
    """Show an answer item escaped, cut to ANSWER_LIMIT with a note when longer."""
    shown = answer_text("" if value is None else str(value))
    note = truncation_note("answer", shown.length) if shown.truncated else ""
    return mark_safe(escape(shown.text) + note)  # noqa: S308 -- escaped text and a fixed note


@register.filter
def of(mapping, key):
    """Return mapping[key], or None: `page.suggestions|of:criterion.pk`."""
    return mapping.get(key) if mapping else None

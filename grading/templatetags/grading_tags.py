"""Template helpers of the jury pages."""

from __future__ import annotations

import html

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


@register.simple_tag(takes_context=True)
def sheet_cell(context, cell) -> SafeString:
    """One cell of the comparison sheet: seen, its marks and state; heard, the cell in words
    (no aria-label, whose name would leave out the visible text). At IOL scale the sheet has
    3,000 cells, so this is one tag with the standard library's escaping, not a dozen template
    nodes (or format_html's lazy-aware escaping) a cell: about half of the sheet's time."""
    e = html.escape
    decide = ""
    if context.get("is_chair") and cell.decidable:
        decide = (
            f' hx-get="{e(cell.decide_url + context.get("query", ""))}" hx-target="#decide-panel"'
        )
    notes = ""
    if cell.comments:
        notes = f'<br><span class="pill">{cell.comments:d} note{"" if cell.comments == 1 else "s"}</span>'
    return mark_safe(  # noqa: S308 -- every value is escaped above or an int
        f'<td id="{e(cell.dom_id)}" class="cell {e(cell.state.status)}">'
        f'<a href="{e(cell.url)}"{decide}>'
        f'<span aria-hidden="true">{e(cell.text)}<br>{e(cell.state_text)}</span>'
        f'<span class="visually-hidden">{e(cell.label)}</span>{notes}</a></td>'
    )

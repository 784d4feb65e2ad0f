"""Template helpers of the context lab's pages."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

_ON = '<td class="c on">1</td>'
_OFF = '<td class="c"></td>'


@register.filter
def coverage_cells(cells: tuple[str, ...]) -> SafeString:
    """Render a heatmap row's cells: one `<td>` per example, "1" where the token occurs.

    Built here rather than by a template loop: a 40-example puzzle has thousands of cells,
    which a `{% for %}` renders ten times slower. The markup is fixed; no text goes in.
    """
    return mark_safe("".join(_ON if cell else _OFF for cell in cells))

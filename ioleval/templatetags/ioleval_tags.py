"""Template filters every app's templates share."""

from __future__ import annotations

from django import template

from ioleval.wording import p_cell

register = template.Library()


@register.filter
def pvalue(value: float | None) -> str:
    """Write a p-value in a table cell: "0.0123", "< 0.001", "—" (ioleval.wording)."""
    return p_cell(value)

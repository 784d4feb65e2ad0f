"""The explanation screen, for organizers choosing whom to send to the jury.

It names systems, so chairs and jurors get 403.
"""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from ioleval.http import HtmxHttpRequest
from ioleval.roles import organizer_required
from ioleval.tables import table_response
from puzzles.selectors import competition_get

from ..review.screen import (
    KINDS,
    explanation_rows_sorted,
    explanation_screen_rows,
    explanation_screen_table,
    sort_key_parse,
)


@require_GET
@organizer_required
def explanations(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    competition = competition_get(slug)
    sort = sort_key_parse(request.GET.get("sort"))
    rows = explanation_rows_sorted(explanation_screen_rows(competition), sort)
    context = {
        "competition": competition,
        "rows": rows,
        "sort": sort,
        "columns": _columns(sort),
        "kinds": KINDS,
    }
    return render(request, "grading/review/explanations.html", context)


@require_GET
@organizer_required
def explanations_export(request: HtmxHttpRequest, slug: str, fmt: str) -> HttpResponse:
    competition = competition_get(slug)
    sort = sort_key_parse(request.GET.get("sort"))
    rows = explanation_rows_sorted(explanation_screen_rows(competition), sort)
    header, body = explanation_screen_table(rows)
    name = f"{competition.slug}-explanations"
    return table_response(header, body, fmt, name=name, title="explanations")


def _columns(sort: str) -> list[dict]:
    """Return the header cells: label, the ?sort= its link asks for, and how it sorts now."""
    columns = []
    for key, label in (
        ("system", "System"),
        ("tier", "Tier"),
        *((kind, kind.capitalize()) for kind in KINDS),
        ("flagged", "Any"),
    ):
        current = sort.removeprefix("-") == key
        descending = sort.startswith("-")
        # Shares first sort worst first; names first sort A to Z.
        first = key if key in ("system", "tier") else f"-{key}"
        link = (key if descending else f"-{key}") if current else first
        state = ("descending" if descending else "ascending") if current else "none"
        columns.append(
            {
                "key": key,
                "label": label,
                "link": link,
                "state": state,
                "numeric": key not in ("system", "tier"),
            }
        )
    return columns

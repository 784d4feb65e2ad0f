"""The format failures page, its heat map, its export and the drill-down to a cell."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from ioleval.http import HtmxHttpRequest
from ioleval.roles import organizer_required

from ...selectors import competition_get
from ..formats import format_cell_page, formats_page, formats_page_chart
from .common import svg_response, table_response


@require_GET
@organizer_required
def formats(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    page = formats_page(competition_get(slug))
    return render(request, "puzzles/analytics/formats.html", {"page": page})


@require_GET
@organizer_required
def formats_chart(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    return svg_response(formats_page_chart(formats_page(competition_get(slug))))


@require_GET
@organizer_required
def formats_export(request: HtmxHttpRequest, slug: str, fmt: str) -> HttpResponse:
    header, body = formats_page(competition_get(slug)).table()
    return table_response(
        header, body, fmt, name=f"{slug}-format-failures", title="format failures"
    )


@require_GET
@organizer_required
def formats_cell(request: HtmxHttpRequest, slug: str, system_id: int, family: str) -> HttpResponse:
    page = format_cell_page(competition_get(slug), system_id, family)
    return render(request, "puzzles/analytics/formats_cell.html", {"page": page})

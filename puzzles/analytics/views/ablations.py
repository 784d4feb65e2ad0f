"""The ablations page, its chart and its exports; GET `reference` picks the reference
condition (the default when absent or not a condition of the competition's runs)."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from ioleval.http import HtmxHttpRequest
from ioleval.roles import organizer_required

from ...selectors import competition_get
from ..ablations import EXPORT_HEADER, AblationsPage, ablations_page, ablations_page_chart
from .common import svg_response, table_response


def _page(request: HtmxHttpRequest, slug: str) -> AblationsPage:
    return ablations_page(competition_get(slug), request.GET.get("reference"))


@require_GET
@organizer_required
def ablations(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """Per model the change under each condition against the reference, with intervals."""
    page = _page(request, slug)
    asked = request.GET.get("reference")
    context = {
        "competition": page.competition,
        "page": page,
        "unknown_reference": asked if asked and asked != page.reference else None,
    }
    return render(request, "puzzles/analytics/ablations.html", context)


@require_GET
@organizer_required
def ablations_chart(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """The forest plot of the overall changes as an SVG image."""
    return svg_response(ablations_page_chart(_page(request, slug)))


@require_GET
@organizer_required
def ablations_export(request: HtmxHttpRequest, slug: str, fmt: str) -> HttpResponse:
    """Every change (overall and per problem) as CSV or XLSX."""
    page = _page(request, slug)
    return table_response(
        EXPORT_HEADER, page.export_rows(), fmt, name=f"{slug}-ablations", title="ablations"
    )

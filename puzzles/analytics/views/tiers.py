"""The tiers page, its strip chart and the export of its table."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from ioleval.http import HtmxHttpRequest
from ioleval.roles import organizer_required

from ...selectors import competition_get
from ..tiers import EXPORT_HEADER, tier_strips, tiers_page
from .common import svg_response, table_response


@require_GET
@organizer_required
def tiers(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """The table per tier, the strip chart and the per-task heat map grouped by tier."""
    page = tiers_page(competition_get(slug))
    return render(request, "puzzles/analytics/tiers.html", {"page": page})


@require_GET
@organizer_required
def tiers_chart(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """The scores by tier as an SVG strip chart."""
    return svg_response(tier_strips(tiers_page(competition_get(slug)).strips()))


@require_GET
@organizer_required
def tiers_export(request: HtmxHttpRequest, slug: str, fmt: str) -> HttpResponse:
    """The table per tier (n, median, mean, min, max; 0-1 scale) as CSV or XLSX."""
    page = tiers_page(competition_get(slug))
    return table_response(
        EXPORT_HEADER, page.export_rows(), fmt, name=f"{slug}-tiers", title="tiers"
    )

"""The tiers page, its strip chart and the export of its table (organizers only); no ORM."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from ioleval.http import XLSX, attachment
from ioleval.roles import ORGANIZER, role_required

from ..selectors import competition_get
from .exports import table_file
from .tier_charts import tier_strips
from .tier_selectors import EXPORT_HEADER, tiers_page

organizer_required = role_required(ORGANIZER)
EXPORT_FORMATS = ("csv", "xlsx")


@require_GET
@organizer_required
def tiers(request: HttpRequest, slug: str) -> HttpResponse:
    """The table per tier, the strip chart and the per-task heat map grouped by tier."""
    page = tiers_page(competition_get(slug))
    return render(request, "puzzles/analytics/tiers.html", {"page": page})


@require_GET
@organizer_required
def tiers_chart(request: HttpRequest, slug: str) -> HttpResponse:
    """The scores by tier as an SVG strip chart."""
    page = tiers_page(competition_get(slug))
    response = HttpResponse(tier_strips(page.strips()), content_type="image/svg+xml")
    response["Cache-Control"] = "private, no-cache"
    return response


@require_GET
@organizer_required
def tiers_export(request: HttpRequest, slug: str, fmt: str) -> HttpResponse:
    """The table per tier (n, median, mean, min, max; 0-1 scale) as CSV or XLSX."""
    if fmt not in EXPORT_FORMATS:
        raise Http404(f"formats: {', '.join(EXPORT_FORMATS)}")
    page = tiers_page(competition_get(slug))
    content = table_file(EXPORT_HEADER, page.export_rows(), fmt, title="tiers")
    kind = XLSX if fmt == "xlsx" else "text/csv; charset=utf-8"
    return attachment(content, f"{slug}-tiers.{fmt}", kind)

"""The analytics pages (organizers only): a selector's page, rendered; no ORM here."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from ioleval.http import XLSX, attachment
from ioleval.roles import ORGANIZER, role_required

from ..selectors import competition_get
from .charts import format_heatmap
from .exports import table_file
from .formats import format_cell_page, formats_page

organizer_required = role_required(ORGANIZER)
SVG = "image/svg+xml"


@require_GET
@organizer_required
def formats(request: HttpRequest, slug: str) -> HttpResponse:
    page = formats_page(competition_get(slug))
    return render(request, "puzzles/analytics/formats.html", {"page": page})


@require_GET
@organizer_required
def formats_chart(request: HttpRequest, slug: str) -> HttpResponse:
    page = formats_page(competition_get(slug))
    header, body = page.table()
    columns = header[2:-3]
    svg = format_heatmap([r[0] for r in body], columns, [r[2:-3] for r in body])
    return HttpResponse(svg, content_type=SVG)


@require_GET
@organizer_required
def formats_export(request: HttpRequest, slug: str, fmt: str) -> HttpResponse:
    if fmt not in ("csv", "xlsx"):
        raise Http404("export formats: csv, xlsx")
    competition = competition_get(slug)
    header, body = formats_page(competition).table()
    content = table_file(header, body, fmt, title="format failures")
    kind = XLSX if fmt == "xlsx" else "text/csv"
    return attachment(content, f"{competition.slug}-format-failures.{fmt}", kind)


@require_GET
@organizer_required
def formats_cell(request: HttpRequest, slug: str, system_id: int, family: str) -> HttpResponse:
    page = format_cell_page(competition_get(slug), system_id, family)
    return render(request, "puzzles/analytics/formats_cell.html", {"page": page})

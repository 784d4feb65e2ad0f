"""The knowledge probes page, its chart, its exports and its upload (organizers only)."""

from __future__ import annotations

import io

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods

from ioleval.http import XLSX, attachment, form_data, post_redirect
from ioleval.roles import ORGANIZER, role_required
from ioleval.spreadsheet import csv_text, xlsx_bytes

from ..selectors import competition_get
from .probe_charts import probes_scatter
from .probe_forms import ProbesImportForm
from .probe_imports import probes_import
from .probe_selectors import EXPORT_HEADER, probes_page
from .stats.probes import sentence

organizer_required = role_required(ORGANIZER)
EXPORT_FORMATS = ("csv", "xlsx")


@require_http_methods(["GET", "POST"])
@organizer_required
def probes(request: HttpRequest, slug: str) -> HttpResponse:
    """The accuracy table, the correlations and the chart; a POST imports a CSV of probes."""
    competition = competition_get(slug)
    if request.method == "POST":
        form = ProbesImportForm(request.POST, request.FILES)

        def act() -> list[str]:
            upload = form_data(form)["file"]
            stream = io.TextIOWrapper(upload.file, encoding="utf-8-sig", newline="")
            result = probes_import(competition=competition, stream=stream, file=upload.name)
            return result.lines()

        return post_redirect(request, act, reverse("puzzles:analytics_probes", args=[slug]))
    page = probes_page(competition)
    context = {
        "competition": competition,
        "page": page,
        "sentences": [sentence(c) for c in page.correlations],
        "form": ProbesImportForm(),
    }
    return render(request, "puzzles/analytics/probes.html", context)


@require_GET
@organizer_required
def probes_chart(request: HttpRequest, slug: str) -> HttpResponse:
    """Probe accuracy against the automatic score, as an SVG image."""
    page = probes_page(competition_get(slug))
    response = HttpResponse(probes_scatter(page.points), content_type="image/svg+xml")
    response["Cache-Control"] = "private, no-cache"
    return response


@require_GET
@organizer_required
def probes_export(request: HttpRequest, slug: str, fmt: str) -> HttpResponse:
    """The accuracy table, one row per model and probe type, as CSV or XLSX."""
    if fmt not in EXPORT_FORMATS:
        raise Http404(f"formats: {', '.join(EXPORT_FORMATS)}")
    page = probes_page(competition_get(slug))
    name = f"{slug}-probes.{fmt}"
    rows = page.export_rows()
    if fmt == "csv":
        return attachment(csv_text(EXPORT_HEADER, rows), name, "text/csv; charset=utf-8")
    return attachment(
        xlsx_bytes(EXPORT_HEADER, rows, title="probes", freeze_panes="A2"), name, XLSX
    )

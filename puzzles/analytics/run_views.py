"""The runs page, its chart, its export and its upload (organizers only)."""

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
from .run_charts import runs_per_day_chart
from .run_forms import RunsImportForm
from .run_imports import runs_import
from .run_selectors import EXPORT_HEADER, runs_page
from .stats.runs import agreement_sentence, correlation_sentence

organizer_required = role_required(ORGANIZER)
EXPORT_FORMATS = ("csv", "xlsx")


@require_http_methods(["GET", "POST"])
@organizer_required
def runs(request: HttpRequest, slug: str) -> HttpResponse:
    """Submission statistics and the selection check; a POST imports a CSV of runs."""
    competition = competition_get(slug)
    if request.method == "POST":
        form = RunsImportForm(request.POST, request.FILES)

        def act() -> list[str]:
            upload = form_data(form)["file"]
            stream = io.TextIOWrapper(upload.file, encoding="utf-8-sig", newline="")
            return runs_import(competition=competition, stream=stream, file=upload.name).lines()

        return post_redirect(request, act, reverse("puzzles:analytics_runs", args=[slug]))
    page = runs_page(competition)
    context = {
        "competition": competition,
        "page": page,
        "agreement": agreement_sentence(page.agreement),
        "correlation": correlation_sentence(page.correlation),
        "form": RunsImportForm(),
    }
    return render(request, "puzzles/analytics/runs.html", context)


@require_GET
@organizer_required
def runs_chart(request: HttpRequest, slug: str) -> HttpResponse:
    """Submissions per day, scored and failed, as an SVG image."""
    page = runs_page(competition_get(slug))
    svg = runs_per_day_chart([(d.day, d.scored, d.failed) for d in page.days])
    response = HttpResponse(svg, content_type="image/svg+xml")
    response["Cache-Control"] = "private, no-cache"
    return response


@require_GET
@organizer_required
def runs_export(request: HttpRequest, slug: str, fmt: str) -> HttpResponse:
    """The selection check, one row per team, as CSV or XLSX."""
    if fmt not in EXPORT_FORMATS:
        raise Http404(f"formats: {', '.join(EXPORT_FORMATS)}")
    page = runs_page(competition_get(slug))
    name = f"{slug}-selection.{fmt}"
    rows = page.export_rows()
    if fmt == "csv":
        return attachment(csv_text(EXPORT_HEADER, rows), name, "text/csv; charset=utf-8")
    return attachment(
        xlsx_bytes(EXPORT_HEADER, rows, title="selection", freeze_panes="A2"), name, XLSX
    )

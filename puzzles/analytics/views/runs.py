"""The runs page, its chart, its export and its upload."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods

from ioleval.http import HtmxHttpRequest
from ioleval.roles import organizer_required

from ...selectors import competition_get
from ..runs import (
    EXPORT_HEADER,
    RunOutputsImportForm,
    RunsImportForm,
    run_outputs_import,
    runs_import,
    runs_page,
    runs_page_chart,
)
from ..stats.runs import agreement_sentence, correlation_sentence
from .common import csv_upload, svg_response, table_response

# The outputs form's submit button carries name=IMPORT_BUTTON, value=OUTPUTS.
IMPORT_BUTTON = "import"
OUTPUTS = "outputs"


@require_http_methods(["GET", "POST"])
@organizer_required
def runs(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """Submission statistics and the selection check; a POST imports a CSV of runs, or of
    runs' outputs when its button says so."""
    competition = competition_get(slug)
    if request.method == "POST":
        to = reverse("puzzles:analytics_runs", args=[slug])
        form_class, importer = (
            (RunOutputsImportForm, run_outputs_import)
            if request.POST.get(IMPORT_BUTTON) == OUTPUTS
            else (RunsImportForm, runs_import)
        )
        return csv_upload(request, form_class, importer, to=to, competition=competition)
    page = runs_page(competition)
    context = {
        "competition": competition,
        "page": page,
        "agreement": agreement_sentence(page.agreement),
        "correlation": correlation_sentence(page.correlation),
        "form": RunsImportForm(),
        "outputs_form": RunOutputsImportForm(),
        "import_button": IMPORT_BUTTON,
        "outputs": OUTPUTS,
    }
    return render(request, "puzzles/analytics/runs.html", context)


@require_GET
@organizer_required
def runs_chart(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """Submissions per day, scored and failed, as an SVG image."""
    return svg_response(runs_page_chart(runs_page(competition_get(slug))))


@require_GET
@organizer_required
def runs_export(request: HtmxHttpRequest, slug: str, fmt: str) -> HttpResponse:
    """The selection check, one row per team, as CSV or XLSX."""
    page = runs_page(competition_get(slug))
    return table_response(
        EXPORT_HEADER, page.export_rows(), fmt, name=f"{slug}-selection", title="selection"
    )

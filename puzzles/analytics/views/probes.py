"""The knowledge probes page, its chart, its exports and its upload."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods

from ioleval.http import HtmxHttpRequest
from ioleval.roles import organizer_required

from ...selectors import competition_get
from ..probes import EXPORT_HEADER, ProbesImportForm, probes_import, probes_page, probes_scatter
from ..stats.probes import sentence
from .common import csv_upload, svg_response, table_response


@require_http_methods(["GET", "POST"])
@organizer_required
def probes(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """The accuracy table, the correlations and the chart; a POST imports a CSV of probes."""
    competition = competition_get(slug)
    if request.method == "POST":
        to = reverse("puzzles:analytics_probes", args=[slug])
        return csv_upload(request, ProbesImportForm, probes_import, to=to, competition=competition)
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
def probes_chart(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """Probe accuracy against the automatic score, as an SVG image."""
    return svg_response(probes_scatter(probes_page(competition_get(slug)).points))


@require_GET
@organizer_required
def probes_export(request: HtmxHttpRequest, slug: str, fmt: str) -> HttpResponse:
    """The accuracy table, one row per model and probe type, as CSV or XLSX."""
    page = probes_page(competition_get(slug))
    return table_response(
        EXPORT_HEADER, page.export_rows(), fmt, name=f"{slug}-probes", title="probes"
    )

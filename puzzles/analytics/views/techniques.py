"""The techniques page, its chart, its export, its tag form and its upload of tags."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from ioleval.http import HtmxHttpRequest, post_rerender
from ioleval.roles import organizer_required

from ...selectors import competition_get
from ..techniques import (
    EXPORT_HEADER,
    REMOVE,
    TagForm,
    TagsImportForm,
    runs_tag,
    runs_untag,
    tags_import,
    teams_with_runs,
    techniques_page,
    techniques_page_chart,
)
from .common import csv_upload, svg_response, table_response


@require_http_methods(["GET", "POST"])
@organizer_required
def techniques(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """Adoption and within-team effect per technique; a POST imports a CSV of tags."""
    competition = competition_get(slug)
    if request.method == "POST":
        to = reverse("puzzles:analytics_techniques", args=[slug])
        return csv_upload(request, TagsImportForm, tags_import, to=to, competition=competition)
    return _techniques_page(request, competition)


def _techniques_page(request: HtmxHttpRequest, competition, tag_form: TagForm | None = None):
    """Render the techniques page; a refused tag form comes back bound, with its error."""
    page = techniques_page(competition)
    context = {
        "competition": competition,
        "page": page,
        "tag_form": tag_form or TagForm(teams=page.teams),
        "form": TagsImportForm(),
    }
    return render(request, "puzzles/analytics/techniques.html", context)


@require_POST
@organizer_required
def techniques_tag(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """Add a technique to, or remove it from, chosen runs of one team."""
    competition = competition_get(slug)

    # Typed text: refused, the page comes back with the form as filled and the error.
    def act(data: dict) -> list[str]:
        change = runs_untag if data["action"] == REMOVE else runs_tag
        return change(
            competition=competition,
            team=data["team"],
            runs=data["runs"],
            technique=data["technique"],
        ).lines()

    return post_rerender(
        request,
        TagForm(request.POST, teams=teams_with_runs(competition)),
        act,
        reverse("puzzles:analytics_techniques", args=[slug]),
        page=lambda form: _techniques_page(request, competition, form),
    )


@require_GET
@organizer_required
def techniques_chart(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """Each technique's within-team effect with its interval, as an SVG image."""
    return svg_response(techniques_page_chart(techniques_page(competition_get(slug))))


@require_GET
@organizer_required
def techniques_export(request: HtmxHttpRequest, slug: str, fmt: str) -> HttpResponse:
    """One row per technique, as CSV or XLSX."""
    page = techniques_page(competition_get(slug))
    return table_response(
        EXPORT_HEADER, page.export_rows(), fmt, name=f"{slug}-techniques", title="techniques"
    )

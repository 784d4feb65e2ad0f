"""The oracle page: choose members, preview, chart, save as a system, export."""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from ioleval.http import HtmxHttpRequest, form_data, post_redirect
from ioleval.roles import organizer_required

from ...selectors import competition_get
from ..oracle import OracleForm, oracle_create, oracle_page, oracle_table
from ..oracle import oracle_chart as draw_oracle
from .common import svg_response, table_response


@require_GET
@organizer_required
def oracle(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    competition = competition_get(slug)
    page = oracle_page(competition, members=request.GET.getlist("members"))
    context = {
        "page": page,
        "name": request.GET.get("name", "").strip() or "Oracle",
        # the chart's query: the members the preview took, nothing else
        "members_query": urlencode({"members": page.chosen}, doseq=True),
    }
    return render(request, "puzzles/analytics/oracle.html", context)


@require_GET
@organizer_required
def oracle_chart(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """The preview of `?members=` as an SVG image: per task the oracle's score and supplier,
    per member its share. Fewer than two known members answer an empty-state chart (200, as
    the other analytics charts do with nothing to draw), never a broken image."""
    page = oracle_page(competition_get(slug), members=request.GET.getlist("members"))
    return svg_response(draw_oracle(page.preview))


@require_POST
@organizer_required
def oracle_save(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    competition = competition_get(slug)
    systems = list(competition.systems.values_list("name", flat=True))
    form = OracleForm(request.POST, systems=systems)
    query = urlencode(
        {"members": request.POST.getlist("members"), "name": request.POST.get("name", "")},
        doseq=True,
    )

    def act() -> str:
        data = form_data(form)
        saved = oracle_create(competition=competition, members=data["members"], name=data["name"])
        return saved.lines()[-1]

    to = reverse("puzzles:analytics_oracle", args=[slug]) + f"?{query}"
    return post_redirect(request, act, to)


@require_GET
@organizer_required
def oracle_export(request: HtmxHttpRequest, slug: str, fmt: str) -> HttpResponse:
    competition = competition_get(slug)
    page = oracle_page(competition, members=request.GET.getlist("members"))
    if page.preview is None:
        raise Http404("choose two or more member systems")
    header, rows = oracle_table(page.preview)
    return table_response(header, rows, fmt, name=f"{competition.slug}-oracle", title="oracle")

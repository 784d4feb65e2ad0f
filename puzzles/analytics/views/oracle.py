"""The oracle page: choose members, preview, save as a system, export."""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from ioleval.http import form_data, post_redirect
from ioleval.roles import organizer_required

from ...selectors import competition_get
from ..oracle.forms import OracleForm
from ..oracle.selectors import oracle_page, oracle_table
from ..oracle.services import oracle_create
from .common import table_response


@require_GET
@organizer_required
def oracle(request: HttpRequest, slug: str) -> HttpResponse:
    competition = competition_get(slug)
    page = oracle_page(competition, members=request.GET.getlist("members"))
    name = request.GET.get("name", "").strip() or "Oracle"
    return render(request, "puzzles/analytics/oracle.html", {"page": page, "name": name})


@require_POST
@organizer_required
def oracle_save(request: HttpRequest, slug: str) -> HttpResponse:
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
def oracle_export(request: HttpRequest, slug: str, fmt: str) -> HttpResponse:
    competition = competition_get(slug)
    page = oracle_page(competition, members=request.GET.getlist("members"))
    if page.preview is None:
        raise Http404("choose two or more member systems")
    header, rows = oracle_table(page.preview)
    return table_response(header, rows, fmt, name=f"{competition.slug}-oracle", title="oracle")

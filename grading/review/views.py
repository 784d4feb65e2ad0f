"""The result review page and its JSON, for organizers and the chair (it names systems).

Whoever is served a review response that ties systems to papers (review_shows_pairs) is
recorded as not blind for the competition (grading.models.PairsSeen); the review opens to a
user only once their own papers of the competition are submitted."""

from __future__ import annotations

from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.http import require_GET

from ioleval.http import XLSX, HtmxHttpRequest, attachment
from ioleval.progress import poll_response
from ioleval.roles import CHAIR, ORGANIZER, has_role, role_required
from puzzles.models import Competition

from .. import access
from ..services.blindness import pairs_seen_record
from .cache import CACHE_SECONDS, review_cache, review_cached, review_charts_of, review_load
from .model import CHARTS, Review
from .refresh import STALLED_SECONDS, ReviewState, review_state
from .report import (
    EXPORT_FORMATS,
    TABLES,
    review_pdf,
    review_pdf_filename,
    review_table,
    review_table_csv,
    review_table_filename,
    review_table_xlsx,
)

review_roles = role_required(CHAIR, ORGANIZER)


def review_shows_pairs(review: Review | None, part: str) -> bool:
    """Tell whether a response of the review shows a system beside what ties it to a paper:
    the paper's code, or the system's jury points on one problem (which a chair matches to
    a paper's total on the problem's sheet). The one rule of every review response.

    `part` is "page", "json" or "pdf" (the whole review), "chart:NAME" or "table:NAME".
    """
    if review is None:
        return False
    by_system = review.observations.by_system if review.observations else ()
    codes = bool(review.divergent_papers) or any(
        cell.papers for row in by_system for cell in row.cells
    )
    points = any(p is not None for s in review.systems for p in s.jury_by_problem.values())
    # A total is one problem's points when the system has points on that problem alone.
    totals = any(
        s.jury_total is not None and sum(p is not None for p in s.jury_by_problem.values()) == 1
        for s in review.systems
    )
    shown = {
        "page": codes or points,  # the systems table has the points per problem
        "json": codes or points,  # by_problem
        "pdf": codes or points,
        "chart:divergence": bool(review.divergences),  # automatic minus jury, per problem
        "chart:scatter": totals,
        "chart:placement": totals,
        "table:systems": totals,
        "table:divergent-papers": bool(review.divergent_papers),
    }
    return shown.get(part, False)  # the difficulty and agreement charts and tables: none


def _shown(request: HtmxHttpRequest, competition: Competition, names: bool, source: str) -> None:
    """Record that the user has been shown papers beside their systems (`names`): they are
    not blind for the competition from now on (written at the first time alone)."""
    if names:
        pairs_seen_record(user=request.user, competition=competition, source=source)


@require_GET
@review_roles
def review(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    competition = access.review_competition(request.user, slug)
    if request.GET.get("format") == "json":
        return _json(request, competition)
    state = review_state(competition=competition)
    return render(request, "grading/review/review.html", _page(request, competition, state))


@require_GET
@review_roles
def review_progress(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """Polled while the page shows an earlier review: 286 and a reload once the new one is in."""
    competition = access.review_competition(request.user, slug)
    state = review_state(competition=competition)
    response = poll_response(
        request, "grading/review/review.html", _page(request, competition, state)
    )
    if request.htmx and state.fresh:
        response["HX-Refresh"] = "true"
    return response


def _page(request: HtmxHttpRequest, competition: Competition, state: ReviewState) -> dict:
    """The page's context: the state, and the body of the review shown (rendered once per
    review and role, then cached: the same for every organizer, and for every chair)."""
    shown = review_load(state.shown) if not state.fresh else None
    body, names = _body(request, competition, state.shown)
    # Recorded whenever the body is made, even for an htmx poll that sends only its
    # progress: the poll runs beneath a page that showed the same body (and recorded it).
    _shown(request, competition, names, "the result review page")
    return {
        "competition": competition,
        "fresh": state.fresh,
        "review_body": body,
        "progress": state.progress,
        "poll_id": "review-progress",
        "poll_url": reverse("grading:review_progress", args=[competition.slug]),
        "body": "grading/review/partials/_refresh.html",  # inside partials/_progress.html
        "page_url": reverse("grading:review", args=[competition.slug]),
        "shown_at": shown.built_at if shown else None,
        "stalled_minutes": STALLED_SECONDS // 60,
    }


def _body(request: HtmxHttpRequest, competition: Competition, key: str) -> tuple[str, bool]:
    """Return the body of the review under `key` and whether it names papers beside their
    systems (review_shows_pairs), both cached with the body."""
    if not key:
        return "", False
    organizer = has_role(request.user, ORGANIZER)
    body_key = f"{key}:page:{'organizer' if organizer else 'chair'}"
    cached = review_cache.get(body_key)
    if cached is None:
        review = review_load(key)
        if review is None:  # aged out since review_state looked
            return "", False
        context = {
            "competition": competition,
            "review": review,
            "charts": CHARTS,
            "tables": [(name, label) for name, (label, _) in TABLES.items()],
        }
        body = render_to_string("grading/review/partials/_body.html", context, request=request)
        cached = (body, review_shows_pairs(review, "page"))
        review_cache.set(body_key, cached, CACHE_SECONDS)
    return cached


@require_GET
@review_roles
def review_chart(request: HtmxHttpRequest, slug: str, name: str) -> HttpResponse:
    """One chart of the review the page shows, as an SVG image (drawn once per review)."""
    if name not in CHARTS:
        raise Http404("no such chart")
    competition = access.review_competition(request.user, slug)
    state = review_state(competition=competition)
    review = review_load(state.shown)
    if review is None:
        raise Http404("the review is still being computed")
    source = f"the result review's chart {name}"
    _shown(request, competition, review_shows_pairs(review, f"chart:{name}"), source)
    response = HttpResponse(
        getattr(review_charts_of(state.shown, review), name), content_type="image/svg+xml"
    )
    response["Cache-Control"] = "private, no-cache"
    return response


@require_GET
@review_roles
def review_json(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    return _json(request, access.review_competition(request.user, slug))


def _json(request: HtmxHttpRequest, competition: Competition) -> JsonResponse:
    page = review_cached(competition=competition, with_charts=False)
    _shown(request, competition, review_shows_pairs(page.review, "json"), "the result review JSON")
    return JsonResponse(page.review.as_json(), json_dumps_params={"ensure_ascii": False})


@require_GET
@review_roles
def review_report_pdf(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """The whole review as a PDF report, charts included. It is drawn in the request, so it
    leaves out the challenge analytics (seven more charts and pages, seconds of rendering):
    `manage.py report SLUG --format pdf` writes the report with them."""
    competition = access.review_competition(request.user, slug)
    page = review_cached(competition=competition)
    data = review_pdf(page.review, page.charts)
    _shown(request, competition, review_shows_pairs(page.review, "pdf"), "the result review PDF")
    return attachment(data, review_pdf_filename(page.review), "application/pdf")


@require_GET
@review_roles
def review_table_export(request: HtmxHttpRequest, slug: str, table: str, fmt: str) -> HttpResponse:
    """One of the review's tables (report.TABLES) as CSV or XLSX; any other name is a 404."""
    competition = access.review_competition(request.user, slug)
    if table not in TABLES or fmt not in EXPORT_FORMATS:
        raise Http404(f"tables: {', '.join(TABLES)}; formats: {', '.join(EXPORT_FORMATS)}")
    review = review_cached(competition=competition, with_charts=False).review
    header, rows = review_table(review, table)
    names = review_shows_pairs(review, f"table:{table}")
    _shown(request, competition, names, f"the result review's table {table}")
    name = review_table_filename(review, table, fmt)
    if fmt == "csv":
        return attachment(review_table_csv(review, table), name, "text/csv; charset=utf-8")
    return attachment(review_table_xlsx(review, table), name, XLSX)

"""The result review page and its JSON, for organizers and the chair (it names systems)."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from ioleval.http import XLSX, attachment
from ioleval.roles import CHAIR, ORGANIZER, role_required
from puzzles.models import Competition
from puzzles.selectors import competition_get

from ..models import Assignment
from .report import (
    EXPORT_FORMATS,
    TABLES,
    review_pdf,
    review_pdf_filename,
    review_table_csv,
    review_table_filename,
    review_table_xlsx,
)
from .services import CACHE_SECONDS, CHARTS, review_cached

review_roles = role_required(CHAIR, ORGANIZER)


def _competition(request: HttpRequest, slug: str) -> Competition:
    """Return the competition, unless the user still grades a paper of it (the review would
    tell them whose it is)."""
    competition = competition_get(slug)
    if Assignment.objects.filter(
        paper__problem__competition=competition, juror=request.user, submitted_at__isnull=True
    ).exists():
        raise PermissionDenied("submit your own papers of this competition first")
    return competition


@require_GET
@review_roles
def review(request: HttpRequest, slug: str) -> HttpResponse:
    competition = _competition(request, slug)
    if request.GET.get("format") == "json":
        return _json(competition)
    # The charts come in their own requests (review_chart): the page does not wait for them.
    page = review_cached(competition=competition, with_charts=False)
    context = {
        "competition": competition,
        "review": page.review,
        "charts": CHARTS,
        "tables": [(name, label) for name, (label, _) in TABLES.items()],
        "page_key": page.key,
        "cache_seconds": CACHE_SECONDS,
    }
    return render(request, "grading/review/review.html", context)


@require_GET
@review_roles
def review_chart(request: HttpRequest, slug: str, name: str) -> HttpResponse:
    """One chart of the review as an SVG image (drawn once per state of the marks, cached)."""
    if name not in CHARTS:
        raise Http404("no such chart")
    page = review_cached(competition=_competition(request, slug))
    response = HttpResponse(getattr(page.charts, name), content_type="image/svg+xml")
    response["Cache-Control"] = "private, no-cache"
    return response


@require_GET
@review_roles
def review_json(request: HttpRequest, slug: str) -> HttpResponse:
    return _json(_competition(request, slug))


def _json(competition: Competition) -> JsonResponse:
    page = review_cached(competition=competition, with_charts=False)
    return JsonResponse(page.review.as_json(), json_dumps_params={"ensure_ascii": False})


@require_GET
@review_roles
def review_report_pdf(request: HttpRequest, slug: str) -> HttpResponse:
    """The whole review as a PDF report, charts included."""
    page = review_cached(competition=_competition(request, slug))
    return attachment(
        review_pdf(page.review, page.charts), review_pdf_filename(page.review), "application/pdf"
    )


@require_GET
@review_roles
def review_table_export(request: HttpRequest, slug: str, table: str, fmt: str) -> HttpResponse:
    """One of the review's tables (report.TABLES) as CSV or XLSX; any other name is a 404."""
    competition = _competition(request, slug)
    if table not in TABLES or fmt not in EXPORT_FORMATS:
        raise Http404(f"tables: {', '.join(TABLES)}; formats: {', '.join(EXPORT_FORMATS)}")
    review = review_cached(competition=competition, with_charts=False).review
    name = review_table_filename(review, table, fmt)
    if fmt == "csv":
        return attachment(review_table_csv(review, table), name, "text/csv; charset=utf-8")
    return attachment(review_table_xlsx(review, table), name, XLSX)

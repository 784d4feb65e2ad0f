"""The result review page and its JSON, for organizers and the chair (it names systems)."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from ioleval.roles import CHAIR, ORGANIZER, role_required
from puzzles.models import Competition
from puzzles.selectors import competition_get

from ..models import Assignment
from .services import review_cached

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
    page = review_cached(competition=competition)
    context = {"competition": competition, "review": page.review, "charts": page.charts}
    return render(request, "grading/review/review.html", context)


@require_GET
@review_roles
def review_json(request: HttpRequest, slug: str) -> HttpResponse:
    return _json(_competition(request, slug))


def _json(competition: Competition) -> JsonResponse:
    page = review_cached(competition=competition, with_charts=False)
    return JsonResponse(page.review.as_json(), json_dumps_params={"ensure_ascii": False})

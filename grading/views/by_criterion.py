"""Grading by criterion: one criterion of a problem across the juror's papers, one at a time."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from ioleval.http import HtmxHttpRequest

from .. import access
from ..selectors import by_criterion_page
from .juror import juror_required


@require_GET
@juror_required
def by_criterion(request: HtmxHttpRequest, problem_id: int, criterion_id: int) -> HttpResponse:
    asked = access.criterion_papers(
        request.user, problem_id, criterion_id, code=request.GET.get("paper", "")[:16]
    )
    page = by_criterion_page(asked)
    return render(request, "grading/by_criterion.html", {"page": page})

"""The landing page: each role's way in."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET

from .roles import CHAIR, JUROR, ORGANIZER, has_role


@require_GET
@login_required
def home(request: HttpRequest) -> HttpResponse:
    if has_role(request.user, ORGANIZER):
        return redirect("puzzles:competitions")
    if has_role(request.user, JUROR, CHAIR):
        return redirect("grading:home")
    return render(request, "home.html")

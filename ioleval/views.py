"""The landing page (each role's way in) and the organizers' page of locked logins."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from .forms import UnlockForm
from .http import HtmxHttpRequest
from .login_throttle import locked_logins_page, login_unlock
from .roles import CHAIR, JUROR, ORGANIZER, has_role, role_required


@require_GET
@login_required
def home(request: HtmxHttpRequest) -> HttpResponse:
    if has_role(request.user, ORGANIZER):
        return redirect("puzzles:competitions")
    if has_role(request.user, JUROR, CHAIR):
        return redirect("grading:home")
    return render(request, "home.html")


@require_http_methods(["GET", "POST"])
@role_required(ORGANIZER)
def locked_logins(request: HtmxHttpRequest) -> HttpResponse:
    """List the accounts and addresses locked for failed logins; unlock one on POST."""
    if request.method == "POST":
        form = UnlockForm(request.POST)
        if form.is_valid():
            login_unlock(**form.cleaned_data)
            messages.success(
                request, f"Unlocked {form.cleaned_data['kind']} {form.cleaned_data['key']}."
            )
        else:
            messages.error(request, "Nothing to unlock: the form was incomplete.")
        return redirect("locked_logins")
    return render(request, "registration/locked_logins.html", {"page": locked_logins_page()})

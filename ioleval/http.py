"""Response helpers shared by the apps' views."""

from __future__ import annotations

from collections.abc import Callable

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django_htmx.middleware import HtmxDetails

from .errors import AppError

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

Outcome = str | list[str] | None


class HtmxHttpRequest(HttpRequest):
    """The request every view takes: django-htmx's middleware gives it `htmx`."""

    htmx: HtmxDetails


def attachment(content: bytes | str, filename: str, content_type: str) -> HttpResponse:
    """Return a download: the content with a Content-Disposition naming the file."""
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def post_redirect(
    request: HtmxHttpRequest, action: Callable[[], Outcome], to: str, *, each_line: bool = False
) -> HttpResponse:
    """Run a POST view's action, then redirect to `to` (post/redirect/get).

    What the action returns is the success message (lines joined by "; ", or one message a
    line with `each_line`; None or "": no message); an AppError it raises (a refused form,
    an import failure, a jury rule) is the error message, and the action has changed
    nothing. Every POST view that redirects goes through here, so no refusal reaches the
    user as a 500."""
    try:
        outcome = action()
    except AppError as exc:
        messages.error(request, exc.for_page)
    else:
        lines = [outcome] if isinstance(outcome, str) else list(outcome or [])
        for line in lines if each_line else ["; ".join(lines)]:
            if line:
                messages.success(request, line)
    return redirect(to)


def form_data(form: forms.Form) -> dict:
    """Return the form's cleaned data, or raise its errors as an AppError naming the first
    field at fault."""
    if not form.is_valid():
        field = next(iter(form.errors), "form")
        raise AppError(form.errors.as_text(), field="form" if field == "__all__" else field)
    return form.cleaned_data

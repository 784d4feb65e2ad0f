"""Response helpers shared by the apps' views, and the two ways a POST view answers.

- A button or file action (`post_redirect`): its outcome or its refusal becomes a message,
  and the browser goes back to the page (post/redirect/get). Nothing typed is lost: a
  button has no text, and a browser never keeps a chosen file anyway.
- A form with typed text (`post_rerender`): accepted, as above; invalid or refused, the page
  comes back with status 422 and the form bound with what was typed, each error beside its
  field (Luke Plant's django-htmx-patterns), so nothing typed is ever lost.

Either way the action raises `AppError` to refuse and has then changed nothing; no view
writes its own `except` for it, and no refusal becomes a 500.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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
    request: HtmxHttpRequest,
    action: Callable[[], Any],
    to: str,
    *,
    each_line: bool = False,
    done: Callable[[Any], HttpResponse] | None = None,
) -> HttpResponse:
    """Run a POST view's action, then redirect to `to` (post/redirect/get).

    What the action returns is the success message (lines joined by "; ", or one message a
    line with `each_line`; None or "": no message); an AppError it raises (a refused form,
    an import failure, a jury rule) is the error message, and the action has changed
    nothing. Every POST view that redirects goes through here, so no refusal reaches the
    user as a 500.

    `done(outcome)`, if given, is the response to a success instead: a page that shows what
    the action made once and stores it nowhere (set-password links)."""
    try:
        outcome = action()
    except AppError as exc:
        messages.error(request, exc.for_page)
        return redirect(to)
    if done is not None:
        return done(outcome)
    _said(request, outcome, each_line=each_line)
    return redirect(to)


def post_rerender(
    request: HtmxHttpRequest,
    form: forms.Form,
    action: Callable[[dict], Any],
    to: str = "",
    *,
    page: Callable[[forms.Form], HttpResponse],
    each_line: bool = False,
    done: Callable[[Any], HttpResponse] | None = None,
) -> HttpResponse:
    """Run a POST view's action on a form with typed text; redirect to `to` once it is done,
    or render `page(form)` again with status 422.

    The action takes the form's cleaned data and returns the success message, as for
    post_redirect. An invalid form, or an AppError the action raises, comes back on the
    page: `page` renders it with the bound form (what was typed) and `form_refuse` puts
    the refusal beside the field it names. `done(outcome)`, if given, answers a success
    instead of the redirect, as for post_redirect."""
    if form.is_valid():
        try:
            outcome = action(form.cleaned_data)
        except AppError as exc:
            form_refuse(form, exc)
        else:
            if done is not None:
                return done(outcome)
            _said(request, outcome, each_line=each_line)
            return redirect(to)
    response = page(form)
    response.status_code = 422
    return response


def form_refuse(form: forms.Form, exc: AppError) -> None:
    """Put a refusal on the form's field it names, else on the form as a whole."""
    field = exc.field if exc.field in form.fields else None
    form.add_error(field, exc.for_page)


def _said(request: HtmxHttpRequest, outcome: Outcome, *, each_line: bool) -> None:
    """Show an action's outcome as success messages (joined, or one a line)."""
    lines = [outcome] if isinstance(outcome, str) else list(outcome or [])
    for line in lines if each_line else ["; ".join(lines)]:
        if line:
            messages.success(request, line)


def form_data(form: forms.Form) -> dict:
    """Return the form's cleaned data, or raise its errors as an AppError naming the first
    field at fault: for a button or file action (post_redirect); a form with typed text
    goes through post_rerender, which keeps what was typed."""
    if not form.is_valid():
        field = next(iter(form.errors), "form")
        raise AppError(form.errors.as_text(), field="form" if field == "__all__" else field)
    return form.cleaned_data

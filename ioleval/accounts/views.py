"""Organizers' accounts pages, and the page where an account's holder sets a password."""

from __future__ import annotations

import io
from collections.abc import Callable

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.http import HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from ioleval.http import HtmxHttpRequest

from ..http import form_data, post_redirect
from ..roles import organizer_required
from . import services
from .forms import AccountActionForm, AccountForm, AccountsUploadForm
from .selectors import accounts_page

UPLOAD_MAX_BYTES = 1024 * 1024


def _link_note() -> str:
    days = settings.PASSWORD_RESET_TIMEOUT / 86400
    return f"shown once; valid for one use and {days:g} days"


def _back(request: HtmxHttpRequest, action: Callable[[], list[str]]) -> HttpResponse:
    """Run an account action; show its outcome (a message a line: each link on its own) or
    its error on the accounts page."""
    return post_redirect(request, action, reverse("accounts:list"), each_line=True)


@require_GET
@never_cache  # the page carries set-password links in its messages: never keep a copy
@organizer_required
def account_list(request: HtmxHttpRequest) -> HttpResponse:
    context = {
        "page": accounts_page(),
        "account_form": AccountForm(),
        "upload_form": AccountsUploadForm(),
    }
    return render(request, "accounts/accounts.html", context)


@require_POST
@organizer_required
def account_create(request: HtmxHttpRequest) -> HttpResponse:
    form = AccountForm(request.POST)

    def action() -> list[str]:
        user = services.account_create(**form_data(form))
        link = services.password_link(user, request=request)
        return [f"Account {user.username} created. Set-password link ({_link_note()}): {link}"]

    return _back(request, action)


@require_POST
@organizer_required
def accounts_upload(request: HtmxHttpRequest) -> HttpResponse:
    form = AccountsUploadForm(request.POST, request.FILES)

    def action() -> list[str]:
        upload = form_data(form)["file"]
        if upload.size > UPLOAD_MAX_BYTES:
            raise services.AccountError("larger than 1 MB", file=upload.name)
        try:
            text = upload.read().decode("utf-8-sig")
        except UnicodeDecodeError:
            raise services.AccountError("not UTF-8 text", file=upload.name) from None
        users = services.accounts_import(io.StringIO(text, newline=""), file=upload.name)
        head = f"{len(users)} accounts created from {upload.name}; set-password links ({_link_note()}):"
        links = [f"{u.username}: {services.password_link(u, request=request)}" for u in users]
        return [head, *links]

    return _back(request, action)


def _act(request: HtmxHttpRequest, act: Callable[..., object], done: str) -> HttpResponse:
    form = AccountActionForm(request.POST)

    def action() -> list[str]:
        user = form_data(form)["user"]
        act(user=user, by=request.user)
        return [done.format(username=user.username)]

    return _back(request, action)


@require_POST
@organizer_required
def account_deactivate(request: HtmxHttpRequest) -> HttpResponse:
    return _act(
        request,
        services.account_deactivate,
        "{username} deactivated: it can no longer log in.",
    )


@require_POST
@organizer_required
def account_reactivate(request: HtmxHttpRequest) -> HttpResponse:
    return _act(request, services.account_reactivate, "{username} reactivated.")


@require_POST
@organizer_required
def account_password_link(request: HtmxHttpRequest) -> HttpResponse:
    form = AccountActionForm(request.POST)

    def action() -> list[str]:
        user = form_data(form)["user"]
        services.account_password_reset(user=user, by=request.user)
        link = services.password_link(user, request=request)
        return [
            f"{user.username}: old password and earlier links no longer work."
            f" New set-password link ({_link_note()}): {link}"
        ]

    return _back(request, action)


class PasswordSetView(auth_views.PasswordResetConfirmView):
    """Django's password-reset confirmation, which also refuses deactivated accounts."""

    title = "Set your password"

    def get_user(self, uidb64):
        user = super().get_user(uidb64)
        return user if user is not None and user.is_active else None

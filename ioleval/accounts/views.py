"""Organizers' accounts pages, and the page where an account's holder sets a password."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.http import HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from ..http import HtmxHttpRequest, form_data, post_redirect, post_rerender
from ..roles import organizer_required
from . import services
from .forms import AccountActionForm, AccountForm, AccountsUploadForm
from .selectors import accounts_page

UPLOAD_MAX_BYTES = 1024 * 1024


@dataclass(frozen=True)
class NewLinks:
    """Set-password links just made: shown in the response to the POST that made them, and
    stored nowhere (not in a message, which the session or a cookie would keep)."""

    summary: str
    links: list[tuple[str, str]]  # (username, link)

    @property
    def note(self) -> str:
        days = settings.PASSWORD_RESET_TIMEOUT / 86400
        return (
            f"Each link works once and for {days:g} days. They are shown only here and kept"
            " nowhere: copy them now and send each to its holder."
        )


def _page(
    request: HtmxHttpRequest,
    *,
    new_links: NewLinks | None = None,
    account_form: AccountForm | None = None,
) -> HttpResponse:
    context = {
        "page": accounts_page(),
        "account_form": account_form or AccountForm(),
        "upload_form": AccountsUploadForm(),
        "new_links": new_links,
    }
    return render(request, "accounts/accounts.html", context)


def _links_or_refusal(request: HtmxHttpRequest, action: Callable[[], NewLinks]) -> HttpResponse:
    """Show the links a file or button action made on the page itself, or its refusal as a
    message on the accounts list (post/redirect/get)."""
    return post_redirect(
        request,
        action,
        reverse("accounts:list"),
        done=lambda new_links: _page(request, new_links=new_links),
    )


@require_GET
@never_cache
@organizer_required
def account_list(request: HtmxHttpRequest) -> HttpResponse:
    return _page(request)


@require_POST
@never_cache  # the response carries a set-password link: never keep a copy
@organizer_required
def account_create(request: HtmxHttpRequest) -> HttpResponse:
    def action(data: dict) -> NewLinks:
        user = services.account_create(**data)
        link = services.password_link(user, request=request)
        return NewLinks(f"Account {user.username} created.", [(user.username, link)])

    return post_rerender(
        request,
        AccountForm(request.POST),
        action,
        page=lambda form: _page(request, account_form=form),
        done=lambda new_links: _page(request, new_links=new_links),
    )


@require_POST
@never_cache  # the response carries set-password links: never keep a copy
@organizer_required
def accounts_upload(request: HtmxHttpRequest) -> HttpResponse:
    form = AccountsUploadForm(request.POST, request.FILES)

    def action() -> NewLinks:
        upload = form_data(form)["file"]
        if upload.size > UPLOAD_MAX_BYTES:
            raise services.AccountError("larger than 1 MB", file=upload.name)
        users = services.accounts_import(upload.read(), file=upload.name)
        return NewLinks(
            f"{len(users)} accounts created from {upload.name}.",
            [(u.username, services.password_link(u, request=request)) for u in users],
        )

    return _links_or_refusal(request, action)


def _act(request: HtmxHttpRequest, act: Callable[..., object], done: str) -> HttpResponse:
    form = AccountActionForm(request.POST)

    def action() -> str:
        user = form_data(form)["user"]
        act(user=user, by=request.user)
        return done.format(username=user.username)

    return post_redirect(request, action, reverse("accounts:list"))


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
@never_cache  # the response carries a set-password link: never keep a copy
@organizer_required
def account_password_link(request: HtmxHttpRequest) -> HttpResponse:
    form = AccountActionForm(request.POST)

    def action() -> NewLinks:
        user = form_data(form)["user"]
        services.account_password_reset(user=user, by=request.user)
        return NewLinks(
            f"{user.username}: the old password and earlier links no longer work.",
            [(user.username, services.password_link(user, request=request))],
        )

    return _links_or_refusal(request, action)


class PasswordSetView(auth_views.PasswordResetConfirmView):
    """Django's password-reset confirmation, which also refuses deactivated accounts and says
    which account the password is for."""

    title = "Set your password"

    def get_user(self, uidb64):
        user = super().get_user(uidb64)
        return user if user is not None and user.is_active else None

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        if context.get("validlink"):
            context["account"] = self.user
        return context

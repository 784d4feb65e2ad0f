"""Throttling of failed logins with django-axes: per account and per address, each its own limit.

An account is locked after LOGIN_ACCOUNT_FAILURE_LIMIT failed logins from anywhere (password
guessing), an address after LOGIN_ADDRESS_FAILURE_LIMIT failed logins across accounts
(password spraying); the address limit is higher because a jury room often shares one address.
Failures count for LOGIN_COOLOFF after the last one; an organizer unlocks an account or an
address on the "Locked logins" page or with the axes_reset_username / axes_reset_ip commands.

An attempt is counted as a failure before its password is judged, in one transaction that
holds the account's and the address's LoginGate rows (always in that order) while it checks
both limits: simultaneous attempts take turns there, so no burst has more passwords judged than
the limits allow. A password found right gives its count back as soon as it is judged
(PasswordBackend), whether or not the login then completes: the admin refuses a juror's right
password after judging it, and that must not count towards locking the juror out.
"""

from __future__ import annotations

import hashlib
import ipaddress
from dataclasses import dataclass
from datetime import datetime
from math import ceil

from axes.attempts import get_cool_off_threshold
from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username, get_failure_limit, get_query_str
from axes.models import AccessAttempt
from axes.signals import user_locked_out
from axes.utils import reset as axes_reset
from django.conf import settings
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.forms import AuthenticationForm
from django.db import transaction
from django.db.models import F, Max, QuerySet, Sum
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from .models import LoginGate


@dataclass(frozen=True)
class PendingFailure:
    """The failure an attempt was counted as before its password was judged."""

    attempt_id: int  # the AccessAttempt row it was added to
    time: datetime  # the row's attempt_time it set
    previous: datetime | None  # the row's attempt_time before, None if the row is new


class AccountOrAddressHandler(AxesDatabaseHandler):
    """Record failures in the database (as axes does); lock by account or by address; count an
    attempt before its password is judged."""

    def is_allowed(self, request: HttpRequest, credentials: dict | None = None) -> bool:
        """Count this attempt as a failure and return True, or return False if its account or
        address is locked.

        Axes asks this once per authentication, from AxesStandaloneBackend, the first backend,
        so before the password backends judge the password.
        """
        if self.is_blacklisted(request, credentials):
            return False
        if self.is_whitelisted(request, credentials):
            return True
        self.clean_expired_user_attempts(request, credentials)
        pending = _count_attempt(request, get_client_username(request, credentials))
        if pending is None:
            return False
        request.login_pending = pending
        return True

    def user_login_failed(self, sender, credentials: dict, request=None, **kwargs) -> None:
        """Lock the account or address if this failure, counted already, reached its limit."""
        pending = getattr(request, "login_pending", None)
        if pending is None:  # refused while locked, or not through is_allowed: axes' way
            super().user_login_failed(sender, credentials, request, **kwargs)
            return
        request.login_pending = None  # stays counted
        failures = self.get_failures(request, credentials)
        request.axes_failures_since_start = failures
        if failures >= get_failure_limit(request, credentials):
            request.axes_locked_out = True
            request.axes_credentials = credentials
            user_locked_out.send(
                "axes",
                request=request,
                username=get_client_username(request, credentials),
                ip_address=request.axes_ip_address,
            )

    def get_failures(self, request: HttpRequest, credentials: dict | None = None) -> int:
        """Return the account's recent failures, or the account limit once the address is over its own.

        axes compares this figure with AXES_FAILURE_LIMIT, the account limit.
        """
        counts = limit_counts(
            username=get_client_username(request, credentials),
            address=request.axes_ip_address,
            since=get_cool_off_threshold(request),
        )
        account = counts[0].failures
        return settings.AXES_FAILURE_LIMIT if counts[1].reached else account


class PasswordBackend(ModelBackend):
    """Django's password backend, which gives back the failure an attempt was counted as once
    its password is found right."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        user = super().authenticate(request, username=username, password=password, **kwargs)
        pending = getattr(request, "login_pending", None)
        if user is not None and pending is not None:
            # Right whatever follows: the admin refuses a non-staff account after this, and
            # five such visits must not lock a juror out.
            request.login_pending = None
            _uncount_attempt(pending)
        return user


@dataclass(frozen=True)
class LoginLimit:
    """One of the two limits: failures of an account, or of an address, in the cool-off."""

    kind: str  # "account" or "address"
    column: str  # AccessAttempt's column holding the key
    limit: int


def login_limits() -> tuple[LoginLimit, LoginLimit]:
    """Return the limits, the account's first: the one place that says which limit is whose."""
    return (
        LoginLimit("account", "username", settings.AXES_FAILURE_LIMIT),
        LoginLimit("address", "ip_address", settings.LOGIN_ADDRESS_FAILURE_LIMIT),
    )


@dataclass(frozen=True)
class LimitCount:
    limit: LoginLimit
    failures: int

    @property
    def reached(self) -> bool:
        return self.failures >= self.limit.limit


def limit_counts(*, username: str | None, address: str | None, since: datetime) -> list[LimitCount]:
    """Return the failures since `since` of this account and this address against their limits
    (the account's first; no key, no failures)."""
    recent = AccessAttempt.objects.filter(attempt_time__gte=since)
    return [
        LimitCount(limit, _failures(recent.filter(**{limit.column: key})) if key else 0)
        for limit, key in zip(login_limits(), (username, address), strict=True)
    ]


def _failures(attempts: QuerySet) -> int:
    return attempts.aggregate(n=Sum("failures_since_start"))["n"] or 0


def _gate_key(kind: str, value: str) -> str:
    return hashlib.sha256(f"{kind}:{value}".encode("utf-8", "surrogatepass")).hexdigest()


def _count_attempt(request: HttpRequest, username: str | None) -> PendingFailure | None:
    """Record the attempt as a failure of its account and address and return it, or None
    (nothing recorded) if either is at its limit."""
    now = request.axes_attempt_time
    address = request.axes_ip_address
    gates = ([_gate_key("account", username)] if username else []) + [_gate_key("address", address)]
    with transaction.atomic():
        # Account before address, one statement each: every attempt locks in the same order.
        # The upsert locks the row (PostgreSQL) or the database (SQLite) until the commit.
        for key in gates:
            LoginGate.objects.bulk_create(
                [LoginGate(key=key, used=now)],
                update_conflicts=True,
                unique_fields=["key"],
                update_fields=["used"],
            )
        _gates_prune(before=get_cool_off_threshold(request), keep=gates)
        since = get_cool_off_threshold(request)
        if any(c.reached for c in limit_counts(username=username, address=address, since=since)):
            return None
        attempt, created = AccessAttempt.objects.select_for_update().get_or_create(
            username=username,
            ip_address=address,
            user_agent=request.axes_user_agent,
            defaults={
                "get_data": get_query_str(request.GET).replace("\0", "0x00"),
                "post_data": get_query_str(request.POST).replace("\0", "0x00"),
                "http_accept": request.axes_http_accept,
                "path_info": request.axes_path_info,
                "failures_since_start": 1,
                "attempt_time": now,
            },
        )
        previous = None if created else attempt.attempt_time
        if not created:
            # An expired row that was not cleaned up yet starts again from one.
            expired = attempt.attempt_time < get_cool_off_threshold(request)
            AccessAttempt.objects.filter(pk=attempt.pk).update(
                failures_since_start=1 if expired else F("failures_since_start") + 1,
                attempt_time=now,
                http_accept=request.axes_http_accept,
                path_info=request.axes_path_info,
            )
    return PendingFailure(attempt_id=attempt.pk, time=now, previous=previous)


# Expired gates one attempt deletes at most: the first attempt after a spray from many
# addresses does not do all of the cleaning, the next ones do the rest.
PRUNE_AT_ONCE = 100


def _gates_prune(*, before: datetime, keep: list[str]) -> None:
    """Delete expired gates that no attempt holds; call holding the attempt's own gates.

    Only rows no other attempt holds (SKIP LOCKED), and never this attempt's: the cleanup
    then waits for no attempt, so none waits for it in a circle (a DELETE of its own, outside
    the transaction, deleted the address's gate and waited for an account's gate whose
    attempt waited for the address's: a deadlock, tests/test_login_throttle_concurrency.py).
    An attempt that waits to take a gate deleted here inserts it anew once this one commits.
    """
    expired = (
        LoginGate.objects.select_for_update(skip_locked=True)
        .filter(used__lt=before)
        .exclude(key__in=keep)
        .values_list("pk", flat=True)[:PRUNE_AT_ONCE]
    )
    ids = list(expired)
    if ids:
        LoginGate.objects.filter(pk__in=ids).delete()


def _uncount_attempt(pending: PendingFailure) -> None:
    """Take back a failure recorded before its password was found right."""
    with transaction.atomic():
        attempt = AccessAttempt.objects.select_for_update().filter(pk=pending.attempt_id).first()
        if attempt is None:  # unlocked meanwhile
            return
        if attempt.failures_since_start <= 1:
            attempt.delete()
            return
        attempt.failures_since_start -= 1
        if pending.previous is not None and attempt.attempt_time == pending.time:
            attempt.attempt_time = pending.previous  # no later failure moved it on
        attempt.save(update_fields=["failures_since_start", "attempt_time"])


def client_address(request: HttpRequest) -> str | None:
    """Return the client's address: REMOTE_ADDR, or the one the trusted proxies saw.

    Behind LOGIN_PROXY_COUNT reverse proxies that each append the address they were called
    from to X-Forwarded-For, the client is that many entries from the right; entries further
    left were written by the client and are not trusted.
    """
    proxies = settings.LOGIN_PROXY_COUNT
    if proxies:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
        if len(hops) >= proxies:
            # Not an address (a proxy's "unknown", a port, a client's junk when the count is
            # set too high): the database's address column would refuse it, and varying it
            # would dodge the address limit. The proxy's own address stands in.
            address = _ip_address(hops[-proxies])
            if address:
                return address
    return request.META.get("REMOTE_ADDR")


def _ip_address(text: str) -> str | None:
    """Return the IP address in an X-Forwarded-For entry (`[::1]:443`, `1.2.3.4:80` too)."""
    candidates = [text]
    if text.startswith("[") and "]" in text:
        candidates.append(text[1 : text.index("]")])
    elif text.count(":") == 1:
        candidates.append(text.split(":")[0])
    for candidate in candidates:
        try:
            return str(ipaddress.ip_address(candidate))
        except ValueError:
            continue
    return None


def cooloff_minutes() -> int:
    return ceil(settings.AXES_COOLOFF_TIME.total_seconds() / 60)


def lockout_message() -> str:
    minutes = cooloff_minutes()
    return (
        "Too many failed logins for this account or address; try again in"
        f" {minutes} minute{'s' if minutes != 1 else ''}, or ask an organizer to unlock it."
    )


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None, credentials: dict | None
) -> HttpResponse:
    """Render the login page with the lockout message, as 429 Too Many Requests."""
    form = AuthenticationForm(
        request, initial={"username": get_client_username(request, credentials) or ""}
    )
    context = {
        "form": form,
        "next": request.POST.get("next", request.GET.get("next", "")),
        "lockout": lockout_message(),
    }
    return render(request, "registration/login.html", context, status=429)


@dataclass(frozen=True)
class LoginLock:
    kind: str  # "account" or "address"
    key: str  # the username or the address
    failures: int
    until: datetime  # at the latest


@dataclass(frozen=True)
class LockedLoginsPage:
    locks: list[LoginLock]
    account_limit: int
    address_limit: int
    cooloff_minutes: int


def locked_logins_page() -> LockedLoginsPage:
    """Return the organizers' page of locked logins: the locks and the rules."""
    return LockedLoginsPage(
        locks=login_locks(),
        account_limit=login_limits()[0].limit,
        address_limit=login_limits()[1].limit,
        cooloff_minutes=cooloff_minutes(),
    )


def login_locks() -> list[LoginLock]:
    """Return the accounts and addresses locked now, accounts first, each sorted by name."""
    since = timezone.now() - settings.AXES_COOLOFF_TIME
    recent = AccessAttempt.objects.filter(attempt_time__gte=since)
    locks = []
    for limit in login_limits():
        column = limit.column
        rows = (
            recent.exclude(**{f"{column}__isnull": True})
            .values(column)
            .annotate(failures=Sum("failures_since_start"), last=Max("attempt_time"))
            .filter(failures__gte=limit.limit)
            .order_by(column)
        )
        locks += [
            LoginLock(
                limit.kind, row[column], row["failures"], row["last"] + settings.AXES_COOLOFF_TIME
            )
            for row in rows
        ]
    return locks


def login_unlock(*, kind: str, key: str) -> int:
    """Forget the failed logins of an account or an address; return how many records went."""
    if kind == "account":
        return axes_reset(username=key)
    if kind == "address":
        return axes_reset(ip=key)
    raise ValueError(f"kind must be account or address, not {kind!r}")

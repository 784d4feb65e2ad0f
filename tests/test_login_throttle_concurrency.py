"""Simultaneous logins never pass the limit: a failure is counted before the password is judged
(PostgreSQL, one connection per thread, as gunicorn's workers each have their own)."""

from __future__ import annotations

import threading

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth.backends import ModelBackend
from django.db.models import Sum
from django.test import Client
from django.urls import reverse

from tests.concurrency import run_concurrently
from tests.grading.factories import JurorFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("postgres_only")]

PASSWORD = "pw-for-tests"
HOME = "192.0.2.10"
BURST = 40


@pytest.fixture
def judged(monkeypatch):
    """Count the passwords the password backend judged (it still judges them)."""
    count = [0]
    lock = threading.Lock()
    judge = ModelBackend.authenticate

    def counted(self, request, username=None, password=None, **kwargs):
        with lock:
            count[0] += 1
        return judge(self, request, username=username, password=password, **kwargs)

    monkeypatch.setattr(ModelBackend, "authenticate", counted)
    return count


def attempt(password: str, statuses: list[int], *, username: str = "juror1") -> None:
    response = Client().post(
        reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=HOME
    )
    statuses.append(response.status_code)


def failures(**where) -> int:
    return AccessAttempt.objects.filter(**where).aggregate(n=Sum("failures_since_start"))["n"] or 0


def test_forty_simultaneous_wrong_passwords_are_judged_at_most_the_limit(judged):
    JurorFactory(username="juror1")
    limit = settings.LOGIN_ACCOUNT_FAILURE_LIMIT
    statuses: list[int] = []
    run_concurrently([lambda: attempt("wrong", statuses) for _ in range(BURST)])
    assert judged[0] == limit
    assert failures(username="juror1") == limit
    # The first limit - 1 failures answer the form again, the limit-th and every refusal 429.
    assert sorted(statuses) == [200] * (limit - 1) + [429] * (BURST - limit + 1)
    # Locked: the right password is refused without being judged.
    after: list[int] = []
    attempt(PASSWORD, after)
    assert after == [429]
    assert judged[0] == limit


def test_the_right_password_in_a_burst_is_accepted_only_within_the_limit(judged):
    JurorFactory(username="juror1")
    limit = settings.LOGIN_ACCOUNT_FAILURE_LIMIT
    statuses: list[int] = []
    jobs = [lambda: attempt("wrong", statuses) for _ in range(BURST - 1)]
    jobs.append(lambda: attempt(PASSWORD, statuses))
    run_concurrently(jobs)
    accepted = statuses.count(302)
    assert accepted <= 1
    assert failures(username="juror1") == limit
    # A right password judged frees its place; no more than the limit of wrong ones are judged.
    assert judged[0] == limit + accepted
    after: list[int] = []
    attempt(PASSWORD, after)
    assert after == [429]


def test_a_burst_across_accounts_from_one_address_is_judged_at_most_the_address_limit(
    judged, settings
):
    settings.LOGIN_ADDRESS_FAILURE_LIMIT = 8
    for n in range(BURST):
        JurorFactory(username=f"juror{n}")
    statuses: list[int] = []
    run_concurrently(
        [lambda n=n: attempt("wrong", statuses, username=f"juror{n}") for n in range(BURST)]
    )
    assert judged[0] == 8
    assert failures(ip_address=HOME) == 8
    after: list[int] = []
    attempt(PASSWORD, after, username="juror0")
    assert after == [429]

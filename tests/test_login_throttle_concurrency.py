"""Simultaneous logins never pass the limit: a failure is counted before the password is judged
(PostgreSQL, one connection per thread, as gunicorn's workers each have their own)."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth.backends import ModelBackend
from django.db.models import Sum
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from ioleval.login_throttle import _gate_key
from ioleval.models import LoginGate
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


def test_a_room_logging_in_as_its_gates_expire_gets_no_error(monkeypatch):
    """Expired gates are cleaned up without deadlocking the attempts that hold their own.

    Before, every attempt deleted the expired gates in a statement of its own, outside its
    transaction. A room that logs in again just as its gates of the last login expire: an
    early attempt, for which its gates had not expired, holds its account's gate; a later
    one, for which they had, deletes the address's gate and waits for that account's;
    the early one waits for the address's gate: a deadlock, one of them a 500.
    """
    early, late = 4, 4
    names = [f"juror{n}" for n in range(early + late)]
    for name in names:
        JurorFactory(username=name)
    # The address's gate first in the table, so a scan meets it before the accounts'.
    keys = [_gate_key("address", HOME)] + [_gate_key("account", name) for name in names]
    upsert = type(LoginGate.objects).bulk_create

    def slow(self, objs, *args, **kwargs):
        """Hold an account's gate a moment before taking the address's (a loaded server's
        thread may be descheduled there)."""
        created = upsert(self, objs, *args, **kwargs)
        if self.model is LoginGate and objs[0].key != keys[0]:
            time.sleep(0.6)
        return created

    monkeypatch.setattr(type(LoginGate.objects), "bulk_create", slow)

    def later(job):
        time.sleep(0.4)
        job()

    for _ in range(3):
        # The gates of a login one cool-off ago, which expire 0.15 s into this one.
        expiring = timezone.now() - settings.AXES_COOLOFF_TIME + timedelta(seconds=0.15)
        LoginGate.objects.all().delete()
        LoginGate.objects.bulk_create([LoginGate(key=key, used=expiring) for key in keys])
        statuses: list[int] = []
        jobs = [
            lambda name=name, statuses=statuses: attempt(PASSWORD, statuses, username=name)
            for name in names
        ]
        run_concurrently(jobs[:early] + [lambda job=job: later(job) for job in jobs[early:]])
        assert statuses == [302] * len(names)
    assert failures(ip_address=HOME) == 0

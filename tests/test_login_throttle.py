"""Failed logins are throttled per account and per address (django-axes, ioleval/login_throttle.py)."""

from __future__ import annotations

import io

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth.backends import ModelBackend
from django.core.management import call_command
from django.db.models import F
from django.test import RequestFactory
from django.urls import reverse

from ioleval.login_throttle import client_address
from ioleval.roles import ORGANIZER
from tests.grading.factories import JurorFactory, UserFactory

PASSWORD = "pw-for-tests"
HOME = "192.0.2.10"  # documentation addresses (RFC 5737): strings only, no traffic
AWAY = "198.51.100.20"
MESSAGE = "Too many failed logins for this account or address; try again in 15 minutes"


@pytest.fixture
def jurors(db):
    return [JurorFactory(username=f"juror{n}") for n in range(1, 5)]


def login(client, username, password, *, address=HOME, url=None, **extra):
    client.logout()
    return client.post(
        url or reverse("login"),
        {"username": username, "password": password},
        REMOTE_ADDR=address,
        **extra,
    )


def logged_in(client) -> bool:
    return "_auth_user_id" in client.session


def fail(client, username, times, *, address=HOME):
    return [login(client, username, "wrong", address=address).status_code for _ in range(times)]


def test_fifty_wrong_passwords_then_the_right_one_is_refused(client, jurors):
    statuses = fail(client, "juror1", 50)
    limit = settings.LOGIN_ACCOUNT_FAILURE_LIMIT
    assert statuses == [200] * (limit - 1) + [429] * (50 - limit + 1)
    response = login(client, "juror1", PASSWORD)
    assert response.status_code == 429
    assert not logged_in(client)
    body = response.content.decode()
    assert MESSAGE in body
    assert "ask an organizer to unlock it" in body
    assert 'name="password"' in body  # the login form is still there, for later


def test_fewer_failures_than_the_limit_still_let_the_right_password_in(client, jurors):
    fail(client, "juror1", settings.LOGIN_ACCOUNT_FAILURE_LIMIT - 1)
    response = login(client, "juror1", PASSWORD)
    assert response.status_code == 302
    assert logged_in(client)


def test_an_attempt_counts_as_a_failure_before_its_password_is_judged(client, jurors, monkeypatch):
    # What the password backend finds recorded while it judges (tests/
    # test_login_throttle_concurrency.py shows why: simultaneous attempts on PostgreSQL).
    seen = []
    judge = ModelBackend.authenticate

    def spying(self, request, **credentials):
        seen.append(_failures_of("juror1"))
        return judge(self, request, **credentials)

    monkeypatch.setattr(ModelBackend, "authenticate", spying)
    login(client, "juror1", "wrong")
    first = AccessAttempt.objects.get().attempt_time
    assert login(client, "juror1", PASSWORD).status_code == 302
    assert seen == [1, 2]
    # The right password gives its count back, and leaves the last failure's time as it was.
    assert _failures_of("juror1") == 1
    assert AccessAttempt.objects.get().attempt_time == first


def _failures_of(username: str) -> int:
    return sum(
        AccessAttempt.objects.filter(username=username).values_list(
            "failures_since_start", flat=True
        )
    )


def test_a_locked_account_is_locked_from_every_address_and_only_it(client, jurors):
    fail(client, "juror1", settings.LOGIN_ACCOUNT_FAILURE_LIMIT)
    assert login(client, "juror1", PASSWORD, address=AWAY).status_code == 429
    # Another juror at the same address is not locked out with the first.
    assert login(client, "juror2", PASSWORD).status_code == 302


def test_an_address_is_locked_after_failures_across_accounts(client, jurors, settings):
    settings.LOGIN_ADDRESS_FAILURE_LIMIT = 6
    fail(client, "juror1", 3)
    fail(client, "juror2", 2)
    assert login(client, "juror3", PASSWORD).status_code == 302  # 5 failures: still open
    assert login(client, "juror3", "wrong").status_code == 429  # the 6th locks the address
    assert login(client, "juror4", PASSWORD).status_code == 429
    assert MESSAGE in login(client, "juror4", PASSWORD).content.decode()
    # The accounts themselves are not locked: from elsewhere they log in.
    assert login(client, "juror4", PASSWORD, address=AWAY).status_code == 302


def test_axes_reset_username_unlocks_an_account(client, jurors):
    fail(client, "juror1", settings.LOGIN_ACCOUNT_FAILURE_LIMIT)
    assert login(client, "juror1", PASSWORD).status_code == 429
    call_command("axes_reset_username", "juror1", stdout=io.StringIO())
    assert login(client, "juror1", PASSWORD).status_code == 302


def test_axes_reset_ip_unlocks_an_address(client, jurors, settings):
    settings.LOGIN_ADDRESS_FAILURE_LIMIT = 4
    fail(client, "juror1", 2)
    fail(client, "juror2", 2)
    assert login(client, "juror3", PASSWORD).status_code == 429
    call_command("axes_reset_ip", HOME, stdout=io.StringIO())
    assert login(client, "juror3", PASSWORD).status_code == 302


def _age_failures(minutes: float) -> None:
    """Move every recorded failure that many minutes into the past."""
    from datetime import timedelta

    AccessAttempt.objects.update(attempt_time=F("attempt_time") - timedelta(minutes=minutes))


def test_a_lock_ends_after_the_cool_off(client, jurors):
    fail(client, "juror1", settings.LOGIN_ACCOUNT_FAILURE_LIMIT)
    _age_failures(14)
    assert login(client, "juror1", PASSWORD).status_code == 429
    # Attempts during the lock are refused without extending it.
    fail(client, "juror1", 3)
    _age_failures(1.5)
    assert login(client, "juror1", PASSWORD).status_code == 302


def test_the_admin_login_is_throttled_the_same_way(client, db):
    UserFactory(username="root", is_staff=True, is_superuser=True)
    url = reverse("admin:login")
    for _ in range(settings.LOGIN_ACCOUNT_FAILURE_LIMIT):
        login(client, "root", "wrong", url=url)
    response = login(client, "root", PASSWORD, url=url)
    assert response.status_code == 429
    assert MESSAGE in response.content.decode()
    assert not logged_in(client)
    # The app's own login page refuses the account as well.
    assert login(client, "root", PASSWORD).status_code == 429


def test_a_right_password_on_the_admin_login_of_a_non_staff_account_is_no_failure(client, jurors):
    """The admin refuses a juror after authenticating them: that right password counts as no
    failure (before: it stayed counted, so five visits to /admin/ locked the juror out)."""
    url = reverse("admin:login")
    for _ in range(settings.LOGIN_ACCOUNT_FAILURE_LIMIT + 2):
        response = login(client, "juror1", PASSWORD, url=url)
        assert response.status_code == 200  # the admin's own refusal: not a staff account
        assert not logged_in(client)
    assert not AccessAttempt.objects.filter(username="juror1").exists()
    assert login(client, "juror1", PASSWORD).status_code == 302
    # Wrong passwords there still count.
    fail_admin = [login(client, "juror2", "wrong", url=url).status_code for _ in range(5)]
    assert fail_admin[-1] == 429


def test_behind_a_proxy_the_client_address_is_the_one_the_proxy_saw(settings):
    request = RequestFactory().get(
        "/", REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR=f"203.0.113.9, {HOME}"
    )
    settings.LOGIN_PROXY_COUNT = 0
    assert client_address(request) == "10.0.0.1"  # no proxy trusted: the header is ignored
    settings.LOGIN_PROXY_COUNT = 1
    assert client_address(request) == HOME  # 203.0.113.9 was written by the client
    settings.LOGIN_PROXY_COUNT = 2
    assert client_address(request) == "203.0.113.9"
    settings.LOGIN_PROXY_COUNT = 3  # fewer entries than proxies: not through them
    assert client_address(request) == "10.0.0.1"


def test_behind_a_proxy_addresses_are_throttled_apart(client, jurors, settings):
    settings.LOGIN_PROXY_COUNT = 1
    settings.LOGIN_ADDRESS_FAILURE_LIMIT = 4
    proxy = "10.0.0.1"
    for username in ("juror1", "juror2"):
        for _ in range(2):
            login(client, username, "wrong", address=proxy, HTTP_X_FORWARDED_FOR=HOME)
    assert (
        login(client, "juror3", PASSWORD, address=proxy, HTTP_X_FORWARDED_FOR=HOME).status_code
        == 429
    )
    # Another client behind the same proxy is not locked with the first; a forged entry
    # on the left does not make the first client someone else.
    assert (
        login(client, "juror3", PASSWORD, address=proxy, HTTP_X_FORWARDED_FOR=AWAY).status_code
        == 302
    )
    forged = f"{AWAY}, {HOME}"
    assert (
        login(client, "juror4", PASSWORD, address=proxy, HTTP_X_FORWARDED_FOR=forged).status_code
        == 429
    )


def test_an_organizer_sees_the_locks_and_unlocks_an_account(client, jurors, settings):
    settings.LOGIN_ADDRESS_FAILURE_LIMIT = 8
    fail(client, "juror1", 5)
    fail(client, "juror2", 3, address=HOME)
    organizer = UserFactory(username="org", roles=[ORGANIZER])
    client.force_login(organizer)
    page = client.get(reverse("locked_logins"))
    assert page.status_code == 200
    body = page.content.decode()
    assert "account <code>juror1</code>" in body
    assert f"address <code>{HOME}</code>" in body
    assert "juror2" not in body  # 3 failures: not locked
    response = client.post(reverse("locked_logins"), {"kind": "account", "key": "juror1"})
    assert response.status_code == 302
    assert (
        "account <code>juror1</code>" not in client.get(reverse("locked_logins")).content.decode()
    )
    # Its failures are forgotten, so they no longer count against the address either.
    assert login(client, "juror1", PASSWORD).status_code == 302
    fail(client, "juror3", 4)
    fail(client, "juror4", 1)  # 3 + 4 + 1: the address is locked
    assert login(client, "juror1", PASSWORD).status_code == 429
    client.force_login(organizer)
    client.post(reverse("locked_logins"), {"kind": "address", "key": HOME})
    assert login(client, "juror1", PASSWORD).status_code == 302


def test_only_organizers_reach_the_locked_logins_page(client, jurors):
    fail(client, "juror1", 5)
    client.force_login(jurors[1])
    assert client.get(reverse("locked_logins")).status_code == 403
    response = client.post(reverse("locked_logins"), {"kind": "account", "key": "juror1"})
    assert response.status_code == 403
    assert login(client, "juror1", PASSWORD).status_code == 429


@pytest.mark.parametrize(
    ("entry", "address"),
    [
        ("unknown", "10.0.0.1"),
        ("not an address", "10.0.0.1"),
        (f"{HOME}:51234", HOME),
        ("[2001:db8::7]:443", "2001:db8::7"),
        ("2001:db8::7", "2001:db8::7"),
    ],
)
def test_a_forwarded_entry_that_is_no_address_falls_back_to_the_proxy(entry, address, settings):
    settings.LOGIN_PROXY_COUNT = 1
    request = RequestFactory().get("/", REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR=entry)
    assert client_address(request) == address


def test_a_login_with_junk_in_x_forwarded_for_is_counted_not_a_500(client, jurors, settings):
    settings.LOGIN_PROXY_COUNT = 1
    for n in range(settings.AXES_FAILURE_LIMIT):
        response = login(client, "juror1", "wrong", HTTP_X_FORWARDED_FOR=f"junk-{n}")
        assert response.status_code in (200, 429)
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {HOME}
    assert login(client, "juror1", PASSWORD).status_code == 429


def test_an_attempt_prunes_expired_gates_and_keeps_the_live_ones(client, jurors):
    from datetime import timedelta

    from django.utils import timezone

    from ioleval.login_throttle import _gate_key
    from ioleval.models import LoginGate

    old = timezone.now() - settings.AXES_COOLOFF_TIME - timedelta(minutes=1)
    LoginGate.objects.bulk_create(
        [LoginGate(key=f"stale{n}", used=old) for n in range(3)]
        + [LoginGate(key="fresh", used=timezone.now())]
    )
    login(client, "juror1", "wrong")
    assert set(LoginGate.objects.values_list("key", flat=True)) == {
        "fresh",
        _gate_key("account", "juror1"),
        _gate_key("address", HOME),
    }

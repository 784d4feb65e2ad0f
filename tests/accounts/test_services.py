"""Creating accounts one by one and from a CSV, deactivating them, set-password links."""

from __future__ import annotations

from datetime import datetime, timedelta
from unittest import mock

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.test import Client
from django.urls import reverse

from ioleval.accounts.services import (
    AccountError,
    account_create,
    account_deactivate,
    account_password_reset,
    account_reactivate,
    accounts_import,
    password_link,
)
from ioleval.roles import user_roles
from tests.accounts.conftest import NEW_PASSWORD, link_use
from tests.grading.factories import OrganizerFactory

pytestmark = pytest.mark.django_db
User = get_user_model()
BASE = "https://jury.example.org"


def _logs_in(username: str, password: str) -> bool:
    """Tell whether the login page lets the user in (it redirects only on success)."""
    response = Client().post(reverse("login"), {"username": username, "password": password})
    return response.status_code == 302


def _roles(username: str) -> set[str]:
    return user_roles(User.objects.get(username=username))


def test_create_gives_the_role_and_no_usable_password():
    user = account_create(username="ann", name="Ann Li", email="ann@example.org", role="juror")
    assert (user.get_full_name(), user.email, user.is_active) == ("Ann Li", "ann@example.org", True)
    assert not user.has_usable_password()
    assert _roles("ann") == {"juror"}
    account_create(username="cat", name="", email="", role="Chair ")
    account_create(username="org2", name="", email="", role="organizer")
    assert _roles("cat") == {"chair", "juror"}
    assert _roles("org2") == {"organizer"}


@pytest.mark.parametrize(
    ("fields", "field", "says"),
    [
        ({"username": "  "}, "username", "the username is blank"),
        ({"username": "a b"}, "username", "not a valid username"),
        ({"username": "ANN"}, "username", "exists already"),
        ({"email": "ann@"}, "email", "not an email address"),
        ({"email": "a@" + "b" * 250 + ".org"}, "email", "longer than 254"),
        ({"name": "N" * 151}, "name", "longer than 150"),
        ({"role": "admin"}, "role", "unknown role 'admin'"),
    ],
)
def test_create_refuses_bad_fields(fields, field, says):
    account_create(username="ann", name="", email="", role="juror")
    with pytest.raises(AccountError) as caught:
        account_create(**{"username": "bob", "name": "", "email": "", "role": "juror", **fields})
    assert caught.value.field == field
    assert says in str(caught.value)
    assert User.objects.count() == 1


GOOD = "username,name,email,role\nj1,Jo One,j1@example.org,juror\nc1,Cy,c1@example.org,chair\n"


def test_import_creates_every_row():
    users = accounts_import((GOOD + "o1,,,organizer\n").encode(), file="jury.csv")
    assert [u.username for u in users] == ["j1", "c1", "o1"]
    assert _roles("c1") == {"chair", "juror"}
    assert not any(u.has_usable_password() for u in User.objects.all())


@pytest.mark.parametrize(
    ("extra", "where"),
    [
        ("J1,Again,,juror\n", "jury.csv, line 4, field 'username': username 'J1' is on line 2"),
        ("taken,,,juror\n", "jury.csv, line 4, field 'username': an account 'taken' exists"),
        ("x1,,,grader\n", "jury.csv, line 4, field 'role': unknown role 'grader'"),
        ("x1,,x1@,juror\n", "jury.csv, line 4, field 'email': 'x1@' is not an email address"),
        (",Nobody,,juror\n", "jury.csv, line 4, field 'username': the username is blank"),
        ("x1,,,juror,extra\n", "jury.csv, line 4: 5 fields, the header has 4"),
        ('x1,"Jo\nOne",,juror\n', "jury.csv, line 4, field 'name': the name holds the control"),
        ("\nx1,,,grader\n", "jury.csv, line 5, field 'role': unknown role 'grader'"),
    ],
)
def test_import_names_file_line_and_field_and_writes_nothing(extra, where):
    User.objects.create_user(username="taken")
    with pytest.raises(AccountError) as caught:
        accounts_import((GOOD + extra).encode(), file="jury.csv")
    assert str(caught.value).startswith(where), str(caught.value)
    assert list(User.objects.values_list("username", flat=True)) == ["taken"]


@pytest.mark.parametrize(
    ("header", "where"),
    [
        ("username,name,role", "jury.csv, line 1, field 'email': missing column(s) email"),
        ("username,name,email,role,password", "jury.csv, line 1, field 'password': passwords"),
        ("username,name,e-mail,role", "jury.csv, line 1, field 'email': missing column(s) email;"),
    ],
)
def test_import_checks_the_header(header, where):
    with pytest.raises(AccountError) as caught:
        accounts_import((header + "\nj1,,,juror\n").encode(), file="jury.csv")
    assert str(caught.value).startswith(where), str(caught.value)
    assert not User.objects.exists()


def test_a_link_sets_the_password_once():
    user = account_create(username="ann", name="", email="", role="juror")
    link = password_link(user, base_url=BASE + "/")
    assert link.startswith(f"{BASE}/reset/")
    assert link_use(link)
    assert _logs_in("ann", NEW_PASSWORD)
    # Setting the password changed what the token signs: the link is spent.
    assert not link_use(link, "Another-password-42")
    assert _logs_in("ann", NEW_PASSWORD)


def test_a_link_expires_after_the_timeout(settings):
    settings.PASSWORD_RESET_TIMEOUT = 3 * 24 * 3600
    user = account_create(username="ann", name="", email="", role="juror")
    link = password_link(user, base_url=BASE)
    later = datetime.now() + timedelta(days=3, seconds=5)
    with mock.patch.object(PasswordResetTokenGenerator, "_now", return_value=later):
        assert not link_use(link)
    assert not User.objects.get(pk=user.pk).has_usable_password()
    assert link_use(link)  # within the three days it works


def test_a_deactivated_account_cannot_log_in_nor_use_a_link(client):
    user = account_create(username="ann", name="", email="", role="juror")
    link = password_link(user, base_url=BASE)
    user.set_password(NEW_PASSWORD)
    user.save()
    client.force_login(user)
    # Made after the login, which changes what tokens sign (last_login).
    link_after_password = password_link(User.objects.get(pk=user.pk), base_url=BASE)
    account_deactivate(user=user)
    assert not _logs_in("ann", NEW_PASSWORD)
    # The session it had ends too.
    response = client.get(reverse("grading:home"))
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    with pytest.raises(AccountError, match="deactivated"):
        password_link(user, base_url=BASE)
    assert not link_use(link_after_password)
    assert not link_use(link)  # spent anyway: the password was set
    account_reactivate(user=User.objects.get(pk=user.pk))
    assert _logs_in("ann", NEW_PASSWORD)


def test_a_reset_stops_the_old_password_and_earlier_links():
    user = account_create(username="ann", name="", email="", role="juror")
    first = password_link(user, base_url=BASE)
    assert link_use(first)
    user = User.objects.get(pk=user.pk)
    account_password_reset(user=user)
    assert not _logs_in("ann", NEW_PASSWORD)
    second = password_link(user, base_url=BASE)
    account_password_reset(user=User.objects.get(pk=user.pk))
    assert not link_use(second)
    assert link_use(password_link(User.objects.get(pk=user.pk), base_url=BASE))


def test_organizers_cannot_act_on_themselves_nor_on_staff():
    organizer = OrganizerFactory()
    admin = User.objects.create_superuser(username="root", password="x")
    for act in (account_deactivate, account_password_reset):
        with pytest.raises(AccountError, match="own account"):
            act(user=organizer, by=organizer)
        with pytest.raises(AccountError, match="Django admin"):
            act(user=admin, by=organizer)
    assert User.objects.get(pk=admin.pk).is_active
    assert User.objects.get(pk=admin.pk).check_password("x")

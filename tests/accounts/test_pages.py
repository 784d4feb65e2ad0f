"""The organizers' accounts pages: list with load, create, CSV, deactivate, new links."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from django.contrib.auth import get_user_model
from django.contrib.messages import get_messages
from django.contrib.sessions.models import Session
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from tests.accounts.conftest import link_use
from tests.grading.factories import AssignmentFactory, JurorFactory

pytestmark = pytest.mark.django_db
User = get_user_model()
LINK = re.compile(r"http://testserver/reset/[^/\s]+/[^/\s]+/")
POSTS = ["accounts:create", "accounts:upload", "accounts:deactivate", "accounts:reactivate"]
POSTS += ["accounts:password_link"]


def _messages(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def test_jurors_get_403_and_anonymous_users_the_login_page(client, juror, chair):
    target = JurorFactory(username="target")
    for user in (juror, chair):
        client.force_login(user)
        assert client.get(reverse("accounts:list")).status_code == 403
        for name in POSTS:
            assert client.post(reverse(name), {"user": target.pk}).status_code == 403
    client.logout()
    response = client.get(reverse("accounts:list"))
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    assert User.objects.get(pk=target.pk).is_active


def test_the_list_shows_roles_and_load(organizer_client):
    juror = JurorFactory(username="busy", first_name="Bea Busy")
    AssignmentFactory(juror=juror)
    AssignmentFactory(juror=juror, submitted_at=timezone.now())
    response = organizer_client.get(reverse("accounts:list"))
    rows = {r.username: r for r in response.context["page"].rows}
    assert rows["busy"].roles == ("juror",)
    assert (rows["busy"].load.assigned, rows["busy"].load.submitted) == (2, 1)
    assert rows["busy"].name == "Bea Busy"
    assert "no-store" in response["Cache-Control"]


def _links(response) -> list[str]:
    return LINK.findall(response.content.decode())


def test_create_shows_the_link_once(organizer_client):
    data = {"username": "ann", "name": "Ann Li", "email": "ann@example.org", "role": "chair"}
    response = organizer_client.post(reverse("accounts:create"), data)
    # On the page that created it, not in a message that a session or a cookie would keep.
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    assert not _messages(response)
    links = _links(response)
    assert len(links) == 1
    assert "Account ann created" in response.content.decode()
    # Shown once: the next visit of the page no longer carries it.
    assert not _links(organizer_client.get(reverse("accounts:list")))
    assert set(User.objects.get(username="ann").groups.values_list("name", flat=True)) == {
        "chair",
        "juror",
    }
    assert link_use(links[0])
    assert not link_use(links[0])


def test_a_refused_account_keeps_what_was_typed_with_the_error_on_its_field(organizer_client):
    JurorFactory(username="ann")
    data = {"username": "Ann", "name": "Ann Two", "email": "", "role": "juror"}
    response = organizer_client.post(reverse("accounts:create"), data)
    assert response.status_code == 422
    form = response.context["account_form"]
    assert "an account 'Ann' exists already" in form.errors["username"][0]
    assert 'value="Ann Two"' in response.content.decode()
    assert User.objects.filter(username__iexact="ann").count() == 1


def test_upload_creates_accounts_with_links_or_none(organizer_client):
    url = reverse("accounts:upload")
    bad = b"username,name,email,role\nj1,,,juror\nj2,,j2@,juror\n"
    response = organizer_client.post(url, {"file": SimpleUploadedFile("jury.csv", bad)})
    assert _messages(response)[-1] == (
        "jury.csv, line 3, field 'email': 'j2@' is not an email address"
    )
    assert not User.objects.filter(username__in=["j1", "j2"]).exists()
    organizer_client.get(reverse("accounts:list"))  # shows the message, which then goes
    good = b"\xef\xbb\xbfusername,name,email,role\r\nj1,,,juror\r\nj2,,,chair\r\n"
    response = organizer_client.post(url, {"file": SimpleUploadedFile("jury.csv", good)})
    assert response.status_code == 200
    assert "2 accounts created from jury.csv" in response.content.decode()
    rows = response.context["new_links"].links
    assert [username for username, _ in rows] == ["j1", "j2"]
    assert _links(response) == [link for _, link in rows]
    assert all(link_use(link) for _, link in rows)


def test_three_hundred_new_links_are_kept_in_no_session_nor_cookie(organizer_client):
    rows = "".join(f"juror{n:03d},Juror {n},,juror\n" for n in range(300))
    upload = SimpleUploadedFile("jury.csv", f"username,name,email,role\n{rows}".encode())
    response = organizer_client.post(reverse("accounts:upload"), {"file": upload})
    stored = [str(s.get_decoded()) for s in Session.objects.all()]
    stored += [cookie.value for cookie in organizer_client.cookies.values()]
    stored += [cookie.value for cookie in response.cookies.values()]
    assert not [text for text in stored if "/reset/" in text]
    assert response.status_code == 200
    links = _links(response)
    assert len(links) == 300
    assert not _links(organizer_client.get(reverse("accounts:list")))
    assert link_use(links[-1])


@pytest.mark.parametrize("column", ["username", "name", "email", "role"])
@pytest.mark.parametrize("character", ["\x00", "\x1b", "\x7f", "\x85"])
def test_a_control_character_in_any_column_is_refused_and_nothing_written(
    organizer_client, column, character
):
    cells = {"username": "j2", "name": "Jo Two", "email": "j2@example.org", "role": "juror"}
    cells[column] = cells[column][:1] + character + cells[column][1:]
    data = "username,name,email,role\nj1,,,juror\n" + ",".join(cells.values()) + "\n"
    upload = SimpleUploadedFile("jury.csv", data.encode())
    response = organizer_client.post(reverse("accounts:upload"), {"file": upload})
    assert response.status_code == 302
    assert _messages(response)[-1] == (
        f"jury.csv, line 3, field '{column}': the {column} holds the control character"
        f" U+{ord(character):04X}; remove it"
    )
    assert not User.objects.filter(username__in=["j1", "j2"]).exists()


def test_the_set_password_page_names_the_account(organizer_client):
    data = {"username": "ann", "name": "Ann Li", "email": "", "role": "juror"}
    link = _links(organizer_client.post(reverse("accounts:create"), data))[0]
    client = Client()
    form = client.get(client.get(urlsplit(link).path)["Location"])
    assert form.status_code == 200
    page = form.content.decode()
    assert "The password of the account <strong>ann</strong> (Ann Li)." in page
    assert 'autocomplete="username"' in page


def test_deactivate_reactivate_and_a_new_link(organizer_client, organizer):
    juror = JurorFactory(username="jo")
    organizer_client.post(reverse("accounts:deactivate"), {"user": juror.pk})
    assert not User.objects.get(pk=juror.pk).is_active
    response = organizer_client.post(reverse("accounts:password_link"), {"user": juror.pk})
    assert "reactivate it first" in _messages(response)[-1]
    organizer_client.post(reverse("accounts:reactivate"), {"user": juror.pk})
    response = organizer_client.post(reverse("accounts:password_link"), {"user": juror.pk})
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]
    assert "the old password and earlier links no longer work" in response.content.decode()
    assert not User.objects.get(pk=juror.pk).has_usable_password()
    assert link_use(_links(response)[0])
    response = organizer_client.post(reverse("accounts:deactivate"), {"user": organizer.pk})
    assert "not on your own account" in _messages(response)[-1]
    response = organizer_client.post(reverse("accounts:deactivate"), {"user": "999999"})
    assert "Select a valid choice" in _messages(response)[-1]
    assert User.objects.get(pk=organizer.pk).is_active


def test_forms_need_the_csrf_token(organizer):
    client = Client(enforce_csrf_checks=True)
    client.force_login(organizer)
    page = client.get(reverse("accounts:list")).content.decode()
    assert page.count("csrfmiddlewaretoken") >= 2
    data = {"username": "ann", "name": "", "email": "", "role": "juror"}
    assert client.post(reverse("accounts:create"), data).status_code == 403
    assert not User.objects.filter(username="ann").exists()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    response = client.post(reverse("accounts:create"), {**data, "csrfmiddlewaretoken": token})
    assert response.status_code == 200
    assert User.objects.filter(username="ann").exists()

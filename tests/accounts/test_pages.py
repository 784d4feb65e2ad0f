"""The organizers' accounts pages: list with load, create, CSV, deactivate, new links."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.contrib.messages import get_messages
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


def test_create_shows_the_link_once(organizer_client):
    data = {"username": "ann", "name": "Ann Li", "email": "ann@example.org", "role": "chair"}
    response = organizer_client.post(reverse("accounts:create"), data, follow=True)
    page = response.content.decode()
    links = LINK.findall(page)
    assert len(links) == 1
    assert "Account ann created" in page
    # Shown once: the next visit of the page no longer carries it.
    assert not LINK.findall(organizer_client.get(reverse("accounts:list")).content.decode())
    assert set(User.objects.get(username="ann").groups.values_list("name", flat=True)) == {
        "chair",
        "juror",
    }
    assert link_use(links[0])
    assert not link_use(links[0])


def test_create_refusal_is_a_message(organizer_client):
    JurorFactory(username="ann")
    response = organizer_client.post(
        reverse("accounts:create"), {"username": "Ann", "name": "", "email": "", "role": "juror"}
    )
    assert response.status_code == 302
    assert "an account 'Ann' exists already" in _messages(response)[-1]
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
    shown = _messages(response)
    assert shown[0].startswith("2 accounts created from jury.csv")
    assert [m.split(":")[0] for m in shown[1:]] == ["j1", "j2"]
    assert all(link_use(LINK.search(m).group()) for m in shown[1:])


def test_deactivate_reactivate_and_a_new_link(organizer_client, organizer):
    juror = JurorFactory(username="jo")
    organizer_client.post(reverse("accounts:deactivate"), {"user": juror.pk})
    assert not User.objects.get(pk=juror.pk).is_active
    response = organizer_client.post(reverse("accounts:password_link"), {"user": juror.pk})
    assert "reactivate it first" in _messages(response)[-1]
    organizer_client.post(reverse("accounts:reactivate"), {"user": juror.pk})
    response = organizer_client.post(reverse("accounts:password_link"), {"user": juror.pk})
    message = _messages(response)[-1]
    assert "old password and earlier links no longer work" in message
    assert not User.objects.get(pk=juror.pk).has_usable_password()
    assert link_use(LINK.search(message).group())
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
    assert response.status_code == 302
    assert User.objects.filter(username="ann").exists()

"""Role checks on views: anonymous users log in (htmx requests get a 401), others get 403."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.grading.factories import JurorFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_an_anonymous_page_request_goes_to_the_login_page(client):
    url = reverse("grading:home")
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('login')}?next={url}"


def test_an_anonymous_htmx_request_gets_401_not_the_login_page(client):
    url = reverse("grading:mark", args=["P1-AAAA", 1])
    response = client.post(url, {"points": "1"}, headers={"HX-Request": "true"})
    assert response.status_code == 401
    assert b"<form" not in response.content


def test_a_user_without_the_role_gets_403(client):
    client.force_login(UserFactory(roles=["organizer"]))
    assert client.get(reverse("grading:home")).status_code == 403
    client.force_login(JurorFactory())
    assert client.get(reverse("grading:home")).status_code == 200

"""Helpers of the accounts tests: a set-password link followed as its holder would."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.test import Client

NEW_PASSWORD = "Correct-horse-battery-9"


def link_use(link: str, password: str = NEW_PASSWORD) -> bool:
    """Follow a set-password link in a fresh browser and set the password; tell if it worked."""
    client = Client()
    response = client.get(urlsplit(link).path)
    if response.status_code != 302:
        assert "This link does not work" in response.content.decode()
        return False
    form = client.get(response["Location"])
    assert form.status_code == 200 and "validlink" in form.context
    done = client.post(response["Location"], {"new_password1": password, "new_password2": password})
    assert done.status_code == 302, done.content.decode()
    assert client.get(done["Location"]).status_code == 200
    return True

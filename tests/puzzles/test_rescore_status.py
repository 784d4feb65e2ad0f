"""The rescore status page in-process (no broker, as under `make run`): no 500."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.urls import reverse

from ioleval.celery import app as celery_app
from puzzles.models import Output

pytestmark = pytest.mark.django_db
REPO = Path(__file__).resolve().parent.parent.parent


def test_the_status_of_a_rescoring_run_in_process_answers(organizer_client, demo_competition):
    assert celery_app.conf.task_always_eager  # the default without CELERY_BROKER_URL
    Output.objects.filter(system__competition=demo_competition).update(scores={})
    response = organizer_client.post(
        reverse("puzzles:rescore", args=["demo"]), HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 286
    task_id = response.context["poll_url"].rstrip("/").rsplit("/", 1)[1]
    count = Output.objects.filter(system__competition=demo_competition).count()

    status_url = reverse("puzzles:rescore_status", args=["demo", task_id])
    polled = organizer_client.get(status_url, HTTP_HX_REQUEST="true")
    assert polled.status_code == 286  # done: htmx stops polling
    assert f"rescored {count} outputs" in polled.content.decode()

    page = organizer_client.get(status_url, follow=True)
    assert page.status_code == 200
    assert f"Rescored {count} outputs." in page.content.decode()


def test_an_unknown_rescoring_is_said_unknown_not_a_500(organizer_client, demo_competition):
    status_url = reverse("puzzles:rescore_status", args=["demo", "f" * 32])
    polled = organizer_client.get(status_url, HTTP_HX_REQUEST="true")
    assert polled.status_code == 286
    assert "no record of this rescoring" in polled.content.decode()
    assert organizer_client.get(status_url, follow=True).status_code == 200


MAKE_RUN_SCRIPT = """
import django
from django.conf import settings
django.setup()
from django.core.management import call_command
from django.test import Client
from django.test.utils import setup_test_environment
from django.contrib.auth import get_user_model
setup_test_environment()
call_command("migrate", verbosity=0)
import io
call_command("demo", stdout=io.StringIO())
client = Client()
client.force_login(get_user_model().objects.get(username="organizer"))
posted = client.post("/c/demo/rescore/", HTTP_HX_REQUEST="true")
status_url = posted.context["poll_url"]
polled = client.get(status_url, HTTP_HX_REQUEST="true")
print("RESULT", settings.CELERY_RESULT_BACKEND, posted.status_code, polled.status_code)
print(polled.content.decode())
"""


def test_make_run_settings_answer_the_status_in_process(tmp_path):
    """`make run`'s own settings (local, SQLite, no broker), whatever CI's environment says."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("CELERY_", "DJANGO_", "DATABASE_URL"))
    }
    env |= {
        "DJANGO_SETTINGS_MODULE": "ioleval.settings.local",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'run.sqlite3'}",
        "DJANGO_MEDIA_ROOT": str(tmp_path / "media"),
    }
    done = subprocess.run(
        [sys.executable, "-c", MAKE_RUN_SCRIPT],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    _, _, shown = done.stdout.partition("RESULT ")
    first, _, body = shown.partition("\n")
    assert first == "cache+memory:// 286 286"
    assert "rescored" in body and "outputs" in body

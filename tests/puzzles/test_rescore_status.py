"""The rescore status page in-process (no broker, as under `make run`): no 500."""

from __future__ import annotations

import pytest
from django.urls import reverse

from ioleval.celery import app as celery_app
from puzzles.models import Output

pytestmark = pytest.mark.django_db


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

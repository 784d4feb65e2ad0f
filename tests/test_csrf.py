"""Every POST of every route, without a CSRF token, is refused and changes nothing."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from grading.models import (
    AnswerProposal,
    Assignment,
    DiscussionComment,
    Mark,
    Paper,
    Resolution,
)
from grading.services import rubric_current
from puzzles.models import Competition, Output, System
from tests.routes import project_routes

pytestmark = pytest.mark.django_db


def _state():
    counts = [
        m.objects.count()
        for m in (
            Mark,
            Assignment,
            Resolution,
            DiscussionComment,
            Paper,
            System,
            Output,
            AnswerProposal,
        )
    ]
    return counts + [
        sorted(Mark.objects.values_list("pk", "points", "comment")),
        sorted(Competition.objects.values_list("pk", "public_board")),
    ]


@pytest.mark.parametrize("username", ["organizer", "chair", "juror1"])
def test_a_post_without_a_csrf_token_is_refused_everywhere(demo, username):
    user = get_user_model().objects.get(username=username)
    paper = Paper.objects.filter(assignments__juror__username="juror1").first()
    criterion = rubric_current(paper.problem).criteria.first()
    values = {
        "slug": "demo",
        "code": paper.code,
        "criterion_id": criterion.pk,
        "number": paper.problem.number,
        "problem_id": paper.problem_id,
        "task_number": 1,
        "item_number": 1,
        "proposal_id": 1,
        "task_id": "0" * 32,
        "fmt": "csv",
        "table": "systems",
        "name": "scatter",
        "system_id": 1,
        "family": "markdown",
        "action": "comment",
        # A set-password link: the user id in base 64 and a token (not a valid one).
        "uidb64": "MQ",
        "token": "set-password",
    }
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    before = _state()
    posted = 0
    for name, pattern in project_routes():
        if name.startswith("admin:"):
            continue
        kwargs = {key: values[key] for key in pattern.pattern.converters}
        url = reverse(name, kwargs=kwargs)
        response = client.post(url, {"text": "x", "points": "1", "reason": "x", "comment": "x"})
        # Refused by the CSRF check itself, before any role check or method check of the view.
        assert response.status_code == 403, (name, url, response.status_code)
        assert b"CSRF verification failed" in response.content, (name, url)
        posted += 1
    assert posted >= 30
    assert _state() == before

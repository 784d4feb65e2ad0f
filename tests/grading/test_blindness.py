"""Every route, swept as a juror who has not submitted: no other juror's marks, no
system identity, and no state change by GET."""

from __future__ import annotations

import os

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.urls import reverse

from grading.models import (
    AnswerProposal,
    Assignment,
    DiscussionComment,
    Mark,
    ObservationTag,
    Paper,
    ProblemJury,
    Resolution,
)
from grading.services import rubric_current
from puzzles.models import System
from tests.routes import project_routes

pytestmark = pytest.mark.django_db


def _state():
    return [
        m.objects.count()
        for m in (
            Mark,
            Assignment,
            Resolution,
            DiscussionComment,
            ProblemJury,
            ObservationTag,
            Paper,
            AnswerProposal,
        )
    ] + [sorted(Mark.objects.values_list("pk", "points", "comment"))]


@pytest.fixture
def blind_juror(db):
    call_command("demo", stdout=open(os.devnull, "w"))
    paper = Paper.objects.get(problem__number=1, comments__isnull=False)
    juror = get_user_model().objects.get(username="juror4")
    Assignment.objects.create(paper=paper, juror=juror)
    criterion = rubric_current(paper.problem).criteria.get(code="1c")
    secrets = [
        c
        for c in Mark.objects.filter(assignment__paper=paper).values_list("comment", flat=True)
        if c
    ]
    secrets += list(DiscussionComment.objects.filter(paper=paper).values_list("text", flat=True))
    secrets += list(System.objects.values_list("name", flat=True))
    return juror, paper, criterion, secrets


def _kwargs(pattern, paper, criterion):
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
    return {name: values[name] for name in pattern.pattern.converters}


def test_every_route_keeps_a_juror_blind(client, blind_juror):
    juror, paper, criterion, secrets = blind_juror
    assert secrets
    client.force_login(juror)
    swept = 0
    for name, pattern in project_routes():
        if name.startswith("admin:") or name in ("logout", "login"):
            continue
        url = reverse(name, kwargs=_kwargs(pattern, paper, criterion))
        before = _state()
        response = client.get(url)
        assert _state() == before, f"GET {url} changed the database"
        for method in ("get", "post"):
            response = getattr(client, method)(url, {"text": "x", "points": "", "reason": "x"})
            body = (
                response.content.decode("utf-8", "replace")
                if response.get("Content-Type", "").startswith(("text/", "application/json"))
                else ""
            )
            for secret in secrets:
                assert secret not in body, f"{method.upper()} {url} shows {secret!r}"
            assert response.status_code in (200, 302, 403, 404, 405, 422), (
                method,
                url,
                response.status_code,
            )
        swept += 1
    assert swept >= 25
    # The juror's probes left nothing on the paper's threads.
    assert not DiscussionComment.objects.filter(author=juror).exists()


CHAIR_ROUTES = ("grading:chair_overview", "grading:sheet_next", "grading:sheet_decide")


def test_jurors_who_are_not_chairs_are_refused_the_chairs_routes(client, blind_juror):
    """The chair's overview, next discrepancy and decisions from the sheet: a juror who is
    no chair gets 403 or 404 (never marks, names or a decision), with htmx or without."""
    juror, paper, criterion, secrets = blind_juror
    for username in (juror.username, "juror1"):
        client.force_login(get_user_model().objects.get(username=username))
        for name in CHAIR_ROUTES:
            pattern = next(p for n, p in project_routes() if n == name)
            url = reverse(name, kwargs=_kwargs(pattern, paper, criterion))
            for headers in ({}, {"HTTP_HX_REQUEST": "true"}):
                for method in ("get", "post"):
                    response = getattr(client, method)(
                        url, {"points": "1", "reason": "x"}, **headers
                    )
                    assert response.status_code in (403, 404, 405), (username, method, url)
                    body = response.content.decode("utf-8", "replace")
                    assert not any(secret in body for secret in secrets), url
    assert not Resolution.objects.filter(reason="x").exists()

"""Every route, swept as a juror who has not submitted: no other juror's marks, no
system identity, and no state change by GET."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.urls import reverse
from django.utils import timezone

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
from ioleval.roles import ORGANIZER
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
def blind_juror(demo):
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


# --- the chair's one rule (grading.access): every chair route, while grading and after --------

# Every route of grading/views/chair.py, with a request that would read or act. `act`: the
# chair alone may (an organizer reads the sheet and the overview, acts on nothing).
CHAIR_REQUESTS = [
    ("grading:sheet", "get", {}, False, False),
    ("grading:chair_overview", "get", {}, False, False),
    ("grading:thread", "get", {}, False, False),
    ("grading:sheet_next", "get", {}, True, False),
    ("grading:sheet_next", "get", {}, True, True),
    ("grading:sheet_decide", "get", {}, True, True),
    ("grading:sheet_decide", "post", {"points": "1", "reason": "rule"}, True, False),
    ("grading:sheet_decide", "post", {"points": "1", "reason": "rule"}, True, True),
    ("grading:thread_post", "post", {"points": "1", "reason": "rule"}, True, False),
    ("grading:tolerance", "post", {"tolerance": "0.5"}, True, False),
    ("grading:finalize", "post", {}, True, False),
    ("grading:finalize", "post", {"reopen": "1"}, True, False),
]


@pytest.fixture
def chair_grading(demo):
    """The demo's chair with an unsubmitted paper of problem 1, whose discrepant criterion
    1c of another paper is open."""
    paper = Paper.objects.get(problem__number=1, comments__isnull=False)
    criterion = rubric_current(paper.problem).criteria.get(code="1c")
    chair = get_user_model().objects.get(username="chair")
    other = Paper.objects.filter(problem=paper.problem).exclude(pk=paper.pk).first()
    own = Assignment.objects.create(paper=other, juror=chair)
    return chair, paper, criterion, own


def _chair_url(name, paper, criterion):
    pattern = next(p for n, p in project_routes() if n == name)
    kwargs = _kwargs(pattern, paper, criterion)
    if name == "grading:thread_post":
        kwargs["action"] = "decide"
    return reverse(name, kwargs=kwargs)


def _chair_state():
    return [
        sorted(Resolution.objects.values_list("paper_id", "criterion_id", "points", "reason")),
        sorted(ProblemJury.objects.values_list("problem_id", "tolerance", "finalized_at")),
    ]


def test_the_chair_requests_cover_every_route_of_the_chair():
    from grading.views import chair as chair_views

    routes = {n for n, p in project_routes() if p.callback.__module__ == chair_views.__name__}
    assert routes == {name for name, *_ in CHAIR_REQUESTS}


@pytest.mark.parametrize(
    ("name", "method", "data", "act", "htmx"),
    CHAIR_REQUESTS,
    ids=[
        f"{n}-{m}{'-htmx' if h else ''}{'-' + next(iter(d)) if d else ''}"
        for n, m, d, _, h in CHAIR_REQUESTS
    ],
)
def test_every_chair_route_waits_until_the_chair_grades_none_of_the_problem(
    client, chair_grading, name, method, data, act, htmx
):
    """A chair who still grades a paper of a problem can neither read its sheet and threads
    nor decide, change its tolerance, finalize or reopen it, from any route; once the paper is
    submitted, every route lets the chair through. An organizer who is no chair reads and
    never acts."""
    chair, paper, criterion, own = chair_grading
    url = _chair_url(name, paper, criterion)
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    client.force_login(chair)
    before = _chair_state()
    response = getattr(client, method)(url, data, **headers)
    assert response.status_code == 403, (url, response.status_code)
    assert "submit them first" in response.content.decode()  # the page says why
    assert _chair_state() == before
    own.submitted_at = timezone.now()
    own.save(update_fields=["submitted_at"])
    response = getattr(client, method)(url, data, **headers)
    assert response.status_code in (200, 302), (url, response.status_code)
    organizer = get_user_model().objects.create_user("organizer-only")
    organizer.groups.add(Group.objects.get(name=ORGANIZER))
    client.force_login(organizer)
    before = _chair_state()
    response = getattr(client, method)(url, data, **headers)
    assert response.status_code == (403 if act else 200), (url, response.status_code)
    assert _chair_state() == before


def test_a_chair_who_graded_the_paper_cannot_decide_it_while_grading_another(client, chair_grading):
    """The chair submitted its own copy of the discrepant paper (so its thread opens to it as
    a juror) but still grades another paper of the problem: no decision from the thread."""
    chair, paper, criterion, _ = chair_grading
    Assignment.objects.create(paper=paper, juror=chair, submitted_at=timezone.now())
    client.force_login(chair)
    page = client.get(reverse("grading:thread", args=[paper.code, criterion.pk]))
    assert page.status_code == 200
    body = page.content.decode()
    assert "Chair&#x27;s decision</h2>" not in body and "Chair's decision</h2>" not in body
    assert "submit them first" in body
    response = client.post(
        reverse("grading:thread_post", args=[paper.code, criterion.pk, "decide"]),
        {"points": "1", "reason": "while grading"},
    )
    assert response.status_code == 403
    assert not Resolution.objects.filter(reason="while grading").exists()

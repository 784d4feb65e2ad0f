"""Concurrent saves on PostgreSQL: two jurors and the chair at once lose no write."""

from __future__ import annotations

import threading
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from grading.errors import GradingError
from grading.models import Assignment, DiscussionComment, Mark, ProblemJury
from grading.services import mark_revise, rubric_current
from tests.concurrency import run_concurrently

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("postgres_only")]


def _client(username):
    client = Client()
    client.force_login(get_user_model().objects.get(username=username))
    return client


def test_two_jurors_and_the_chair_lose_no_write(demo):
    User = get_user_model()
    assignment = Assignment.objects.filter(
        paper__problem__number=2, submitted_at__isnull=True
    ).first()
    paper = assignment.paper
    second = User.objects.exclude(pk=assignment.juror_id).get(username="juror4")
    other = Assignment.objects.create(paper=paper, juror=second)
    criteria = list(rubric_current(paper.problem).criteria.order_by("order"))
    first_client = _client(assignment.juror.username)
    second_client = _client(second.username)
    chair_client = _client("chair")
    submitted = (
        Assignment.objects.filter(submitted_at__isnull=False).select_related("paper").first()
    )
    thread_criterion = rubric_current(submitted.paper.problem).criteria.first()

    def grade(client, code, points):
        def job():
            for criterion in criteria:
                for value in ("0", str(points)):  # two saves per criterion, the last one wins
                    response = client.post(
                        reverse("grading:mark", args=[code, criterion.pk]),
                        {"points": value, "comment": f"c{criterion.code}"},
                        HTTP_HX_REQUEST="true",
                    )
                    assert response.status_code == 200, response.content

        return job

    def chair_posts():
        for index in range(10):
            response = chair_client.post(
                reverse(
                    "grading:thread_post",
                    args=[submitted.paper.code, thread_criterion.pk, "comment"],
                ),
                {"text": f"note {index}"},
            )
            assert response.status_code == 302

    run_concurrently(
        [grade(first_client, paper.code, 1), grade(second_client, paper.code, 2), chair_posts]
    )

    for a, expected in ((assignment, Decimal(1)), (other, Decimal(2))):
        marks = {m.criterion_id: m for m in Mark.objects.filter(assignment=a)}
        assert len(marks) == len(criteria)
        assert all(m.points == expected for m in marks.values())
    assert DiscussionComment.objects.filter(author__username="chair").count() == 10


def test_same_assignment_from_many_tabs_saves_every_criterion(demo):
    assignment = (
        Assignment.objects.filter(paper__problem__number=2, submitted_at__isnull=True)
        .exclude(marks__isnull=False)
        .first()
    )
    criteria = list(rubric_current(assignment.paper.problem).criteria.order_by("order"))
    clients = [_client(assignment.juror.username) for _ in criteria]

    def save(client, criterion):
        def job():
            response = client.post(
                reverse("grading:mark", args=[assignment.paper.code, criterion.pk]),
                {"points": str(criterion.step)},
                HTTP_HX_REQUEST="true",
            )
            assert response.status_code == 200, response.content

        return job

    run_concurrently([save(c, criterion) for c, criterion in zip(clients, criteria, strict=True)])
    assert Mark.objects.filter(assignment=assignment, points__isnull=False).count() == len(criteria)


def test_tabs_creating_the_same_mark_at_once_make_one_mark(demo):
    # Every tab waits for the assignment's lock; the ones that get it after the first must
    # see the mark the first created (a fresh read) rather than insert a second one.
    assignment = (
        Assignment.objects.filter(paper__problem__number=2, submitted_at__isnull=True)
        .exclude(marks__isnull=False)
        .first()
    )
    criterion = rubric_current(assignment.paper.problem).criteria.order_by("order").first()
    clients = [_client(assignment.juror.username) for _ in range(6)]

    def save(client, index):
        def job():
            response = client.post(
                reverse("grading:mark", args=[assignment.paper.code, criterion.pk]),
                {"points": str(criterion.step), "comment": f"tab {index}"},
                HTTP_HX_REQUEST="true",
            )
            assert response.status_code == 200, response.content

        return job

    run_concurrently([save(c, i) for i, c in enumerate(clients)])
    mark = Mark.objects.get(assignment=assignment, criterion=criterion)
    assert mark.points == criterion.step
    history = list(mark.history.order_by("history_date"))
    assert len(history) == len(clients)
    assert [h.history_type for h in history] == ["+"] + ["~"] * (len(clients) - 1)
    assert mark.comment == history[-1].comment


def test_a_revision_waits_for_a_finalization_under_way_and_is_refused(demo):
    assignment = (
        Assignment.objects.filter(submitted_at__isnull=False)
        .select_related("paper__problem")
        .first()
    )
    mark = Mark.objects.filter(assignment=assignment).select_related("criterion").first()
    # No jury row yet (as in the demo): the finalization creates it, as problem_finalize does.
    ProblemJury.objects.filter(problem=assignment.paper.problem).delete()
    locked, release = threading.Event(), threading.Event()
    outcome: list[str] = []

    def finalize():
        with transaction.atomic():
            jury = ProblemJury.objects.select_for_update().get_or_create(
                problem=assignment.paper.problem
            )[0]
            locked.set()
            release.wait(10)
            jury.finalized_at = timezone.now()
            jury.save()

    def revise():
        locked.wait(10)
        try:
            mark_revise(assignment=assignment, criterion=mark.criterion, points="0", reason="late")
            outcome.append("revised")
        except GradingError as exc:
            outcome.append(exc.message)

    def releaser():
        locked.wait(10)
        threading.Event().wait(0.5)  # let the revision reach the lock and wait there
        release.set()

    run_concurrently([finalize, revise, releaser])
    assert outcome == [
        f"problem {assignment.paper.problem.number} is finalized; the chair must reopen it first"
    ]
    assert Mark.objects.get(pk=mark.pk).points == mark.points


def test_a_tolerance_change_waits_for_a_finalization_under_way_and_is_refused():
    """The tolerance takes the jury row like every chair action: set while a finalization
    held it, it is refused once that commits (before: it read "open" without the lock,
    then wrote the tolerance of a finalized problem as soon as the lock was let go)."""
    from grading.services import problem_set_tolerance
    from tests.concurrency import during_finalization
    from tests.grading.factories import ChairFactory, ProblemJuryFactory

    jury_row = ProblemJuryFactory(tolerance=Decimal("0"))
    problem = jury_row.problem
    chair = ChairFactory()

    def tolerance():
        problem_set_tolerance(problem=problem, tolerance=Decimal("1"), chair=chair)
        return "set"

    outcome = during_finalization(problem, tolerance)
    assert outcome == [f"problem {problem.number} is finalized; the chair must reopen it first"]
    assert ProblemJury.objects.get(problem=problem).tolerance == Decimal("0")

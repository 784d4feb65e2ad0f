"""New papers and assignments against a finalization under way (PostgreSQL): they wait for
the problem's jury row and are refused, or left out, once it is finalized."""

from __future__ import annotations

import threading

import pytest
from django.db import transaction
from django.utils import timezone

from grading.errors import GradingError
from grading.models import Assignment, Paper, ProblemJury
from grading.services import jurors_assign, papers_create
from tests.concurrency import run_concurrently
from tests.grading.factories import PaperFactory, ProblemJurorFactory, ProblemJuryFactory
from tests.puzzles.factories import ProblemFactory, SystemFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("postgres_only")]


def _during_finalization(problem, act) -> list[str]:
    """Run `act` while a finalization of the problem holds its jury row, and return what it
    said: "done", or its refusal."""
    locked, release = threading.Event(), threading.Event()
    outcome: list[str] = []

    def finalize():
        with transaction.atomic():
            jury = ProblemJury.objects.select_for_update().get(problem=problem)
            locked.set()
            release.wait(10)
            jury.finalized_at = timezone.now()
            jury.save()

    def acting():
        locked.wait(10)
        try:
            outcome.append(act())
        except GradingError as exc:
            outcome.append(exc.message)

    def releaser():
        locked.wait(10)
        threading.Event().wait(0.5)  # let the act reach the lock and wait there
        release.set()

    run_concurrently([finalize, acting, releaser])
    return outcome


def test_a_new_paper_waits_for_a_finalization_under_way_and_is_refused():
    """Before: papers_create read "open" without the lock and added a paper to a problem
    whose finalization had just counted it complete."""
    problem = ProblemFactory(number=1)
    ProblemJuryFactory(problem=problem)
    system = SystemFactory(competition=problem.competition, name="Late")

    def act() -> str:
        papers_create(competition=problem.competition, system_names=[system.name])
        return "done"

    outcome = _during_finalization(problem, act)
    assert outcome == ["problem 1 is finalized; the chair must reopen it first"]
    assert not Paper.objects.exists()


def test_an_assignment_waits_for_a_finalization_under_way_and_leaves_the_problem_out():
    """Before: jurors_assign read the finalized problems without the lock and gave a juror a
    paper of a problem finalized just then."""
    problem = ProblemFactory(number=1)
    ProblemJuryFactory(problem=problem)
    PaperFactory(problem=problem)
    ProblemJurorFactory(problem=problem)

    def act() -> str:
        report = jurors_assign(competition=problem.competition, per_paper=1)
        return f"{report.created} created, finalized {report.finalized}"

    outcome = _during_finalization(problem, act)
    assert outcome == ["0 created, finalized [1]"]
    assert not Assignment.objects.exists()

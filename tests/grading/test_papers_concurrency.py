"""New papers and assignments against a finalization under way (PostgreSQL): they wait for
the problem's jury row and are refused, or left out, once it is finalized."""

from __future__ import annotations

import pytest

from grading.models import Assignment, Paper
from grading.services import jurors_assign, papers_create
from tests.concurrency import during_finalization
from tests.grading.factories import PaperFactory, ProblemJurorFactory, ProblemJuryFactory
from tests.puzzles.factories import ProblemFactory, SystemFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("postgres_only")]


def test_a_new_paper_waits_for_a_finalization_under_way_and_is_refused():
    """Before: papers_create read "open" without the lock and added a paper to a problem
    whose finalization had just counted it complete."""
    problem = ProblemFactory(number=1)
    ProblemJuryFactory(problem=problem)
    system = SystemFactory(competition=problem.competition, name="Late")

    def act() -> str:
        papers_create(competition=problem.competition, system_names=[system.name])
        return "done"

    outcome = during_finalization(problem, act)
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

    outcome = during_finalization(problem, act)
    assert outcome == ["0 created, finalized [1]"]
    assert not Assignment.objects.exists()

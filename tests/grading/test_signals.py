"""grading.signals: a finalization is announced once it has committed, never before, and
not at all when it rolls back; a listener that fails then does not undo it."""

from __future__ import annotations

import pytest
from django.db import transaction

from grading.models import ProblemJury
from grading.services import problem_finalize
from grading.signals import problem_finalized
from tests.grading.review.builders import review_competition

pytestmark = pytest.mark.django_db


@pytest.fixture
def heard():
    calls = []

    def listen(sender, *, problem, **kwargs):
        calls.append((sender, problem.pk))

    problem_finalized.connect(listen, dispatch_uid="tests.grading.test_signals")
    yield calls
    problem_finalized.disconnect(dispatch_uid="tests.grading.test_signals")


def test_a_finalization_is_announced_on_commit(heard, django_capture_on_commit_callbacks):
    built = review_competition(finalize=False)
    problem = built.problems[1]
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        problem_finalize(problem=problem, chair=built.chair)
        assert heard == []  # not inside the transaction
    assert len(callbacks) == 1
    assert heard == [(ProblemJury, problem.pk)]


def test_a_finalization_that_rolls_back_is_not_announced(heard, django_capture_on_commit_callbacks):
    built = review_competition(finalize=False)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with transaction.atomic():
            problem_finalize(problem=built.problems[1], chair=built.chair)
            transaction.set_rollback(True)
    assert callbacks == [] and heard == []
    assert ProblemJury.objects.get(problem=built.problems[1]).finalized_at is None

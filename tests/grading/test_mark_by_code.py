"""The autosave's entry: the juror's own paper by code, a criterion of its current rubric."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from grading.errors import GradingError
from grading.models import Assignment, Criterion, Mark, ProblemJury
from grading.services import mark_save_by_code, rubric_current
from tests.grading.factories import AssignmentFactory, JurorFactory, PaperFactory, rubric_with
from tests.puzzles.factories import ProblemFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def draft(db):
    """A juror's open paper of a problem with a rubric, beside another problem with a rubric
    of its own, and a juror (juror4) without the paper."""
    paper = PaperFactory()
    rubric_with(paper.problem, ("2a", 2, "0.5"), ("2b", 3, "0.5"), ("2c", 2, "0.5"))
    rubric_with(ProblemFactory(competition=paper.problem.competition), ("1a", 3, "0.5"))
    JurorFactory(username="juror4")
    return AssignmentFactory(paper=paper)


def test_saves_a_draft_mark(draft):
    criterion = rubric_current(draft.paper.problem).criteria.order_by("order").last()
    mark = mark_save_by_code(
        juror=draft.juror,
        code=draft.paper.code,
        criterion_id=criterion.pk,
        points="1.5",
        comment="ok",
    )
    assert Mark.objects.get(pk=mark.pk).points == Decimal("1.5")
    assert mark.history.first().history_user == draft.juror


def test_a_strangers_paper_does_not_exist(draft):
    stranger = get_user_model().objects.get(username="juror4")
    assert not Assignment.objects.filter(paper=draft.paper, juror=stranger).exists()
    criterion = rubric_current(draft.paper.problem).criteria.first()
    with pytest.raises(Assignment.DoesNotExist):
        mark_save_by_code(
            juror=stranger, code=draft.paper.code, criterion_id=criterion.pk, points="1"
        )


def test_criteria_of_other_problems_or_old_versions_are_refused(draft):
    other = Criterion.objects.exclude(rubric__problem=draft.paper.problem).first()
    with pytest.raises(GradingError, match="not a criterion of this paper"):
        mark_save_by_code(
            juror=draft.juror, code=draft.paper.code, criterion_id=other.pk, points="1"
        )
    old = rubric_current(draft.paper.problem)
    old_criterion = old.criteria.first()
    old.pk = None
    old.version += 1
    old.save()  # a newer, empty version: the old criterion is no longer current
    # The juror's page still shows the old version: the save says so (it used to say "not a
    # criterion of this paper", as if the page had been forged).
    with pytest.raises(GradingError, match="the rubric has changed: reload"):
        mark_save_by_code(
            juror=draft.juror, code=draft.paper.code, criterion_id=old_criterion.pk, points="1"
        )


def test_a_criterion_a_replaced_rubric_deleted_says_the_rubric_changed(draft):
    criterion = rubric_current(draft.paper.problem).criteria.first()
    gone = criterion.pk
    Mark.objects.filter(criterion=criterion).delete()
    criterion.delete()
    with pytest.raises(GradingError, match="the rubric has changed: reload"):
        mark_save_by_code(juror=draft.juror, code=draft.paper.code, criterion_id=gone, points="1")


def _first_criterion(assignment):
    criterion = rubric_current(assignment.paper.problem).criteria.order_by("order").first()
    Mark.objects.filter(assignment=assignment, criterion=criterion).delete()
    return criterion


def test_a_missing_comment_keeps_the_saved_one(draft):
    criterion = _first_criterion(draft)
    save = dict(juror=draft.juror, code=draft.paper.code, criterion_id=criterion.pk)
    mark_save_by_code(**save, points="", comment="keep me")
    mark = mark_save_by_code(**save, points=str(criterion.step))
    stored = Mark.objects.get(pk=mark.pk)
    assert (stored.points, stored.comment) == (criterion.step, "keep me")
    assert [h.history_type for h in stored.history.order_by("history_date")] == ["+", "~"]


@pytest.mark.parametrize("points", ["-1", "99", "0.3", "abc"])
def test_invalid_points_save_nothing(draft, points):
    criterion = _first_criterion(draft)
    with pytest.raises(GradingError, match=criterion.code + "|number"):
        mark_save_by_code(
            juror=draft.juror, code=draft.paper.code, criterion_id=criterion.pk, points=points
        )
    assert not Mark.objects.filter(assignment=draft, criterion=criterion).exists()


def test_submitted_papers_and_finalized_problems_are_refused(draft):
    criterion = _first_criterion(draft)
    save = dict(juror=draft.juror, code=draft.paper.code, criterion_id=criterion.pk, points="0")
    ProblemJury.objects.update_or_create(
        problem=draft.paper.problem, defaults={"finalized_at": timezone.now()}
    )
    with pytest.raises(GradingError, match="is finalized"):
        mark_save_by_code(**save)
    Assignment.objects.filter(pk=draft.pk).update(submitted_at=timezone.now())
    with pytest.raises(GradingError, match="is submitted"):
        mark_save_by_code(**save)
    assert not Mark.objects.filter(assignment=draft, criterion=criterion).exists()


def test_points_are_stored_as_written_to_cents(draft):
    criterion = _first_criterion(draft)
    save = dict(juror=draft.juror, code=draft.paper.code, criterion_id=criterion.pk)
    mark = mark_save_by_code(**save, points="0E-20000")  # zero, at a scale no column holds
    assert mark.points == Decimal("0.00") and mark.points.as_tuple().exponent == -2
    assert Mark.objects.get(pk=mark.pk).points == 0


@pytest.mark.parametrize("criterion_id", [0, 2**63, 10**30])
def test_criterion_ids_no_database_holds_are_refused(draft, criterion_id):
    with pytest.raises(GradingError, match="not a criterion of this paper"):
        mark_save_by_code(
            juror=draft.juror, code=draft.paper.code, criterion_id=criterion_id, points="0"
        )

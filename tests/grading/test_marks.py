"""Marks: drafts, submission, revision, the chair's decision, finalization, threads, tags."""

from __future__ import annotations

from decimal import Decimal

import pytest

from grading.errors import GradingError
from grading.models import DiscussionComment, Mark, ObservationTag, PaperTag, Resolution
from grading.selectors import comparison_sheet, problem_jury
from grading.services import (
    DEFAULT_TAGS,
    assignment_submit,
    comment_post,
    criterion_decide,
    mark_revise,
    mark_save,
    problem_finalize,
    problem_reopen,
    problem_set_tolerance,
    tags_ensure_defaults,
    tags_set,
)
from tests.grading.factories import (
    AssignmentFactory,
    ChairFactory,
    JurorFactory,
    ObservationTagFactory,
    OrganizerFactory,
    PaperFactory,
    rubric_with,
)
from tests.puzzles.factories import CompetitionFactory, ProblemFactory

D = Decimal


class Jury:
    """One problem with criteria a (max 2, step 0.5) and b (max 3, step 1), one paper, two
    jurors assigned to it, a chair."""

    def __init__(self):
        self.competition = CompetitionFactory(slug="marks")
        self.problem = ProblemFactory(competition=self.competition, number=1)
        rubric = rubric_with(self.problem, ("a", 2, "0.5"), ("b", 3, 1))
        self.a = rubric.criteria.get(code="a")
        self.b = rubric.criteria.get(code="b")
        self.paper = PaperFactory(problem=self.problem)
        self.j1, self.j2 = JurorFactory(), JurorFactory()
        self.chair = ChairFactory()
        self.as1 = AssignmentFactory(paper=self.paper, juror=self.j1)
        self.as2 = AssignmentFactory(paper=self.paper, juror=self.j2)

    def grade(self, assignment, a, b, *, submit=True):
        mark_save(assignment=assignment, criterion=self.a, points=a)
        mark_save(assignment=assignment, criterion=self.b, points=b)
        if submit:
            assignment_submit(assignment=assignment)
        assignment.refresh_from_db()
        return assignment

    def cells(self) -> dict[str, object]:
        _, rows = comparison_sheet(self.problem)
        return {c.criterion.code: c.state for c in rows[0].cells}


@pytest.fixture
def jury(db) -> Jury:
    return Jury()


# --- mark_save ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "stored"),
    [("1.5", D("1.5")), ("1,5", D("1.5")), (" 2 ", D("2")), ("0", D("0")), (D("0.5"), D("0.5"))],
)
def test_mark_save_accepts_values_in_range_and_on_step(jury, given, stored):
    mark = mark_save(assignment=jury.as1, criterion=jury.a, points=given, comment="fine")
    mark.refresh_from_db()
    assert mark.points == stored
    assert mark.comment == "fine"
    assert mark.history.first().history_user == jury.j1


@pytest.mark.parametrize(
    ("criterion", "given", "words"),
    [
        ("a", "2.5", "outside 0..2"),
        ("a", "-0.5", "outside"),
        ("a", "0.3", "not a multiple of 0.5"),
        ("a", "1,25", "not a multiple"),
        ("b", "1.5", "not a multiple of 1"),
        ("b", "4", "outside 0..3"),
    ],
)
def test_mark_save_refuses_out_of_range_or_off_step_naming_the_criterion(
    jury, criterion, given, words
):
    with pytest.raises(GradingError) as caught:
        mark_save(assignment=jury.as1, criterion=getattr(jury, criterion), points=given)
    assert caught.value.message.startswith(f"{criterion}: ")
    assert words in caught.value.message
    assert caught.value.field == "points"
    assert not Mark.objects.exists()


@pytest.mark.parametrize("given", ["abc", "NaN", "Infinity", "1.5.0"])
def test_mark_save_refuses_what_is_not_a_number(jury, given):
    with pytest.raises(GradingError) as caught:
        mark_save(assignment=jury.as1, criterion=jury.a, points=given)
    assert "not a number" in caught.value.message
    assert not Mark.objects.exists()


@pytest.mark.parametrize(
    "given,words",
    [
        ("1E+1000000000", "outside 0..2"),  # formatting it would overflow
        ("9E+999999", "outside 0..2"),  # a million digits if written out
        ("1E-1000050", "not a multiple of 0.5"),  # % step underflows to 0
        ("0.500000001", "not a multiple of 0.5"),
    ],
)
def test_extreme_points_are_refused_with_a_short_message(jury, given, words):
    with pytest.raises(GradingError) as caught:
        mark_save(assignment=jury.as1, criterion=jury.a, points=given)
    assert words in caught.value.message
    assert len(caught.value.message) < 80
    assert not Mark.objects.exists()


def test_refused_value_keeps_the_previous_one(jury):
    mark_save(assignment=jury.as1, criterion=jury.a, points="1", comment="first")
    with pytest.raises(GradingError):
        mark_save(assignment=jury.as1, criterion=jury.a, points="9", comment="second")
    mark = Mark.objects.get()
    assert mark.points == D("1")
    assert mark.comment == "first"


@pytest.mark.parametrize("blank", ["", "  ", None])
def test_blank_points_are_a_draft(jury, blank):
    mark = mark_save(assignment=jury.as1, criterion=jury.a, points=blank, comment="thinking")
    mark.refresh_from_db()
    assert mark.points is None
    assert mark.comment == "thinking"


def test_saving_again_updates_one_mark(jury):
    mark_save(assignment=jury.as1, criterion=jury.a, points="1")
    mark_save(assignment=jury.as1, criterion=jury.a, points="1,5")
    mark_save(assignment=jury.as1, criterion=jury.a, points="")
    assert Mark.objects.count() == 1
    mark = Mark.objects.get()
    assert mark.points is None
    # The first record is the row's creation, before the points are set.
    assert [h.points for h in mark.history.order_by("history_id")][-3:] == [D("1"), D("1.5"), None]


def test_comment_none_keeps_the_comment(jury):
    mark_save(assignment=jury.as1, criterion=jury.a, points="1", comment="kept")
    mark_save(assignment=jury.as1, criterion=jury.a, points="2", comment=None)
    assert Mark.objects.get().comment == "kept"


def test_mark_on_submitted_assignment_is_refused(jury):
    jury.grade(jury.as1, "1", "2")
    with pytest.raises(GradingError) as caught:
        mark_save(assignment=jury.as1, criterion=jury.a, points="2")
    assert "submitted" in caught.value.message
    assert caught.value.field == "points"
    assert Mark.objects.get(criterion=jury.a).points == D("1")


def test_criterion_of_another_problem_is_refused(jury):
    other = ProblemFactory(competition=jury.competition, number=2)
    foreign = rubric_with(other, ("x", 2, "0.5")).criteria.get()
    with pytest.raises(GradingError) as caught:
        mark_save(assignment=jury.as1, criterion=foreign, points="1")
    # The autosave knows the criterion by id only: the message names no code, the field it.
    assert (caught.value.field, caught.value.message) == (
        "criterion",
        "not a criterion of this paper",
    )
    assert not Mark.objects.exists()


def test_criterion_of_an_old_rubric_version_is_refused(jury):
    newer = rubric_with(jury.problem, ("a", 2, "0.5"), version=2)
    assert newer.pk != jury.a.rubric_id
    with pytest.raises(GradingError) as caught:
        mark_save(assignment=jury.as1, criterion=jury.a, points="1")
    assert caught.value.field == "criterion"
    assert not Mark.objects.exists()


# --- submit ----------------------------------------------------------------------------------


def test_submit_refuses_while_a_criterion_is_unmarked(jury):
    with pytest.raises(GradingError) as caught:
        assignment_submit(assignment=jury.as1)
    assert caught.value.message == "not marked yet: a, b"
    mark_save(assignment=jury.as1, criterion=jury.a, points="1")
    mark_save(assignment=jury.as1, criterion=jury.b, points="")
    with pytest.raises(GradingError) as caught:
        assignment_submit(assignment=jury.as1)
    assert caught.value.message == "not marked yet: b"
    jury.as1.refresh_from_db()
    assert not jury.as1.is_submitted


def test_submit_locks_the_marks(jury):
    submitted = jury.grade(jury.as1, "1", "0")
    assert submitted.is_submitted
    for criterion in (jury.a, jury.b):
        with pytest.raises(GradingError):
            mark_save(assignment=jury.as1, criterion=criterion, points="")
    with pytest.raises(GradingError) as caught:
        assignment_submit(assignment=jury.as1)
    assert "already submitted" in caught.value.message


def test_submit_without_rubric_is_refused(db):
    paper = PaperFactory()
    assignment = AssignmentFactory(paper=paper)
    with pytest.raises(GradingError) as caught:
        assignment_submit(assignment=assignment)
    assert "no rubric" in caught.value.message


# --- revise ----------------------------------------------------------------------------------


def test_revise_requires_a_submitted_paper(jury):
    jury.grade(jury.as1, "1", "2", submit=False)
    with pytest.raises(GradingError) as caught:
        mark_revise(assignment=jury.as1, criterion=jury.a, points="2", reason="discussed")
    assert "submit" in caught.value.message
    assert Mark.objects.get(assignment=jury.as1, criterion=jury.a).points == D("1")


@pytest.mark.parametrize("reason", ["", "   "])
def test_revise_requires_a_reason(jury, reason):
    jury.grade(jury.as1, "1", "2")
    with pytest.raises(GradingError) as caught:
        mark_revise(assignment=jury.as1, criterion=jury.a, points="2", reason=reason)
    assert caught.value.field == "reason"
    assert Mark.objects.get(assignment=jury.as1, criterion=jury.a).points == D("1")


def test_revise_records_reason_and_user_in_the_history(jury):
    jury.grade(jury.as1, "1", "2")
    mark = mark_revise(
        assignment=jury.as1, criterion=jury.a, points="1,5", reason="  after discussion  "
    )
    mark.refresh_from_db()
    assert mark.points == D("1.5")
    latest = mark.history.first()
    assert latest.history_change_reason == "after discussion"
    assert latest.history_user == jury.j1
    assert latest.points == D("1.5")
    assert [h.points for h in mark.history.order_by("history_id")][-2:] == [D("1"), D("1.5")]
    jury.as1.refresh_from_db()
    assert jury.as1.is_submitted


@pytest.mark.parametrize("given", ["", "2.5", "0.25"])
def test_revise_validates_points(jury, given):
    jury.grade(jury.as1, "1", "2")
    with pytest.raises(GradingError):
        mark_revise(assignment=jury.as1, criterion=jury.a, points=given, reason="r")
    assert Mark.objects.get(assignment=jury.as1, criterion=jury.a).points == D("1")


def test_revision_settles_a_discrepancy(jury):
    jury.grade(jury.as1, "1", "2")
    jury.grade(jury.as2, "2", "2")
    assert jury.cells()["a"].status == "discrepant"
    mark_revise(assignment=jury.as1, criterion=jury.a, points="2", reason="agreed in thread")
    assert jury.cells()["a"].status == "agreed"
    assert jury.cells()["a"].final == D("2")


# --- decide ----------------------------------------------------------------------------------


def test_decide_requires_the_chair_role(jury):
    jury.grade(jury.as1, "1", "2")
    jury.grade(jury.as2, "2", "2")
    with pytest.raises(GradingError) as caught:
        criterion_decide(
            paper=jury.paper, criterion=jury.a, points="1.5", reason="mine", chair=jury.j1
        )
    assert "chair" in caught.value.message
    assert not Resolution.objects.exists()


@pytest.mark.parametrize("reason", ["", " "])
def test_decide_requires_a_reason(jury, reason):
    with pytest.raises(GradingError) as caught:
        criterion_decide(
            paper=jury.paper, criterion=jury.a, points="1.5", reason=reason, chair=jury.chair
        )
    assert caught.value.field == "reason"
    assert not Resolution.objects.exists()


@pytest.mark.parametrize("given", ["", "3", "0.2"])
def test_decide_validates_points(jury, given):
    with pytest.raises(GradingError):
        criterion_decide(
            paper=jury.paper, criterion=jury.a, points=given, reason="r", chair=jury.chair
        )
    assert not Resolution.objects.exists()


def test_decision_settles_a_discrepancy_and_can_be_changed(jury):
    jury.grade(jury.as1, "1", "2")
    jury.grade(jury.as2, "2", "2")
    resolution = criterion_decide(
        paper=jury.paper, criterion=jury.a, points="1,5", reason="middle", chair=jury.chair
    )
    assert resolution.kind == Resolution.Kind.CHAIR
    assert resolution.decided_by == jury.chair
    assert jury.cells()["a"].status == "decided"
    assert jury.cells()["a"].final == D("1.5")
    criterion_decide(
        paper=jury.paper, criterion=jury.a, points="2", reason="second look", chair=jury.chair
    )
    resolution = Resolution.objects.get()
    assert resolution.points == D("2")
    assert resolution.reason == "second look"
    assert resolution.history.first().history_change_reason == "second look"
    assert resolution.history.first().history_user == jury.chair


def test_decide_waits_for_a_submitted_mark(jury):
    jury.grade(jury.as1, "1", "2", submit=False)
    with pytest.raises(GradingError, match="nothing to decide"):
        criterion_decide(
            paper=jury.paper, criterion=jury.a, points="2", reason="early", chair=jury.chair
        )
    assert not Resolution.objects.exists()
    assignment_submit(assignment=jury.as1)
    criterion_decide(paper=jury.paper, criterion=jury.a, points="2", reason="ok", chair=jury.chair)
    assert Resolution.objects.get().points == D("2")


def test_decide_criterion_of_another_problem_is_refused(jury):
    other = ProblemFactory(competition=jury.competition, number=2)
    foreign = rubric_with(other, ("x", 2, "0.5")).criteria.get()
    with pytest.raises(GradingError):
        criterion_decide(
            paper=jury.paper, criterion=foreign, points="1", reason="r", chair=jury.chair
        )


# --- finalize ----------------------------------------------------------------------------------


def test_finalize_refuses_while_cells_are_pending(jury):
    jury.grade(jury.as1, "1", "2")
    with pytest.raises(GradingError) as caught:
        problem_finalize(problem=jury.problem, chair=jury.chair)
    message = caught.value.message
    assert message.startswith("2 unresolved")
    assert f"{jury.paper.code} a (pending)" in message
    assert f"{jury.paper.code} b (pending)" in message
    assert not problem_jury(jury.problem).finalized_at


def test_finalize_refuses_while_discrepancies_remain(jury):
    jury.grade(jury.as1, "1", "2")
    jury.grade(jury.as2, "2", "2")
    with pytest.raises(GradingError) as caught:
        problem_finalize(problem=jury.problem, chair=jury.chair)
    assert caught.value.message == f"1 unresolved: {jury.paper.code} a (discrepant)"
    assert not problem_jury(jury.problem).finalized_at


def test_finalize_succeeds_when_agreed_or_decided(jury):
    jury.grade(jury.as1, "1", "2")
    jury.grade(jury.as2, "2", "2")
    criterion_decide(paper=jury.paper, criterion=jury.a, points="1", reason="r", chair=jury.chair)
    finalized = problem_finalize(problem=jury.problem, chair=jury.chair)
    assert finalized.finalized_at is not None
    assert finalized.finalized_by == jury.chair
    with pytest.raises(GradingError) as caught:
        problem_finalize(problem=jury.problem, chair=jury.chair)
    assert "already finalized" in caught.value.message


def test_tolerance_lets_close_marks_agree(jury):
    jury.grade(jury.as1, "1.5", "2")
    jury.grade(jury.as2, "2", "2")
    problem_set_tolerance(problem=jury.problem, tolerance=D("0.5"), chair=jury.chair)
    assert jury.cells()["a"].status == "agreed"
    assert jury.cells()["a"].final == D("2")
    problem_finalize(problem=jury.problem, chair=jury.chair)


def test_a_finalized_problem_keeps_its_tolerance_until_reopened(jury):
    jury.grade(jury.as1, "1.5", "2")
    jury.grade(jury.as2, "2", "2")
    problem_set_tolerance(problem=jury.problem, tolerance=D("0.5"), chair=jury.chair)
    problem_finalize(problem=jury.problem, chair=jury.chair)
    with pytest.raises(GradingError, match="finalized; the chair must reopen it first"):
        problem_set_tolerance(problem=jury.problem, tolerance=D("0"), chair=jury.chair)
    assert problem_jury(jury.problem).tolerance == D("0.5")
    assert jury.cells()["a"].final == D("2")


@pytest.mark.parametrize("tolerance", [D("-0.5"), D("NaN")])
def test_invalid_tolerance_is_refused(jury, tolerance):
    with pytest.raises(GradingError):
        problem_set_tolerance(problem=jury.problem, tolerance=tolerance, chair=jury.chair)


def test_finalize_refuses_a_problem_without_papers(db):
    chair = ChairFactory()
    problem = ProblemFactory()
    rubric_with(problem, ("a", 2, "0.5"))
    with pytest.raises(GradingError) as caught:
        problem_finalize(problem=problem, chair=chair)
    assert "no papers" in caught.value.message


def test_finalize_refuses_a_problem_without_rubric(db):
    chair = ChairFactory()
    paper = PaperFactory()
    with pytest.raises(GradingError) as caught:
        problem_finalize(problem=paper.problem, chair=chair)
    assert "no rubric" in caught.value.message


def test_only_the_chair_finalizes_and_reopens(jury):
    jury.grade(jury.as1, "2", "2")
    jury.grade(jury.as2, "2", "2")
    with pytest.raises(GradingError):
        problem_finalize(problem=jury.problem, chair=jury.j1)
    problem_finalize(problem=jury.problem, chair=jury.chair)
    with pytest.raises(GradingError):
        problem_reopen(problem=jury.problem, chair=jury.j1)
    assert problem_jury(jury.problem).finalized_at is not None


def test_finalized_problem_refuses_saves_revisions_and_decisions(jury):
    jury.grade(jury.as1, "2", "2")
    jury.grade(jury.as2, "2", "2")
    draft = AssignmentFactory(paper=jury.paper, juror=JurorFactory())
    # The third juror's draft keeps cells pending, so the chair decides both first.
    for criterion in (jury.a, jury.b):
        criterion_decide(
            paper=jury.paper, criterion=criterion, points="2", reason="r", chair=jury.chair
        )
    problem_finalize(problem=jury.problem, chair=jury.chair)
    with pytest.raises(GradingError) as caught:
        mark_save(assignment=draft, criterion=jury.a, points="1")
    assert "finalized" in caught.value.message
    with pytest.raises(GradingError):
        assignment_submit(assignment=draft)
    with pytest.raises(GradingError):
        mark_revise(assignment=jury.as1, criterion=jury.a, points="1", reason="late")
    with pytest.raises(GradingError):
        criterion_decide(
            paper=jury.paper, criterion=jury.a, points="1", reason="late", chair=jury.chair
        )
    assert not Mark.objects.filter(assignment=draft).exists()
    assert Mark.objects.get(assignment=jury.as1, criterion=jury.a).points == D("2")
    assert Resolution.objects.get(criterion=jury.a).points == D("2")


def test_reopen_lets_marks_change_again(jury):
    jury.grade(jury.as1, "2", "2")
    jury.grade(jury.as2, "2", "2")
    problem_finalize(problem=jury.problem, chair=jury.chair)
    reopened = problem_reopen(problem=jury.problem, chair=jury.chair)
    assert reopened.finalized_at is None
    assert reopened.finalized_by is None
    mark_revise(assignment=jury.as1, criterion=jury.a, points="1.5", reason="reopened")
    assert Mark.objects.get(assignment=jury.as1, criterion=jury.a).points == D("1.5")


# --- threads and tags ------------------------------------------------------------------------


def test_comment_post_adds_to_the_thread(jury):
    comment = comment_post(paper=jury.paper, criterion=jury.a, author=jury.j1, text="  why 1?  ")
    assert comment.text == "why 1?"
    assert DiscussionComment.objects.filter(paper=jury.paper, criterion=jury.a).count() == 1
    jury.grade(jury.as1, "1", "2")
    jury.grade(jury.as2, "2", "2")
    _, rows = comparison_sheet(jury.problem)
    assert {c.criterion.code: c.comments for c in rows[0].cells} == {"a": 1, "b": 0}


def test_finalized_problem_refuses_comments_and_tags(jury):
    jury.grade(jury.as1, "2", "2")
    jury.grade(jury.as2, "2", "2")
    tag = ObservationTagFactory(competition=jury.competition)
    problem_finalize(problem=jury.problem, chair=jury.chair)
    with pytest.raises(GradingError, match="finalized"):
        comment_post(paper=jury.paper, criterion=jury.a, author=jury.j1, text="late")
    with pytest.raises(GradingError, match="finalized"):
        tags_set(assignment=jury.as1, tag_ids=[tag.pk])
    assert not DiscussionComment.objects.exists()
    assert not PaperTag.objects.exists()


def test_comment_post_refuses_empty_text_and_foreign_criteria(jury):
    with pytest.raises(GradingError):
        comment_post(paper=jury.paper, criterion=jury.a, author=jury.j1, text="  ")
    other = ProblemFactory(competition=jury.competition, number=2)
    foreign = rubric_with(other, ("x", 2, "0.5")).criteria.get()
    with pytest.raises(GradingError):
        comment_post(paper=jury.paper, criterion=foreign, author=jury.j1, text="hi")
    assert not DiscussionComment.objects.exists()


def test_tags_ensure_defaults_creates_the_seven_defaults_once(jury):
    tags_ensure_defaults(competition=jury.competition)
    tags_ensure_defaults(competition=jury.competition)
    names = list(
        ObservationTag.objects.filter(competition=jury.competition)
        .order_by("order")
        .values_list("name", flat=True)
    )
    assert len(DEFAULT_TAGS) == 7
    assert names == list(DEFAULT_TAGS)


def test_tags_ensure_defaults_keeps_a_competitions_own_tags(jury):
    ObservationTagFactory(competition=jury.competition, name="own")
    tags_ensure_defaults(competition=jury.competition)
    assert list(
        ObservationTag.objects.filter(competition=jury.competition).values_list("name", flat=True)
    ) == ["own"]


def test_tags_set_replaces_a_jurors_tags(jury):
    tags_ensure_defaults(competition=jury.competition)
    tags = list(ObservationTag.objects.filter(competition=jury.competition).order_by("order"))
    tags_set(assignment=jury.as1, tag_ids=[tags[0].pk, tags[2].pk])
    tags_set(assignment=jury.as2, tag_ids=[tags[0].pk])
    assert set(
        PaperTag.objects.filter(assignment=jury.as1).values_list("tag__name", flat=True)
    ) == {
        DEFAULT_TAGS[0],
        DEFAULT_TAGS[2],
    }
    tags_set(assignment=jury.as1, tag_ids=[tags[2].pk, tags[3].pk])
    assert set(
        PaperTag.objects.filter(assignment=jury.as1).values_list("tag__name", flat=True)
    ) == {
        DEFAULT_TAGS[2],
        DEFAULT_TAGS[3],
    }
    tags_set(assignment=jury.as1, tag_ids=[])
    assert not PaperTag.objects.filter(assignment=jury.as1).exists()
    assert PaperTag.objects.filter(assignment=jury.as2).count() == 1


def test_tags_set_refuses_tags_of_another_competition(jury):
    foreign = ObservationTagFactory()
    own = ObservationTagFactory(competition=jury.competition)
    tags_set(assignment=jury.as1, tag_ids=[own.pk])
    with pytest.raises(GradingError) as caught:
        tags_set(assignment=jury.as1, tag_ids=[own.pk, foreign.pk])
    assert caught.value.field == "tags"
    assert list(PaperTag.objects.values_list("tag_id", flat=True)) == [own.pk]


def test_every_chair_service_refuses_a_chair_still_grading_the_problem(jury):
    """The rule of grading/access.py holds in the services, for every caller (a command, a
    new view), not only on the chair's web routes: a chair with a paper of the problem still
    open neither decides, nor sets the tolerance, nor finalizes or reopens."""
    jury.grade(jury.as1, "1", "2")
    jury.grade(jury.as2, "2", "2")
    own = AssignmentFactory(paper=PaperFactory(problem=jury.problem), juror=jury.chair)
    reason = (
        f"you still grade papers of problem {jury.problem.number}: submit them first, then"
        " its sheet, decisions, tolerance and finalizing open to you"
    )
    acts = {
        "decide": lambda: criterion_decide(
            paper=jury.paper, criterion=jury.a, points="1", reason="r", chair=jury.chair
        ),
        "tolerance": lambda: problem_set_tolerance(
            problem=jury.problem, tolerance=D("1"), chair=jury.chair
        ),
        "finalize": lambda: problem_finalize(problem=jury.problem, chair=jury.chair),
        "reopen": lambda: problem_reopen(problem=jury.problem, chair=jury.chair),
    }
    for name, act in acts.items():
        with pytest.raises(GradingError) as caught:
            act()
        assert caught.value.message == reason, name
    assert not Resolution.objects.exists()
    assert problem_jury(jury.problem).tolerance == D("0")
    assert problem_jury(jury.problem).finalized_at is None
    # An organizer who is no chair reads the sheet but acts on nothing.
    organizer = OrganizerFactory()
    with pytest.raises(GradingError) as caught:
        problem_set_tolerance(problem=jury.problem, tolerance=D("1"), chair=organizer)
    assert caught.value.message == "only the chair acts on a problem"
    own.delete()  # graded no more: the chair acts
    criterion_decide(paper=jury.paper, criterion=jury.a, points="1", reason="r", chair=jury.chair)
    problem_set_tolerance(problem=jury.problem, tolerance=D("1"), chair=jury.chair)

"""The rules of the marks services at their edges: boundaries, the field each refusal names,
blank decisions and revisions, tag limits, and the row locks of submit, revise and decide."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from grading.errors import GradingError
from grading.models import (
    Assignment,
    Criterion,
    Mark,
    ObservationTag,
    PaperTag,
    ProblemJury,
    Resolution,
)
from grading.services import (
    DEFAULT_TAGS,
    assignment_submit,
    comment_post,
    criterion_decide,
    draft_points,
    mark_revise,
    mark_save,
    mark_save_by_code,
    points_parse,
    rubric_replace,
    rubric_specs,
    tags_configure,
    tags_ensure_defaults,
    tags_set,
)
from tests.grading.factories import ObservationTagFactory, rubric_with
from tests.grading.test_marks import Jury
from tests.puzzles.factories import ProblemFactory

D = Decimal


@pytest.fixture
def jury(db) -> Jury:
    return Jury()


def _criterion(maximum: str = "2", step: str = "0.5") -> Criterion:
    return Criterion(code="c", maximum=D(maximum), step=D(step))


def _refusal(call, *args, **kwargs) -> tuple[str, str]:
    with pytest.raises(GradingError) as caught:
        call(*args, **kwargs)
    return caught.value.field, caught.value.message


# --- points_parse and draft_points (no database) ----------------------------------------------


@pytest.mark.parametrize(
    ("given", "stored"),
    [("0", D("0")), ("2", D("2")), ("2.00", D("2")), (2, D("2")), (D("1.5"), D("1.5"))],
)
def test_points_at_both_ends_of_the_range_are_accepted(given, stored):
    points = points_parse(given, criterion=_criterion())
    assert points == stored
    assert points.as_tuple().exponent == -2  # as the column stores it


@pytest.mark.parametrize("given", ["2.5", "2.01", "-0.5", "-0.01"])
def test_points_just_outside_the_range_are_refused_naming_the_field(given):
    field, message = _refusal(points_parse, given, criterion=_criterion(), field="revised")
    assert field == "revised"
    assert message == f"c: {given} is outside 0..2"


@pytest.mark.parametrize("given", ["0.25", "1.01", "0.001"])
def test_points_off_the_step_are_refused_naming_the_step(given):
    field, message = _refusal(points_parse, given, criterion=_criterion())
    assert (field, message) == ("points", f"c: {given} is not a multiple of 0.5")


def test_the_step_of_one_cent_takes_every_cent():
    assert points_parse("0.01", criterion=_criterion(step="0.01")) == D("0.01")
    assert points_parse("1.99", criterion=_criterion(step="0.01")) == D("1.99")


@pytest.mark.parametrize("given", ["abc", "NaN", "sNaN", "Infinity", "-Infinity"])
def test_what_is_not_a_number_is_refused_naming_the_field(given):
    field, message = _refusal(points_parse, given, criterion=_criterion(), field="p")
    assert (field, message) == ("p", f"{given!r} is not a number")


def test_a_long_value_is_shown_cut_at_twenty_characters():
    twenty = "1" * 20
    assert (
        _refusal(points_parse, twenty, criterion=_criterion())[1] == f"c: {twenty} is outside 0..2"
    )
    longer = "1" * 21
    message = _refusal(points_parse, longer, criterion=_criterion())[1]
    assert message == f"c: {twenty}… is outside 0..2"
    assert _refusal(points_parse, "x" * 21, criterion=_criterion())[1] == (
        f"{'x' * 20 + '…'!r} is not a number"
    )


@pytest.mark.parametrize("blank", [None, "", " \t"])
def test_blank_points_parse_to_none(blank):
    assert points_parse(blank, criterion=_criterion()) is None


def test_a_decimal_comma_is_read_after_stripping():
    assert points_parse(" 1,5 ", criterion=_criterion()) == D("1.5")


def test_draft_rules_in_order_each_naming_its_field():
    rules = dict(submitted=False, finalized_number=None, criterion=_criterion(), points="1")
    assert draft_points(**rules) == D("1")
    assert draft_points(**{**rules, "points": ""}) is None
    assert _refusal(draft_points, **{**rules, "submitted": True, "finalized_number": 3}) == (
        "points",
        "this paper is submitted; change a mark through its discussion thread",
    )
    assert _refusal(draft_points, **{**rules, "finalized_number": 3, "criterion": None}) == (
        "problem",
        "problem 3 is finalized; the chair must reopen it first",
    )
    assert _refusal(draft_points, **{**rules, "criterion": None, "points": "x"}) == (
        "criterion",
        "not a criterion of this paper",
    )
    assert _refusal(draft_points, **{**rules, "criterion": None, "superseded": True}) == (
        "criterion",
        "the rubric has changed: reload the page to grade with its new version",
    )
    assert _refusal(draft_points, **{**rules, "points": "3"}) == ("points", "c: 3 is outside 0..2")


# --- the one path of a draft mark ---------------------------------------------------------------


def test_mark_save_and_the_autosave_store_the_same_mark(jury):
    mark_save(assignment=jury.as1, criterion=jury.a, points="1", comment="first")
    by_code = mark_save_by_code(
        juror=jury.j1, code=jury.paper.code, criterion_id=jury.a.pk, points="1,5"
    )
    mark = Mark.objects.get()
    assert (by_code.pk, mark.points, mark.comment) == (mark.pk, D("1.5"), "first")
    assert [h.history_user for h in mark.history.all()] == [jury.j1, jury.j1]
    assert [h.history_type for h in mark.history.order_by("history_id")] == ["+", "~"]


def test_a_new_mark_without_comment_has_an_empty_one(jury):
    mark = mark_save(assignment=jury.as1, criterion=jury.a, points="1")
    assert (mark.comment, Mark.objects.get().comment) == ("", "")


def test_the_largest_id_a_database_holds_is_a_criterion_like_any_other(jury):
    biggest = Criterion.objects.create(
        pk=2**63 - 1, rubric=jury.a.rubric, order=3, code="z", maximum=D("1"), step=D("1")
    )
    mark = mark_save_by_code(
        juror=jury.j1, code=jury.paper.code, criterion_id=biggest.pk, points="1"
    )
    assert Mark.objects.get(pk=mark.pk).criterion == biggest


def test_a_foreign_assignment_is_not_found_by_code(jury):
    with pytest.raises(Assignment.DoesNotExist):
        mark_save_by_code(juror=jury.j1, code="NOPE", criterion_id=jury.a.pk, points="1")


# --- submit, revise, decide: each refusal names its field ---------------------------------------


def test_submit_twice_names_the_submit_field(jury):
    jury.grade(jury.as1, "1", "2")
    assert _refusal(assignment_submit, assignment=jury.as1) == (
        "submit",
        "this paper is already submitted",
    )


def test_submit_counts_only_marks_with_points(jury):
    mark_save(assignment=jury.as1, criterion=jury.a, points="1")
    mark_save(assignment=jury.as1, criterion=jury.b, points="", comment="thinking")
    assert _refusal(assignment_submit, assignment=jury.as1) == ("submit", "not marked yet: b")


def test_submit_counts_only_marks_of_the_current_rubric(jury):
    jury.grade(jury.as1, "1", "2", submit=False)
    rubric_with(jury.problem, ("a", 2, "0.5"), ("c", 1, 1), version=2)
    field, message = _refusal(assignment_submit, assignment=jury.as1)
    assert (field, message) == ("submit", "not marked yet: a, c")


def test_submit_of_a_problem_without_rubric_names_the_submit_field(jury):
    jury.as1.paper.problem.rubrics.all().delete()
    assert _refusal(assignment_submit, assignment=jury.as1) == (
        "submit",
        "this problem has no rubric yet",
    )


def test_revise_refusals_name_their_fields(jury):
    jury.grade(jury.as1, "1", "2", submit=False)
    assert _refusal(mark_revise, assignment=jury.as1, criterion=jury.a, points="2", reason="r") == (
        "points",
        "submit the paper first; drafts are edited directly",
    )
    assignment_submit(assignment=jury.as1)
    other = ProblemFactory(competition=jury.competition, number=2)
    foreign = rubric_with(other, ("x", 2, "0.5")).criteria.get()
    assert _refusal(
        mark_revise, assignment=jury.as1, criterion=foreign, points="2", reason="r"
    ) == ("criterion", "x is not a criterion of this paper")
    assert _refusal(mark_revise, assignment=jury.as1, criterion=jury.a, points="2", reason=" ") == (
        "reason",
        "give a reason for the revision",
    )
    assert _refusal(mark_revise, assignment=jury.as1, criterion=jury.a, points="3", reason="r") == (
        "points",
        "a: 3 is outside 0..2",
    )
    assert Mark.objects.get(assignment=jury.as1, criterion=jury.a).points == D("1")


@pytest.mark.parametrize("blank", ["", "  ", None])
def test_a_blank_revision_is_refused_and_keeps_the_mark(jury, blank):
    jury.grade(jury.as1, "1", "2")
    assert _refusal(
        mark_revise, assignment=jury.as1, criterion=jury.a, points=blank, reason="r"
    ) == ("points", "a submitted mark cannot be blank")
    assert Mark.objects.get(assignment=jury.as1, criterion=jury.a).points == D("1")


@pytest.mark.parametrize("blank", ["", "  ", None])
def test_a_blank_decision_is_refused_with_a_clear_error(jury, blank):
    jury.grade(jury.as1, "1", "2")
    jury.grade(jury.as2, "2", "2")  # a submitted discrepancy: the blank reaches its own check
    assert _refusal(
        criterion_decide,
        paper=jury.paper,
        criterion=jury.a,
        points=blank,
        reason="r",
        chair=jury.chair,
    ) == ("points", "a decision needs points")
    assert not Resolution.objects.exists()


def test_decide_refusals_name_their_fields(jury):
    jury.grade(jury.as1, "1", "2")
    decide = dict(paper=jury.paper, criterion=jury.a, points="1.5", reason="r")
    assert _refusal(criterion_decide, **decide, chair=jury.j1) == (
        "points",
        "only the chair acts on a problem",  # grading/access.py, the one rule
    )
    assert _refusal(criterion_decide, **{**decide, "reason": " "}, chair=jury.chair) == (
        "reason",
        "give a reason for the decision",
    )
    assert _refusal(criterion_decide, **{**decide, "points": "0.3"}, chair=jury.chair) == (
        "points",
        "a: 0.3 is not a multiple of 0.5",
    )
    other = ProblemFactory(competition=jury.competition, number=2)
    foreign = rubric_with(other, ("x", 2, "0.5")).criteria.get()
    assert _refusal(criterion_decide, **{**decide, "criterion": foreign}, chair=jury.chair)[0] == (
        "criterion"
    )
    assert not Resolution.objects.exists()


def test_decide_counts_only_submitted_marks_with_points(jury):
    mark_save(assignment=jury.as1, criterion=jury.a, points="", comment="unsure")
    mark_save(assignment=jury.as1, criterion=jury.b, points="1")
    mark_save(assignment=jury.as2, criterion=jury.a, points="1")  # a draft: not counted
    # Submitted with a blank mark (as an import of old data could leave it).
    Assignment.objects.filter(pk=jury.as1.pk).update(submitted_at=timezone.now())
    decide = dict(paper=jury.paper, points="1", reason="r", chair=jury.chair)
    assert _refusal(criterion_decide, criterion=jury.a, **decide) == (
        "points",
        "no juror has submitted a mark for this yet: there is nothing to decide",
    )
    resolution = criterion_decide(criterion=jury.b, **decide)
    assert (resolution.paper, resolution.criterion, resolution.reason) == (jury.paper, jury.b, "r")


def test_a_decision_strips_its_reason_and_is_one_row_per_cell(jury):
    jury.grade(jury.as1, "1", "2")
    criterion_decide(paper=jury.paper, criterion=jury.a, points="1", reason=" x ", chair=jury.chair)
    criterion_decide(paper=jury.paper, criterion=jury.b, points="3", reason="y", chair=jury.chair)
    criterion_decide(paper=jury.paper, criterion=jury.a, points="2", reason="z", chair=jury.chair)
    rows = {r.criterion.code: (r.points, r.reason) for r in Resolution.objects.all()}
    assert rows == {"a": (D("2"), "z"), "b": (D("3"), "y")}
    first = Resolution.objects.get(criterion=jury.a).history.order_by("history_id").first()
    assert (first.reason, first.history_change_reason) == ("x", "x")


# --- comments and tags ------------------------------------------------------------------------


def test_comment_refusals_name_their_fields(jury):
    assert _refusal(
        comment_post, paper=jury.paper, criterion=jury.a, author=jury.j1, text=" \n "
    ) == ("text", "the comment is empty")
    other = ProblemFactory(competition=jury.competition, number=2)
    foreign = rubric_with(other, ("x", 2, "0.5")).criteria.get()
    assert _refusal(
        comment_post, paper=jury.paper, criterion=foreign, author=jury.j1, text="hi"
    ) == ("criterion", "x is not a criterion of this paper")


def test_a_tag_of_exactly_100_characters_is_kept(jury):
    name = "t" * 100
    tags = tags_configure(competition=jury.competition, names=[f" {name} "])
    assert [t.name for t in tags] == [name]
    assert ObservationTag.objects.get(competition=jury.competition).name == name


def test_a_tag_of_101_characters_is_refused(jury):
    assert _refusal(tags_configure, competition=jury.competition, names=["ok", "t" * 101]) == (
        "tags",
        "a tag is longer than 100 characters",
    )
    assert not ObservationTag.objects.exists()


def test_a_tag_listed_twice_is_refused(jury):
    assert _refusal(tags_configure, competition=jury.competition, names=["a", " a"]) == (
        "tags",
        "a tag is listed twice",
    )


def test_tags_configure_orders_drops_blanks_and_keeps_tags_in_use(jury):
    used, unused = (
        ObservationTagFactory(competition=jury.competition, name=n) for n in ("used", "unused")
    )
    tags_set(assignment=jury.as1, tag_ids=[used.pk])
    tags = tags_configure(competition=jury.competition, names=["new", " ", "kept"])
    assert [(t.name, t.order) for t in tags] == [("new", 0), ("kept", 1)]
    names = set(ObservationTag.objects.values_list("name", flat=True))
    assert names == {"new", "kept", "used"}  # used stays: a juror gave it
    assert not ObservationTag.objects.filter(pk=unused.pk).exists()
    again = tags_configure(competition=jury.competition, names=["kept", "new"])
    assert [t.pk for t in again] == [t.pk for t in reversed(tags)]  # the same rows, reordered
    stored = dict(
        ObservationTag.objects.filter(name__in=["kept", "new"]).values_list("name", "order")
    )
    assert stored == {"kept": 0, "new": 1}
    assert ObservationTag.objects.filter(name="new").count() == 1


def test_tags_set_refuses_an_unknown_tag_naming_the_field(jury):
    own = ObservationTagFactory(competition=jury.competition)
    assert _refusal(tags_set, assignment=jury.as1, tag_ids=[own.pk, 10**9]) == (
        "tags",
        "unknown observation tag",
    )
    assert tags_set(assignment=jury.as1, tag_ids=[own.pk, own.pk]) == [own]
    assert PaperTag.objects.get().tag == own


# --- row locks ----------------------------------------------------------------------------------

_LOCK = re.compile(r"\s*(FOR (?:NO KEY )?(?:UPDATE|SHARE).*)$", re.S)
_FROM = re.compile(r'\bFROM\s+"?(\w+)"?')
_PARENTHESES = re.compile(r"\([^()]*\)")


def _table(sql: str) -> str | None:
    """Return the table a statement reads from, outside its subqueries (the autosave's read
    has some in its select list)."""
    while (flat := _PARENTHESES.sub("", sql)) != sql:
        sql = flat
    found = _FROM.search(sql)
    return found[1] if found else None


@pytest.fixture
def row_locks(monkeypatch):
    """Record (table, lock clause) of every statement that locks rows, in order.

    On PostgreSQL the statements run as they are. SQLite has one writer and no row locks, so
    Django leaves FOR UPDATE out; here it is told it has them, and the clause is recorded and
    cut before the statement runs: the same assertions hold on both databases.
    """
    sqlite = connection.vendor == "sqlite"
    if sqlite:
        monkeypatch.setattr(connection.features, "has_select_for_update", True)
        monkeypatch.setattr(connection.features, "has_select_for_update_of", True)
    locks: list[tuple[str, str]] = []

    def record(execute, sql, params, many, context):
        found = _LOCK.search(sql)
        if found:
            locks.append((_table(sql), found[1].strip()))
            if sqlite:
                sql = sql[: found.start()]
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        yield locks


def _own(table: str) -> tuple[str, str]:
    return (table, f"FOR UPDATE OF {connection.ops.quote_name(table)}")


def _shared(table: str) -> tuple[str, str]:
    return (table, f"FOR SHARE OF {connection.ops.quote_name(table)}")


def test_a_draft_save_shares_the_jury_row_then_locks_its_assignment_only(jury, row_locks):
    """The order of grading/services/locks.py: the jury row (shared by autosaves, held
    exclusively by a new rubric version, a submit or a finalization), then the assignment."""
    ProblemJury.objects.get_or_create(problem=jury.paper.problem)
    mark_save(assignment=jury.as1, criterion=jury.a, points="1")
    assert row_locks == [_shared("grading_problemjury"), _own("grading_assignment")]


def test_a_draft_save_makes_the_jury_row_it_shares_when_there_is_none(jury, row_locks):
    ProblemJury.objects.filter(problem=jury.paper.problem).delete()
    mark_save(assignment=jury.as1, criterion=jury.a, points="1")
    assert ProblemJury.objects.filter(problem=jury.paper.problem).exists()
    assert row_locks[-2:] == [_shared("grading_problemjury"), _own("grading_assignment")]


def test_a_new_rubric_version_locks_the_jury_row_before_it_reads_a_mark(jury, row_locks):
    jury.grade(jury.as1, "1", "2", submit=False)
    row_locks.clear()
    with CaptureQueriesContext(connection) as captured:
        rubric_replace(
            problem=jury.paper.problem,
            specs=rubric_specs(
                problem=jury.paper.problem,
                criteria=[{"code": c.code, "title": "t", "maximum": 2} for c in (jury.a, jury.b)],
                where="test",
            ),
            new_version=True,
        )
    assert row_locks[0] == ("grading_problemjury", "FOR UPDATE")
    sqls = [q["sql"] for q in captured.captured_queries]
    first_lock = next(i for i, q in enumerate(sqls) if "grading_problemjury" in q and "FOR" in q)
    assert not any("grading_mark" in q for q in sqls[:first_lock])


def test_a_thread_post_locks_the_jury_row(jury, row_locks):
    comment_post(paper=jury.paper, criterion=jury.a, author=jury.j1, text="hm")
    assert row_locks == [("grading_problemjury", "FOR UPDATE")]


def test_submit_locks_the_jury_row_then_the_assignment_only(jury, row_locks):
    jury.grade(jury.as1, "1", "2", submit=False)
    row_locks.clear()
    assignment_submit(assignment=jury.as1)
    assert row_locks == [("grading_problemjury", "FOR UPDATE"), _own("grading_assignment")]


def test_revise_locks_the_jury_row_then_the_assignment_only(jury, row_locks):
    jury.grade(jury.as1, "1", "2")
    row_locks.clear()
    mark_revise(assignment=jury.as1, criterion=jury.a, points="2", reason="r")
    assert row_locks == [("grading_problemjury", "FOR UPDATE"), _own("grading_assignment")]


def test_decide_locks_the_jury_row_then_the_decision(jury, row_locks):
    jury.grade(jury.as1, "1", "2")
    row_locks.clear()
    criterion_decide(paper=jury.paper, criterion=jury.a, points="2", reason="r", chair=jury.chair)
    assert row_locks == [
        ("grading_problemjury", "FOR UPDATE"),
        ("grading_resolution", "FOR UPDATE"),
    ]


def _tables_read_after_the_lock(call, **kwargs) -> list[str]:
    with CaptureQueriesContext(connection) as captured:
        call(**kwargs)
    tables = [t for q in captured.captured_queries if (t := _table(q["sql"]))]
    return tables[tables.index("grading_assignment") + 1 :]


def test_submit_and_revise_read_the_locked_assignment_with_its_paper_and_juror(jury):
    """The locked read brings the paper, the problem and the juror: none is read again."""
    jury.grade(jury.as1, "1", "2", submit=False)
    again = {"grading_assignment", "grading_paper", "puzzles_problem", "auth_user"}
    after = _tables_read_after_the_lock(assignment_submit, assignment=jury.as1)
    assert "grading_rubric" in after and not again & set(after)
    after = _tables_read_after_the_lock(
        mark_revise, assignment=jury.as1, criterion=jury.a, points="2", reason="r"
    )
    assert "grading_mark" in after and not again & set(after)


def test_a_criterion_added_after_submission_is_marked_by_revision(jury):
    jury.grade(jury.as1, "1", "2")
    newer = rubric_with(jury.problem, ("a", 2, "0.5"), ("b", 3, 1), ("c", 1, 1), version=2)
    c = newer.criteria.get(code="c")
    mark = mark_revise(assignment=jury.as1, criterion=c, points="1", reason="new criterion")
    stored = Mark.objects.get(pk=mark.pk)
    assert (stored.assignment, stored.criterion, stored.points) == (jury.as1, c, D("1"))


def test_default_tags_are_numbered_in_their_order(jury):
    tags_ensure_defaults(competition=jury.competition)
    stored = ObservationTag.objects.filter(competition=jury.competition)
    assert dict(stored.values_list("name", "order")) == {n: i for i, n in enumerate(DEFAULT_TAGS)}

"""Rubrics: import from JSON, validation, in-place edits, new versions that carry marks over."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from grading.errors import GradingError
from grading.models import Assignment, Criterion, Mark, Resolution, Rubric
from grading.selectors import comparison_sheet, juror_papers
from grading.services import (
    criterion_decide,
    marks_rows,
    rubric_change_preview,
    rubric_current,
    rubrics_export,
    rubrics_import,
    rubrics_read,
)
from tests.grading.factories import ChairFactory, JurorFactory, PaperFactory, paper_graded
from tests.puzzles.factories import CompetitionFactory, ProblemFactory, TaskFactory

D = Decimal


@pytest.fixture
def competition(db):
    competition = CompetitionFactory(slug="rubrics")
    one = ProblemFactory(competition=competition, number=1)
    two = ProblemFactory(competition=competition, number=2)
    TaskFactory(problem=one, number=1, external_id="T1", answer_key=[["a"], ["b"], ["c"]])
    TaskFactory(problem=one, number=2, external_id="T1b", answer_key=[["d"]])
    TaskFactory(problem=two, number=1, external_id="T2", answer_key=[["a"], ["b"]])
    return competition


def problem(competition, number):
    return competition.problems.get(number=number)


def crit(code, maximum=2, step=0.5, **extra) -> dict:
    return {"code": code, "title": f"Criterion {code}", "maximum": maximum, "step": step, **extra}


def payload(rubrics: dict[int, list[dict]]) -> str:
    return json.dumps(
        {"problems": [{"problem": n, "criteria": c} for n, c in rubrics.items()]}, indent=2
    )


def codes(problem_) -> list[str]:
    return list(rubric_current(problem_).criteria.order_by("order").values_list("code", flat=True))


def snapshot(slug: str = "rubrics") -> list[tuple]:
    return sorted(
        Criterion.objects.filter(rubric__problem__competition__slug=slug).values_list(
            "rubric__problem__number", "rubric__version", "code", "maximum", "step", "title"
        )
    )


BASE = {
    1: [
        crit("1a", 3, 0.5, task="T1", items=[1, 2, 3], kind="assignment"),
        crit("1b", 2, 0.5, kind="theory", description="Names the prefixes."),
        crit("1c", 2, 1),
    ],
    2: [crit("2a", 4, 1, task="T2"), crit("2b", 1, 0.25, kind="theory")],
}


def import_base(competition, **kwargs):
    return rubrics_import(payload(BASE), competition=competition, file="rubric.json", **kwargs)


def graded_problem_one(competition):
    """Two jurors grade and submit one paper of problem 1; returns (paper, juror1, juror2)."""
    import_base(competition)
    paper = PaperFactory(problem=problem(competition, 1))
    j1, j2 = JurorFactory(), JurorFactory()
    paper_graded(
        paper,
        {
            j1: {"1a": "3", "1b": "2", "1c": "2"},
            j2: {"1a": "2.5", "1b": "2", "1c": "1"},
        },
    )
    return paper, j1, j2


# --- import ----------------------------------------------------------------------------------


def test_import_creates_version_one_for_several_problems(competition, organizer):
    results = import_base(competition, user=organizer)
    assert [(r.problem.number, r.version) for r, _ in results] == [(1, 1), (2, 1)]
    assert codes(problem(competition, 1)) == ["1a", "1b", "1c"]
    assert codes(problem(competition, 2)) == ["2a", "2b"]
    first = Criterion.objects.get(rubric__problem__number=1, code="1a")
    assert first.order == 1
    assert first.maximum == D("3")
    assert first.step == D("0.5")
    assert first.kind == Criterion.Kind.ASSIGNMENT
    assert first.task.external_id == "T1"
    assert first.items == [1, 2, 3]
    theory = Criterion.objects.get(rubric__problem__number=1, code="1b")
    assert theory.kind == Criterion.Kind.THEORY
    assert theory.description == "Names the prefixes."
    assert theory.task is None
    assert Criterion.objects.get(code="2b").step == D("0.25")
    assert rubric_current(problem(competition, 1)).created_by == organizer


def test_import_defaults_step_to_half_and_kind_to_assignment(competition):
    rubrics_import(
        json.dumps(
            {"problems": [{"problem": 1, "criteria": [{"code": "x", "title": "X", "maximum": 2}]}]}
        ),
        competition=competition,
    )
    criterion = Criterion.objects.get(code="x")
    assert criterion.step == D("0.5")
    assert criterion.kind == Criterion.Kind.ASSIGNMENT


def test_import_reads_a_file_path(competition, tmp_path):
    path = tmp_path / "rubrics.json"
    path.write_text(payload(BASE), encoding="utf-8")
    results = rubrics_import(path, competition=competition)
    assert len(results) == 2


def test_import_of_one_problem_leaves_the_others_alone(competition):
    import_base(competition)
    rubrics_import(payload({2: [crit("2z", 2, 1)]}), competition=competition)
    assert codes(problem(competition, 1)) == ["1a", "1b", "1c"]
    assert codes(problem(competition, 2)) == ["2z"]


# --- errors ----------------------------------------------------------------------------------


def bad(rubrics: dict[int, list[dict]]) -> str:
    return payload({**BASE, **rubrics})


@pytest.mark.parametrize(
    ("text", "field", "words"),
    [
        (bad({7: [crit("7a")]}), "problem", "7"),
        (bad({2: [crit("2a"), crit("2a", 1, 1)]}), "code", "2a"),
        (bad({2: [crit("2a", 2, 0.75)]}), "step", "0.75"),
        (bad({2: [crit("2a", 3, 2)]}), "step", "2"),
        (bad({2: [crit("2a", 0, 0.5)]}), "maximum", "more than 0"),
        (bad({2: [crit("2a", -1, 0.5)]}), "maximum", "more than 0"),
        (bad({2: [crit("2a", 2, 0)]}), "step", "step"),
        (bad({2: [crit("2a", "two", 0.5)]}), "maximum", "two"),
        (bad({2: [crit("2a", 2, 0.5, task="T1")]}), "task", "T1"),  # problem 1's task
        (bad({2: [crit("2a", 2, 0.5, task="nope")]}), "task", "nope"),
        (bad({2: [crit("2a", 2, 0.5, task="T2", items=[3])]}), "items", "2 items"),
        (bad({2: [crit("2a", 2, 0.5, task="T2", items=[0])]}), "items", "item numbers"),
        (bad({2: [crit("2a", 2, 0.5, task="T2", items="1")]}), "items", "item numbers"),
        (bad({2: [crit("2a", 2, 0.5, items=[1])]}), "items", "task"),
        (bad({2: [crit("2a", 2, 0.5, kind="essay")]}), "kind", "essay"),
        (bad({2: [{"code": "2a", "maximum": 2}]}), "title", "title"),
        (bad({2: [crit("2a", 2.125, 0.5)]}), "maximum", "2 decimals"),
        (bad({2: [crit("2a", 100000, 1)]}), "maximum", "under 10000"),
        (bad({2: [{**crit("2a"), "code": "  "}]}), "code", "missing"),
        (bad({2: [{**crit("2a"), "title": " "}]}), "title", "missing"),
        (json.dumps({"problems": [{"problem": [1], "criteria": [crit("1a")]}]}), "problem", "[1]"),
        (
            json.dumps({"problems": [{"problem": True, "criteria": [crit("1a")]}]}),
            "problem",
            "True",
        ),
        (bad({2: []}), "criteria", "at least one"),
        (json.dumps({"problems": [{"problem": 1, "criteria": "none"}]}), "criteria", "list"),
        (
            json.dumps({"problems": [{"problem": 1, "criteria": [crit("1a")]}] * 2}),
            "problem",
            "twice",
        ),
    ],
)
def test_invalid_rubric_names_file_and_field_and_writes_nothing(competition, text, field, words):
    with pytest.raises(GradingError) as caught:
        rubrics_import(text, competition=competition, file="jury/rubric.json")
    error = caught.value
    assert error.file.startswith("jury/rubric.json")
    assert error.field == field
    assert words in error.message
    assert "jury/rubric.json" in str(error) and f"field '{field}'" in str(error)
    assert not Rubric.objects.exists()
    assert not Criterion.objects.exists()


def test_error_names_the_problem_entry_and_criterion_position(competition):
    with pytest.raises(GradingError) as caught:
        rubrics_import(bad({2: [crit("2a"), crit("2b", 1, 0.3)]}), competition=competition)
    assert caught.value.file == "rubric.json, problems[2].criteria[2]"


def test_malformed_json_names_the_line(competition):
    text = '{"problems": [\n  {"problem": 1,\n   "criteria": [}\n]}'
    with pytest.raises(GradingError) as caught:
        rubrics_import(text, competition=competition, file="broken.json")
    assert caught.value.file == "broken.json"
    assert caught.value.line == 3
    assert "malformed JSON" in caught.value.message
    assert "broken.json, line 3" in str(caught.value)
    assert not Rubric.objects.exists()


def test_a_file_that_is_not_utf8_is_named(competition, tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes(
        b'{"problems": [{"problem": 1, "criteria": [{"title": "\xe9t\xe9"}]}]}'
    )  # Latin-1
    with pytest.raises(GradingError) as caught:
        rubrics_import(path, competition=competition)
    assert caught.value.file == str(path)
    assert "not UTF-8" in caught.value.message
    assert not Rubric.objects.exists()


def test_missing_file_is_named(competition, tmp_path):
    with pytest.raises(GradingError) as caught:
        rubrics_import(tmp_path / "absent.json", competition=competition)
    assert "absent.json" in caught.value.file


@pytest.mark.parametrize("text", ["[]", '{"rubrics": []}', '"text"', '{"problems": []}'])
def test_wrong_shape_is_refused(competition, text):
    with pytest.raises(GradingError) as caught:
        rubrics_import(text, competition=competition, file="shape.json")
    assert caught.value.file == "shape.json"
    assert not Rubric.objects.exists()


def test_criterion_code_longer_than_the_column_is_refused_as_a_grading_error(competition):
    # Criterion.code is max_length=40; a longer code must be refused by validation, not by
    # the database (PostgreSQL raises DataError) or silently stored (SQLite).
    long_code = "x" * 41
    with pytest.raises(GradingError) as caught:
        rubrics_import(payload({1: [crit(long_code)]}), competition=competition)
    assert caught.value.field == "code"
    assert not Criterion.objects.exists()


def test_error_in_a_later_problem_keeps_an_earlier_one_unchanged(competition):
    import_base(competition)
    before = snapshot()
    with pytest.raises(GradingError):
        rubrics_import(
            payload({1: [crit("new")], 2: [crit("2a", 2, 0.5, kind="essay")]}),
            competition=competition,
        )
    assert snapshot() == before


# --- re-import without marks ------------------------------------------------------------------


def test_reimport_without_marks_replaces_in_place(competition):
    import_base(competition)
    rubric = rubric_current(problem(competition, 1))
    results = rubrics_import(
        payload({1: [crit("1z", 5, 1), crit("1a", 1, 0.5)]}), competition=competition
    )
    ((replaced, change),) = results
    assert replaced.pk == rubric.pk
    assert replaced.version == 1
    assert Rubric.objects.filter(problem__number=1).count() == 1
    assert codes(problem(competition, 1)) == ["1z", "1a"]
    assert Criterion.objects.get(rubric=rubric, code="1a").maximum == D("1")
    assert not change.needs_new_version


def test_reimport_with_only_draft_blank_marks_is_in_place(competition):
    import_base(competition)
    paper = PaperFactory(problem=problem(competition, 1))
    paper_graded(paper, {JurorFactory(): {"1a": ""}}, submit=False)
    rubrics_import(payload({1: [crit("1a", 3, 0.5)]}), competition=competition)
    assert rubric_current(problem(competition, 1)).version == 1


# --- once marks exist --------------------------------------------------------------------------


def test_import_without_new_version_is_refused_once_a_mark_exists(competition):
    paper, j1, _ = graded_problem_one(competition)
    before = snapshot()
    marks = sorted(Mark.objects.values_list("pk", "criterion_id", "points"))
    with pytest.raises(GradingError) as caught:
        rubrics_import(payload({1: [crit("1a", 3, 0.5)]}), competition=competition)
    assert caught.value.field == "version"
    assert "new version" in caught.value.message
    assert snapshot() == before
    assert sorted(Mark.objects.values_list("pk", "criterion_id", "points")) == marks
    assert Rubric.objects.filter(problem__number=1).count() == 1


def test_a_single_draft_mark_already_freezes_the_rubric(competition):
    import_base(competition)
    paper = PaperFactory(problem=problem(competition, 1))
    paper_graded(paper, {JurorFactory(): {"1a": "1"}}, submit=False)
    with pytest.raises(GradingError):
        rubrics_import(payload({1: [crit("1a", 3, 0.5)]}), competition=competition)


def test_refusal_in_one_problem_leaves_other_problems_of_the_file_unchanged(competition):
    graded_problem_one(competition)
    before = snapshot()
    with pytest.raises(GradingError):
        rubrics_import(
            payload({2: [crit("2new", 1, 1)], 1: [crit("1a", 3, 0.5)]}), competition=competition
        )
    assert snapshot() == before


def test_new_version_carries_surviving_marks_over(competition):
    paper, j1, j2 = graded_problem_one(competition)
    old = rubric_current(problem(competition, 1))
    mark = Mark.objects.get(assignment__juror=j1, criterion__code="1b")
    history_before = mark.history.count()
    ((rubric, change),) = rubrics_import(
        payload({1: [crit("1a", 3, 0.5, task="T1"), crit("1b", 2, 0.5), crit("1c", 2, 1)]}),
        competition=competition,
        new_version=True,
    )
    assert rubric.version == 2
    assert rubric.pk != old.pk
    assert Rubric.objects.filter(problem__number=1).count() == 2
    mark.refresh_from_db()
    assert mark.criterion.rubric_id == rubric.pk
    assert mark.points == D("2")
    assert mark.history.count() == history_before + 1
    assert mark.history.first().history_change_reason == "rubric version 2"
    assert mark.history.last().criterion_id == Criterion.objects.get(rubric=old, code="1b").pk
    current = {
        (m.assignment.juror_id, m.criterion.code): m.points
        for m in Mark.objects.filter(criterion__rubric=rubric).select_related(
            "criterion", "assignment"
        )
    }
    assert current == {
        (j1.pk, "1a"): D("3"),
        (j1.pk, "1b"): D("2"),
        (j1.pk, "1c"): D("2"),
        (j2.pk, "1a"): D("2.5"),
        (j2.pk, "1b"): D("2"),
        (j2.pk, "1c"): D("1"),
    }
    # Nothing was added: the jurors' papers stay submitted.
    assert not Assignment.objects.filter(paper=paper, submitted_at__isnull=True).exists()


def test_new_version_drops_marks_of_removed_criteria(competition):
    paper, j1, j2 = graded_problem_one(competition)
    rubrics_import(
        payload({1: [crit("1a", 3, 0.5), crit("1b", 2, 0.5)]}),
        competition=competition,
        new_version=True,
    )
    current = rubric_current(problem(competition, 1))
    assert codes(problem(competition, 1)) == ["1a", "1b"]
    assert Mark.objects.filter(criterion__rubric=current).count() == 4
    criteria, rows = comparison_sheet(problem(competition, 1))
    assert [c.code for c in criteria] == ["1a", "1b"]
    assert [c.criterion.code for c in rows[0].cells] == ["1a", "1b"]
    # The service promises to drop them (docstring of rubric_replace; the preview says
    # "criterion 1c removed: 2 marks dropped"): they must not be exported as marks of the
    # paper nor count towards a juror's progress any more.
    _, rows = marks_rows(competition)
    assert [r for r in rows if r[2] == "1c"] == []
    for papers in juror_papers(j1).values():
        for entry in papers:
            assert entry.marked <= entry.criteria == 2, (entry.marked, entry.criteria)


def test_new_version_clears_marks_that_no_longer_fit(competition):
    paper, j1, j2 = graded_problem_one(competition)
    # 1a maximum 3 -> 2.5: juror1's 3 no longer fits, juror2's 2.5 does.
    # 1c step 1 -> 2 (maximum 2): juror2's 1 is off-step, juror1's 2 fits.
    ((rubric, change),) = rubrics_import(
        payload({1: [crit("1a", 2.5, 0.5), crit("1b", 2, 0.5), crit("1c", 2, 2)]}),
        competition=competition,
        new_version=True,
    )
    points = {
        (m.assignment.juror_id, m.criterion.code): m.points
        for m in Mark.objects.filter(criterion__rubric=rubric).select_related(
            "criterion", "assignment"
        )
    }
    assert points[(j1.pk, "1a")] is None
    assert points[(j2.pk, "1a")] == D("2.5")
    assert points[(j1.pk, "1c")] == D("2")
    assert points[(j2.pk, "1c")] is None
    assert change.invalid_marks == {"1a": 1, "1c": 1}
    # History keeps the cleared value.
    cleared = Mark.objects.get(assignment__juror=j1, criterion=rubric.criteria.get(code="1a"))
    assert [h.points for h in cleared.history.order_by("history_id")][-2:] == [D("3"), None]


def test_a_cleared_mark_keeps_its_cell_from_being_agreed(competition):
    paper, j1, j2 = graded_problem_one(competition)
    # 1a maximum 3 -> 2.5 clears juror1's 3; juror2's 2.5 remains.
    rubrics_import(
        payload({1: [crit("1a", 2.5, 0.5), crit("1b", 2, 0.5), crit("1c", 2, 1)]}),
        competition=competition,
        new_version=True,
    )
    _, rows = comparison_sheet(problem(competition, 1))
    cell = next(c for c in rows[0].cells if c.criterion.code == "1a")
    # Juror1 has no valid mark for 1a any more: the final mark must not be juror2's alone.
    assert cell.state.status == "pending", (cell.state, cell.marks)
    assert cell.state.final is None


def test_new_version_adding_criteria_reopens_submitted_papers(competition):
    paper, j1, j2 = graded_problem_one(competition)
    other = PaperFactory(problem=problem(competition, 1))
    draft = Assignment.objects.create(paper=other, juror=j1)
    ((rubric, change),) = rubrics_import(
        payload(
            {1: [crit("1a", 3, 0.5), crit("1b", 2, 0.5), crit("1c", 2, 1), crit("1d", 1, 0.5)]}
        ),
        competition=competition,
        new_version=True,
    )
    assert change.added == ["1d"]
    assert change.reopened == 2
    assert not Assignment.objects.filter(paper=paper, submitted_at__isnull=False).exists()
    draft.refresh_from_db()
    assert draft.submitted_at is None
    # Their marks survive the reopening.
    assert Mark.objects.filter(criterion__rubric=rubric, points__isnull=False).count() == 6


def test_new_version_keeps_chair_decisions_of_surviving_criteria(competition):
    paper, j1, j2 = graded_problem_one(competition)
    chair = ChairFactory()
    criterion = rubric_current(problem(competition, 1)).criteria.get(code="1c")
    criterion_decide(paper=paper, criterion=criterion, points="2", reason="full marks", chair=chair)
    ((rubric, _),) = rubrics_import(
        payload({1: [crit("1a", 3, 0.5), crit("1b", 2, 0.5), crit("1c", 2, 1)]}),
        competition=competition,
        new_version=True,
    )
    resolution = Resolution.objects.get(paper=paper)
    assert resolution.criterion.rubric_id == rubric.pk
    assert resolution.points == D("2")


def test_new_version_does_not_keep_a_decision_above_the_lowered_maximum(competition):
    paper, j1, j2 = graded_problem_one(competition)
    chair = ChairFactory()
    criterion = rubric_current(problem(competition, 1)).criteria.get(code="1c")
    criterion_decide(paper=paper, criterion=criterion, points="2", reason="full marks", chair=chair)
    rubrics_import(
        payload({1: [crit("1a", 3, 0.5), crit("1b", 2, 0.5), crit("1c", 1, 1)]}),
        competition=competition,
        new_version=True,
    )
    _, rows = comparison_sheet(problem(competition, 1))
    cell = next(c for c in rows[0].cells if c.criterion.code == "1c")
    # 1c is now worth at most 1: a final mark of 2 exceeds the criterion's maximum.
    assert cell.state.final is None or cell.state.final <= D("1"), cell.state


def test_third_version_counts_up(competition):
    graded_problem_one(competition)
    for expected in (2, 3):
        ((rubric, _),) = rubrics_import(
            payload({1: [crit("1a", 3, 0.5), crit("1b", 2, 0.5), crit("1c", 2, 1)]}),
            competition=competition,
            new_version=True,
        )
        assert rubric.version == expected
    assert Mark.objects.filter(criterion__rubric=rubric).count() == 6


# --- preview ---------------------------------------------------------------------------------


def test_preview_reports_added_removed_changed_and_invalid(competition):
    paper, j1, j2 = graded_problem_one(competition)
    specs = rubrics_read(
        payload(
            {
                1: [
                    crit("1a", 2.5, 0.5, task="T1", items=[1, 2, 3], kind="assignment"),
                    {**BASE[1][1], "title": "Reworded"},
                    crit("1e", 1, 1),
                ]
            }
        ),
        competition=competition,
    )[problem(competition, 1)]
    change = rubric_change_preview(problem=problem(competition, 1), specs=specs)
    assert change.marks == 6
    assert change.needs_new_version
    assert change.added == ["1e"]
    assert change.removed == {"1c": 2}
    assert change.changed == {"1a": "maximum 3.00 -> 2.5", "1b": "wording"}
    assert change.invalid_marks == {"1a": 1}
    assert change.reopened == 2
    lines = change.lines()
    assert "problem 1: 6 marks exist" in lines
    assert "new criterion 1e" in lines
    assert "criterion 1c removed: 2 marks dropped" in lines
    assert any("1a" in line and "cleared" in line for line in lines)
    assert "2 submitted papers reopen to grade new criteria" in lines
    # A preview writes nothing.
    assert rubric_current(problem(competition, 1)).version == 1


def test_preview_reports_changes_of_kind_task_items_and_the_suggestion(competition):
    """They were left out ("changes of task or items are not listed"): a criterion could
    change what it grades, and start or stop suggesting marks, with no word in the preview."""
    import_base(competition)
    specs = rubrics_read(
        payload(
            {
                1: [
                    crit("1a", 3, 0.5, task="T1", items=[1, 2], kind="assignment"),
                    {**BASE[1][1], "kind": "assignment"},
                    crit("1c", 2, 1, task="T1", items=[3], kind="assignment"),
                ]
            }
        ),
        competition=competition,
    )[problem(competition, 1)]
    change = rubric_change_preview(problem=problem(competition, 1), specs=specs)
    assert change.changed == {
        "1a": "items 1, 2, 3 -> 1, 2",
        "1b": "kind theory -> assignment",
        "1c": "task none -> T1, items none -> 3, suggestion none -> share",
    }
    assert "criterion 1b: kind theory -> assignment" in change.lines()


def test_preview_counts_comments_without_points_apart(competition):
    """A draft's comment without points was dropped with its criterion but not counted: the
    editor's preview said 4 marks where 8 went."""
    paper, j1, _ = graded_problem_one(competition)
    other = PaperFactory(problem=problem(competition, 1))
    assignment = Assignment.objects.create(paper=other, juror=j1)
    for code in ("1b", "1c"):
        criterion = rubric_current(problem(competition, 1)).criteria.get(code=code)
        Mark.objects.create(assignment=assignment, criterion=criterion, comment="unsure")
    specs = rubrics_read(payload({1: BASE[1][:2]}), competition=competition)[
        problem(competition, 1)
    ]
    lines = rubric_change_preview(problem=problem(competition, 1), specs=specs).lines()
    assert lines[0] == "problem 1: 6 marks exist, and 2 comments without points"
    assert "criterion 1c removed: 2 marks and 1 comments without points dropped" in lines


def test_preview_without_rubric_adds_everything(competition):
    specs = rubrics_read(payload({1: [crit("1a"), crit("1b")]}), competition=competition)[
        problem(competition, 1)
    ]
    change = rubric_change_preview(problem=problem(competition, 1), specs=specs)
    assert change.added == ["1a", "1b"]
    assert change.removed == {}
    assert change.marks == 0
    assert change.reopened == 0
    assert not change.needs_new_version


def test_preview_reports_a_step_change(competition):
    graded_problem_one(competition)
    specs = rubrics_read(
        payload({1: [*BASE[1][:2], crit("1c", 2, 2)]}),
        competition=competition,
    )[problem(competition, 1)]
    change = rubric_change_preview(problem=problem(competition, 1), specs=specs)
    assert change.changed == {"1c": "step 1.00 -> 2"}
    assert change.invalid_marks == {"1c": 1}
    assert change.added == [] and change.removed == {} and change.reopened == 0


# --- export ----------------------------------------------------------------------------------


def test_export_round_trips_through_import(competition):
    import_base(competition)
    exported = rubrics_export(competition)
    assert exported["competition"] == "rubrics"
    assert [p["problem"] for p in exported["problems"]] == [1, 2]
    assert exported["problems"][0]["criteria"][0] == {
        "code": "1a",
        "title": "Criterion 1a",
        "description": "",
        "kind": "assignment",
        "maximum": 3.0,
        "step": 0.5,
        "task": "T1",
        "items": [1, 2, 3],
    }
    before = snapshot()
    other = CompetitionFactory(slug="copy")
    for number, task_id, key in ((1, "T1", 3), (2, "T2", 2)):
        p = ProblemFactory(competition=other, number=number)
        TaskFactory(problem=p, number=1, external_id=task_id, answer_key=[["x"]] * key)
    rubrics_import(json.dumps(exported), competition=other, file="export.json")
    again = rubrics_export(other)
    assert again["problems"] == exported["problems"]
    # Re-importing into the original competition (no marks yet) changes nothing.
    rubrics_import(json.dumps(exported), competition=competition)
    assert snapshot() == before
    assert rubrics_export(competition) == exported


def test_export_shows_the_current_version_only(competition):
    graded_problem_one(competition)
    rubrics_import(payload({1: [crit("1a", 3, 0.5)]}), competition=competition, new_version=True)
    exported = rubrics_export(competition)
    first = exported["problems"][0]
    assert first["version"] == 2
    assert [c["code"] for c in first["criteria"]] == ["1a"]


def test_export_skips_problems_without_rubric(competition):
    rubrics_import(payload({2: [crit("2a", 1, 1)]}), competition=competition)
    assert [p["problem"] for p in rubrics_export(competition)["problems"]] == [2]

"""Marks in and out: CSV import of marks graded elsewhere, final marks, CSV and XLSX export."""

from __future__ import annotations

import csv
import io
import json
from decimal import Decimal

import openpyxl
import pytest
from django.contrib.auth import get_user_model

from grading.errors import GradingError
from grading.models import Assignment, Mark, Paper, ProblemJury, Resolution
from grading.selectors import comparison_sheet, problem_jury, rubric_current
from grading.services import (
    criterion_decide,
    mark_save,
    marks_csv,
    marks_import,
    marks_rows,
    marks_xlsx,
    problem_finalize,
    problem_reopen,
    rubrics_import,
)
from ioleval.roles import JUROR
from tests.grading.factories import (
    AssignmentFactory,
    ChairFactory,
    JurorFactory,
    PaperFactory,
    rubric_with,
)
from tests.puzzles.factories import CompetitionFactory, ProblemFactory, SystemFactory

D = Decimal
HEADER = "system,problem,criterion,juror,points,comment\n"


@pytest.fixture
def competition(db):
    competition = CompetitionFactory(slug="io")
    one = ProblemFactory(competition=competition, number=1)
    two = ProblemFactory(competition=competition, number=2)
    ProblemFactory(competition=competition, number=3)  # no rubric
    rubric_with(one, ("1a", 2, "0.5"), ("1b", 3, 1))
    rubric_with(two, ("2a", 4, 1))
    SystemFactory(competition=competition, name="Alpha")
    SystemFactory(competition=competition, name="Beta, Inc.")
    JurorFactory(username="alice")
    return competition


def run(competition, text, *, final=False, file="marks.csv"):
    return marks_import(competition=competition, stream=io.StringIO(text), file=file, final=final)


def state() -> dict[str, list]:
    return {
        "papers": sorted(Paper.objects.values_list("pk", "code")),
        "assignments": sorted(Assignment.objects.values_list("pk", "submitted_at")),
        "marks": sorted(Mark.objects.values_list("pk", "points", "comment")),
        "resolutions": sorted(Resolution.objects.values_list("pk", "points")),
        "users": sorted(get_user_model().objects.values_list("username", flat=True)),
        "finalized": sorted(ProblemJury.objects.values_list("problem_id", "finalized_at")),
    }


GOOD = (
    HEADER
    + "Alpha,1,1a,alice,1.5,clear\n"
    + "Alpha,1,1b,alice,2,\n"
    + 'Alpha,1,1a,bob,"1,5",same\n'
    + "Alpha,1,1b,bob,3,\n"
    + '"Beta, Inc.",2,2a,bob,4,"full marks, nothing missing"\n'
)


# --- marks -----------------------------------------------------------------------------------


def test_import_creates_new_papers_in_problem_order_whatever_the_file_order(competition):
    """Their foreign keys are checked at the commit in the order they were written, each
    taking its problem's key share lock: in number order, as every writer takes problems."""
    run(
        competition,
        HEADER + "Alpha,2,2a,alice,4,\nAlpha,1,1a,alice,2,\nAlpha,1,1b,alice,3,\n",
    )
    assert [p.problem.number for p in Paper.objects.order_by("pk")] == [1, 2]


def test_import_creates_papers_assignments_and_marks(competition):
    result = run(competition, GOOD)
    assert result.marks == 5
    assert result.finals == 0
    assert result.papers_created == 2
    assert result.users_created == ["bob"]
    marks = {
        (m.assignment.paper.system.name, m.criterion.code, m.assignment.juror.username): (
            m.points,
            m.comment,
        )
        for m in Mark.objects.select_related("assignment__paper__system", "assignment__juror")
    }
    assert marks == {
        ("Alpha", "1a", "alice"): (D("1.5"), "clear"),
        ("Alpha", "1b", "alice"): (D("2"), ""),
        ("Alpha", "1a", "bob"): (D("1.5"), "same"),
        ("Alpha", "1b", "bob"): (D("3"), ""),
        ("Beta, Inc.", "2a", "bob"): (D("4"), "full marks, nothing missing"),
    }
    assert Assignment.objects.count() == 3
    assert not Assignment.objects.filter(submitted_at__isnull=True).exists()
    for paper in Paper.objects.all():
        assert paper.code.startswith(f"P{paper.problem.number}-")
    mark = Mark.objects.get(assignment__juror__username="alice", criterion__code="1a")
    assert mark.history.first().history_change_reason == "imported from marks.csv"
    assert "new juror accounts (no password): bob" in result.lines()


def test_imported_marks_count_as_submitted_in_the_comparison_sheet(competition):
    run(competition, GOOD)
    _, rows = comparison_sheet(competition.problems.get(number=1))
    (row,) = rows
    states = {c.criterion.code: (c.state.status, c.state.final) for c in row.cells}
    assert states == {"1a": ("agreed", D("1.5")), "1b": ("discrepant", None)}


def test_unknown_jurors_get_accounts_without_a_usable_password(competition):
    run(competition, GOOD)
    bob = get_user_model().objects.get(username="bob")
    assert not bob.has_usable_password()
    assert bob.groups.filter(name=JUROR).exists()
    alice = get_user_model().objects.get(username="alice")
    assert alice.has_usable_password()


def test_existing_papers_and_assignments_are_reused(competition):
    alpha = competition.systems.get(name="Alpha")
    paper = PaperFactory(problem=competition.problems.get(number=1), system=alpha)
    alice = get_user_model().objects.get(username="alice")
    assignment = AssignmentFactory(paper=paper, juror=alice)
    mark_save(
        assignment=assignment,
        criterion=paper.problem.rubrics.get().criteria.get(code="1a"),
        points="0.5",
    )
    result = run(competition, HEADER + "Alpha,1,1a,alice,2,\nAlpha,1,1b,alice,1,\n")
    assert result.papers_created == 0
    assert Paper.objects.get(system=alpha, problem__number=1).code == paper.code
    assert Assignment.objects.count() == 1
    assignment.refresh_from_db()
    assert assignment.is_submitted
    assert Mark.objects.get(assignment=assignment, criterion__code="1a").points == D("2")


def test_reimport_updates_instead_of_duplicating(competition):
    run(competition, GOOD)
    counts = (Paper.objects.count(), Assignment.objects.count(), Mark.objects.count())
    result = run(competition, GOOD.replace("alice,1.5,clear", "alice,2,changed"))
    assert result.papers_created == 0
    assert result.users_created == []
    assert (Paper.objects.count(), Assignment.objects.count(), Mark.objects.count()) == counts
    mark = Mark.objects.get(assignment__juror__username="alice", criterion__code="1a")
    assert (mark.points, mark.comment) == (D("2"), "changed")


# --- errors ----------------------------------------------------------------------------------


OK = "Alpha,1,1a,alice,1,\nAlpha,1,1a,carol,1,\n"  # lines 2 and 3; carol would be created


@pytest.mark.parametrize(
    ("row", "field", "words"),
    [
        ("Gamma,1,1a,alice,1,", "system", "Gamma"),
        ("Alpha,1,1a,dave,0.25,", "points", "1a"),
        ("Alpha,1,1b,dave,1.5,", "points", "not a multiple of 1"),
        ("Alpha,1,1a,dave,2.5,", "points", "outside 0..2"),
        ("Alpha,1,1a,dave,x,", "points", "not a number"),
        ("Alpha,1,1a,dave,,", "points", "required"),
        ("Alpha,1,1z,dave,1,", "criterion", "1z"),
        ("Alpha,2,1a,dave,1,", "criterion", "1a"),  # criterion of another problem
        ("Alpha,9,1a,dave,1,", "problem", "9"),
        ("Alpha,one,1a,dave,1,", "problem", "one"),
        ("Alpha,3,3a,dave,1,", "criterion", "no rubric"),
        ("Alpha,1,1a,,1,", "juror", "juror"),
        ("Alpha,1,1a,carol,1,", "criterion", "line 3"),  # duplicate of line 3
    ],
)
def test_bad_row_names_file_line_and_field_and_writes_nothing(competition, row, field, words):
    before = state()
    with pytest.raises(GradingError) as caught:
        run(competition, HEADER + OK + row + "\n", file="jury/p1.csv")
    error = caught.value
    assert error.file == "jury/p1.csv"
    assert error.line == 4
    assert error.field == field
    assert words in error.message
    assert str(error).startswith(f"jury/p1.csv, line 4, field '{field}'")
    assert state() == before
    assert not get_user_model().objects.filter(username="carol").exists()


def test_missing_column_is_a_grading_error_naming_it(competition):
    # Views and commands catch GradingError ("views show them"); a missing column must be one.
    before = state()
    text = "system,problem,criterion,points\nAlpha,1,1a,1\n"
    with pytest.raises(GradingError) as caught:
        run(competition, text, file="nojuror.csv")
    assert caught.value.file == "nojuror.csv"
    assert caught.value.line == 1
    assert caught.value.field == "juror"
    assert state() == before


def test_missing_column_names_file_line_and_field(competition):
    from ioleval.errors import AppError

    with pytest.raises(AppError) as caught:
        run(competition, "system,problem,criterion,juror\nAlpha,1,1a,alice\n", file="m.csv")
    assert (caught.value.file, caught.value.line, caught.value.field) == ("m.csv", 1, "points")
    assert not Mark.objects.exists()


def test_header_only_is_refused(competition):
    with pytest.raises(GradingError) as caught:
        run(competition, HEADER)
    assert "no rows" in caught.value.message
    assert caught.value.line == 2


def test_marks_import_into_a_finalized_problem_is_refused(competition):
    run(competition, HEADER + "Alpha,1,1a,alice,1,\nAlpha,1,1b,alice,1,\n")
    finalized = problem_finalize(problem=competition.problems.get(number=1), chair=ChairFactory())
    assert finalized.finalized_at
    before = state()
    # The final marks of a finalized problem derive from these marks: they must not change.
    with pytest.raises(GradingError):
        run(competition, HEADER + "Alpha,1,1a,alice,2,\n")
    assert state() == before


# --- final marks -------------------------------------------------------------------------------


def test_final_import_creates_imported_resolutions_and_finalizes_covered_problems(competition):
    text = (
        "system,problem,criterion,points,comment\n"
        "Alpha,1,1a,2,\n"
        "Alpha,1,1b,1,agreed at the meeting\n"
        "Alpha,2,2a,3,\n"  # problem 2 has a Beta paper without a final mark
        '"Beta, Inc.",1,1a,0.5,\n'
        '"Beta, Inc.",1,1b,0,\n'
    )
    PaperFactory(
        problem=competition.problems.get(number=2),
        system=competition.systems.get(name="Beta, Inc."),
    )
    result = run(competition, text, final=True, file="final.csv")
    assert result.finals == 5
    assert result.marks == 0
    assert result.finalized == [1]
    assert "finalized problems: 1" in result.lines()
    resolutions = {
        (r.paper.system.name, r.criterion.code): (r.points, r.kind, r.reason, r.decided_by)
        for r in Resolution.objects.select_related("paper__system", "criterion")
    }
    assert resolutions[("Alpha", "1a")] == (D("2"), "imported", "imported from final.csv", None)
    assert resolutions[("Alpha", "1b")] == (D("1"), "imported", "agreed at the meeting", None)
    assert len(resolutions) == 5
    assert problem_jury(competition.problems.get(number=1)).finalized_at is not None
    assert problem_jury(competition.problems.get(number=2)).finalized_at is None
    assert not Assignment.objects.exists()
    assert not Mark.objects.exists()
    _, rows = comparison_sheet(competition.problems.get(number=1))
    finals = {(r.paper.system.name, c.criterion.code): c.state.final for r in rows for c in r.cells}
    assert finals == {
        ("Alpha", "1a"): D("2"),
        ("Alpha", "1b"): D("1"),
        ("Beta, Inc.", "1a"): D("0.5"),
        ("Beta, Inc.", "1b"): D("0"),
    }
    assert {r.final_total for r in rows} == {D("3"), D("0.5")}


def test_final_import_replaces_earlier_finals_once_the_chair_reopens(competition):
    run(competition, "system,problem,criterion,points\nAlpha,2,2a,3\n", final=True)
    problem = competition.problems.get(number=2)
    assert problem_jury(problem).finalized_at is not None
    with pytest.raises(GradingError, match="problem 2 is finalized"):
        run(competition, "system,problem,criterion,points\nAlpha,2,2a,4\n", final=True)
    problem_reopen(problem=problem, chair=ChairFactory())
    run(competition, "system,problem,criterion,points\nAlpha,2,2a,4\n", final=True)
    assert list(Resolution.objects.values_list("points", "kind")) == [(D("4"), "imported")]


def test_final_import_does_not_overwrite_a_finalized_chairs_decision(competition):
    run(competition, HEADER + "Alpha,2,2a,alice,1,\nAlpha,2,2a,bob,3,\n")
    problem = competition.problems.get(number=2)
    chair = ChairFactory()
    paper = Paper.objects.get(problem=problem)
    criterion = paper.problem.rubrics.get().criteria.get()
    criterion_decide(paper=paper, criterion=criterion, points="2", reason="agreed", chair=chair)
    problem_finalize(problem=problem, chair=chair)
    before = state()
    with pytest.raises(GradingError, match="finalized"):
        run(competition, "system,problem,criterion,points\nAlpha,2,2a,0\n", final=True)
    assert state() == before


def test_unknown_statuses_and_nul_characters_are_refused(competition):
    before = state()
    header = "system,problem,criterion,juror,points,comment,status\n"
    with pytest.raises(GradingError) as caught:
        run(competition, header + "Alpha,2,2a,bob,1,,submited\n")
    assert (caught.value.line, caught.value.field) == (2, "status")
    with pytest.raises(GradingError) as caught:
        run(competition, header + "Alpha,2,2a,bob,1,a\x00b,submitted\n")
    assert (caught.value.line, caught.value.field) == (2, "comment")
    with pytest.raises(GradingError, match=r"no submitted rows to import \(left out: 1 draft\)"):
        run(competition, header + "Alpha,2,2a,bob,1,,Draft\n")
    assert state() == before


def test_an_import_without_a_comment_column_keeps_the_comments(competition):
    run(competition, GOOD)
    run(competition, "system,problem,criterion,juror,points\nAlpha,1,1a,alice,2\n")
    mark = Mark.objects.get(assignment__juror__username="alice", criterion__code="1a")
    assert (mark.points, mark.comment) == (D("2"), "clear")


def test_final_import_names_errors_and_writes_nothing(competition):
    before = state()
    with pytest.raises(GradingError) as caught:
        run(
            competition,
            "system,problem,criterion,points\nAlpha,2,2a,3\nAlpha,2,2a,4\n",
            final=True,
            file="f.csv",
        )
    assert (caught.value.line, caught.value.field) == (3, "criterion")
    assert state() == before


# --- export ----------------------------------------------------------------------------------


@pytest.fixture
def graded(competition):
    """Imported marks (agreed 1a, discrepant 1b), a decision on 1b, a draft of a third juror."""
    run(competition, GOOD)
    paper = Paper.objects.get(problem__number=1)
    chair = ChairFactory()
    criterion = paper.problem.rubrics.get().criteria.get(code="1b")
    criterion_decide(paper=paper, criterion=criterion, points="2", reason="meeting", chair=chair)
    draft = AssignmentFactory(paper=paper, juror=JurorFactory(username="zed"))
    mark_save(assignment=draft, criterion=criterion, points="1", comment="draft")
    return competition


def test_marks_rows_contain_every_mark_and_the_final_rows(graded):
    header, rows = marks_rows(graded)
    assert header == [
        "system",
        "problem",
        "criterion",
        "juror",
        "points",
        "comment",
        "paper",
        "status",
        "submitted_at",
    ]
    marks = [r for r in rows if r[3] != "(final)"]
    finals = [r for r in rows if r[3] == "(final)"]
    assert len(marks) == Mark.objects.count() == 6
    assert {(r[0], r[2], r[3], r[4], r[7]) for r in marks} == {
        ("Alpha", "1a", "alice", D("1.5"), "submitted"),
        ("Alpha", "1b", "alice", D("2"), "submitted"),
        ("Alpha", "1a", "bob", D("1.5"), "submitted"),
        ("Alpha", "1b", "bob", D("3"), "submitted"),
        ("Alpha", "1b", "zed", D("1"), "draft"),
        ("Beta, Inc.", "2a", "bob", D("4"), "submitted"),
    }
    # Zed's draft keeps 1a pending; 1b is decided; Beta's only juror agrees with herself.
    # No problem is finalized: the final marks are provisional.
    assert {(r[0], r[1], r[2], r[3], r[4], r[5], r[7]) for r in finals} == {
        ("Alpha", 1, "1b", "(final)", D("2"), "decided", "provisional"),
        ("Beta, Inc.", 2, "2a", "(final)", D("4"), "agreed", "provisional"),
    }
    problem_finalize(problem=graded.problems.get(number=2), chair=ChairFactory())
    _, rows = marks_rows(graded)
    assert {(r[1], r[7]) for r in rows if r[3] == "(final)"} == {(1, "provisional"), (2, "final")}
    codes = {p.system.name: p.code for p in Paper.objects.select_related("system")}
    assert all(r[6] == codes[r[0]] for r in rows)


def test_marks_csv_has_a_row_per_mark_and_final(graded):
    text = marks_csv(graded)
    parsed = list(csv.reader(io.StringIO(text)))
    header, body = parsed[0], parsed[1:]
    assert header[:6] == ["system", "problem", "criterion", "juror", "points", "comment"]
    assert len(body) == 8
    beta = next(row for row in body if row[0] == "Beta, Inc." and row[3] == "bob")
    assert beta[1:4] == ["2", "2a", "bob"]
    assert D(beta[4]) == 4
    assert beta[5] == "full marks, nothing missing"
    assert sum(1 for row in body if row[3] == "(final)") == 2
    submitted = [row for row in body if row[7] == "submitted"]
    assert all(row[8] for row in submitted)


def test_marks_xlsx_holds_the_same_rows(graded):
    data = marks_xlsx(graded)
    workbook = openpyxl.load_workbook(io.BytesIO(data))
    sheet = workbook["marks"]
    values = [list(r) for r in sheet.iter_rows(values_only=True)]
    header, rows = marks_rows(graded)
    assert values[0] == header
    assert len(values) == len(rows) + 1
    for got, want in zip(values[1:], rows, strict=True):
        assert got[0] == want[0]
        assert got[3] == want[3]
        assert D(str(got[4])) == want[4]


def test_export_of_an_empty_competition_is_a_header(competition):
    assert marks_csv(competition).splitlines() == [
        '"system","problem","criterion","juror","points","comment","paper","status","submitted_at"'
    ]
    workbook = openpyxl.load_workbook(io.BytesIO(marks_xlsx(competition)))
    assert workbook.active.max_row == 1


def test_missing_column_message_lists_each_expected_column_once(competition):
    from ioleval.errors import AppError

    with pytest.raises(AppError) as caught:
        run(competition, "system,problem,criterion,points\nAlpha,1,1a,1\n")
    expected = caught.value.message.split("(expected ", 1)[1].rstrip(")").split(", ")
    assert expected == ["system", "problem", "criterion", "points", "juror", "comment", "status"]


def test_a_paper_is_imported_whole_or_not_at_all(competition):
    before = state()
    with pytest.raises(GradingError) as caught:
        run(competition, HEADER + "Alpha,2,2a,bob,1,\nAlpha,1,1a,alice,1,\n")
    error = caught.value
    assert (error.file, error.line, error.field) == ("marks.csv", 3, "criterion")
    assert "alice's paper of Alpha, problem 1 would be submitted without 1b" in error.message
    assert state() == before


def test_an_import_completes_a_paper_drafted_in_the_app(competition):
    alice = get_user_model().objects.get(username="alice")
    paper = PaperFactory(
        problem=competition.problems.get(number=1), system=competition.systems.get(name="Alpha")
    )
    assignment = AssignmentFactory(paper=paper, juror=alice)
    criteria = {c.code: c for c in paper.problem.rubrics.get().criteria.all()}
    mark_save(assignment=assignment, criterion=criteria["1a"], points="1")
    run(competition, HEADER + "Alpha,1,1b,alice,2,\n")
    assignment.refresh_from_db()
    assert assignment.is_submitted
    assert sorted(assignment.marks.values_list("criterion__code", "points")) == [
        ("1a", D("1")),
        ("1b", D("2")),
    ]


@pytest.mark.parametrize(
    "juror,words",
    [
        ("(final)", "cannot be a juror account"),
        ("x" * 200, "cannot be a juror account"),
        ("Alice", "did you mean 'alice'?"),
    ],
)
def test_juror_names_that_cannot_be_accounts_are_refused(competition, juror, words):
    before = state()
    with pytest.raises(GradingError) as caught:
        run(competition, HEADER + f"Alpha,2,2a,{juror},1,\n")
    assert (caught.value.line, caught.value.field) == (2, "juror")
    assert words in caught.value.message
    assert state() == before


def test_an_export_imports_back_its_submitted_marks_or_its_final_marks(graded):
    competition = graded
    exported = marks_csv(competition)
    assert ',"draft",' in exported and ',"provisional",' in exported
    before = sorted(Mark.objects.values_list("assignment_id", "criterion_id", "points"))
    result = run(competition, exported)
    assert result.skipped == {"draft": 1, "provisional": 2}
    assert sorted(Mark.objects.values_list("assignment_id", "criterion_id", "points")) == before
    assert "1 draft row(s) of an export left out" in result.lines()
    # Into another competition's jury, as the agreed marks of a jury that met elsewhere:
    # only finalized problems' rows are final.
    problem_finalize(problem=competition.problems.get(number=2), chair=ChairFactory())
    exported = marks_csv(competition)
    problem_reopen(problem=competition.problems.get(number=2), chair=ChairFactory())
    Resolution.objects.all().delete()
    result = run(competition, exported, final=True)
    assert result.finals == 1 and result.marks == 0
    assert result.skipped == {"draft": 1, "provisional": 1, "submitted": 5}


def test_rubric_reimport_keeps_imported_final_marks(competition):
    text = "system,problem,criterion,points\nAlpha,1,1a,1\nAlpha,1,1b,2\n"
    run(competition, text, final=True)
    assert problem_jury(competition.problems.get(number=1)).finalized_at is not None
    rubric = json.dumps(
        {
            "problems": [
                {
                    "problem": 1,
                    "criteria": [
                        {"code": "1a", "title": "Reworded", "maximum": 2, "step": 0.5},
                        {"code": "1b", "title": "Criterion 1b", "maximum": 3, "step": 1},
                    ],
                }
            ]
        }
    )
    # The problem is finalized by the import: its rubric waits for the chair to reopen it.
    with pytest.raises(GradingError, match="finalized"):
        rubrics_import(rubric, competition=competition)
    assert sorted(Resolution.objects.values_list("criterion__code", "points")) == [
        ("1a", D("1")),
        ("1b", D("2")),
    ]


def test_criteria_not_marked_is_the_rule_import_and_submit_share(
    competition, django_assert_num_queries
):
    """Codes missing per assignment, in the rubric's order; a blank mark is not a mark."""
    from grading.selectors import criteria_not_marked
    from tests.grading.factories import AssignmentFactory, PaperFactory

    problem = competition.problems.get(number=1)
    codes = [c.code for c in rubric_current(problem).criteria.order_by("order")]
    papers = [PaperFactory(problem=problem) for _ in range(3)]
    assignments = [AssignmentFactory(paper=p) for p in papers]
    criteria = list(rubric_current(problem).criteria.order_by("order"))
    for criterion in criteria:  # the first is marked whole
        Mark.objects.create(assignment=assignments[0], criterion=criterion, points=0)
    Mark.objects.create(assignment=assignments[1], criterion=criteria[-1], points=1)
    Mark.objects.create(assignment=assignments[1], criterion=criteria[0], points=None)
    with django_assert_num_queries(3):
        missing = criteria_not_marked([a.pk for a in assignments])
    assert missing == {assignments[1].pk: codes[:-1], assignments[2].pk: codes}


def test_an_import_keeps_the_marks_of_a_juror_not_blind_and_says_so(competition):
    """Marks graded elsewhere are a record of what was given there: a juror who has since
    been shown the pairs (or an organizer's other account) is not refused, and the organizer
    is told (SECURITY.md, blindness by sequence)."""
    from grading.models import PairsSeen

    alice = get_user_model().objects.get(username="alice")
    PairsSeen.objects.create(user=alice, competition=competition, source="the result review page")
    result = run(competition, GOOD)
    assert result.marks == 5
    warnings = [line for line in result.lines() if line.startswith("warning:")]
    assert len(warnings) == 1
    assert warnings[0].startswith("warning: alice (shown which system wrote which paper by")
    assert warnings[0].endswith("their marks, given elsewhere, are imported as they are")

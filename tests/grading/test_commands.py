"""The jury's management commands, called as organizers script them, and the demo jury."""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from decimal import Decimal

import openpyxl
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from grading.demo import RUBRICS, SELECTED
from grading.models import (
    Assignment,
    Criterion,
    DiscussionComment,
    Mark,
    ObservationTag,
    Paper,
    ProblemJuror,
    Resolution,
    Rubric,
)
from grading.selectors import comparison_sheet
from grading.services import rubric_current
from tests.grading.factories import JurorFactory, UserFactory, paper_graded
from tests.puzzles.factories import CompetitionFactory, ProblemFactory, SystemFactory, TaskFactory

D = Decimal
SLUG = "jury"
# The demo's tasks (by external id) with their number of items, for the demo rubrics.
TASK_ITEMS = {1: [3, 3, 1], 2: [3, 3], 3: [3, 2]}


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


@pytest.fixture
def competition(db):
    """A small competition shaped like the demo (its task ids and systems), made quickly."""
    competition = CompetitionFactory(slug=SLUG)
    for number, sizes in TASK_ITEMS.items():
        problem = ProblemFactory(competition=competition, number=number)
        for task, size in enumerate(sizes, start=1):
            TaskFactory(
                problem=problem,
                number=task,
                external_id=f"12026{number:02d}{task:02d}00",
                answer_key=[["x"]] * size,
            )
    for name in [*SELECTED, "Baseline-echo"]:
        SystemFactory(competition=competition, name=name)
    return competition


@pytest.fixture
def rubric_file(tmp_path):
    path = tmp_path / "rubrics.json"
    path.write_text(json.dumps(RUBRICS, indent=2), encoding="utf-8")
    return path


@pytest.fixture
def jurors(db):
    return [JurorFactory(username=f"j{i}") for i in range(1, 5)]


# --- unknown competition -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ("import_rubric", "nope", "rubrics.json"),
        ("select_for_jury", "nope", "--systems", "Frontier-A"),
        ("assign_jurors", "nope", "--per-paper", "2"),
        ("set_jury_group", "nope", "1", "--jurors", "j1"),
        ("import_marks", "nope", "marks.csv"),
        ("export_marks", "nope", "--format", "csv"),
    ],
)
def test_unknown_slug_is_a_command_error(competition, args):
    with pytest.raises(CommandError) as caught:
        run(*args)
    assert "unknown competition 'nope'" in str(caught.value)
    assert SLUG in str(caught.value)


# --- import_rubric -------------------------------------------------------------------------------


def test_import_rubric_of_the_demo(competition, rubric_file):
    out = run("import_rubric", SLUG, str(rubric_file))
    assert out.splitlines() == [
        "problem 1: rubric v1, 4 criteria",
        "problem 2: rubric v1, 3 criteria",
        "problem 3: rubric v1, 4 criteria",
        "the jury's scale becomes 30 (the sum of the rubrics' maxima)",
    ]
    assert Criterion.objects.filter(rubric__problem__competition=competition).count() == 11
    criterion = Criterion.objects.get(code="1a")
    assert criterion.task.external_id == "12026010100"
    assert criterion.items == [1, 2, 3]


def test_import_rubric_needs_new_version_once_marks_exist(competition, rubric_file):
    run("import_rubric", SLUG, str(rubric_file))
    problem = competition.problems.get(number=2)
    paper = Paper.objects.create(
        problem=problem, system=competition.systems.get(name="Frontier-A"), code="P2-2222"
    )
    paper_graded(paper, {JurorFactory(): {"2a": "3", "2b": "2", "2c": "4"}})
    changed = json.loads(json.dumps(RUBRICS))
    changed["problems"][1]["criteria"][0]["maximum"] = 2  # 2a: 3 -> 2 clears the 3
    rubric_file.write_text(json.dumps(changed), encoding="utf-8")
    with pytest.raises(CommandError) as caught:
        run("import_rubric", SLUG, str(rubric_file))
    assert "new version" in str(caught.value)
    assert Rubric.objects.filter(problem=problem).count() == 1
    out = run("import_rubric", SLUG, str(rubric_file), "--new-version")
    assert "problem 2: rubric v2, 3 criteria" in out
    assert (
        "  criterion 2a: 1 marks or decisions no longer fit its maximum or step; they are cleared and their papers reopen"
        in out
    )
    assert rubric_current(problem).version == 2
    assert Mark.objects.get(criterion__rubric__version=2, criterion__code="2a").points is None
    assert Mark.objects.get(criterion__rubric__version=2, criterion__code="2c").points == D("4")


def test_import_rubric_errors_name_the_file_and_field(competition, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(
        json.dumps(
            {
                "problems": [
                    {
                        "problem": 1,
                        "criteria": [{"code": "x", "title": "X", "maximum": 2, "step": 0.75}],
                    }
                ]
            }
        ),
        encoding="utf-8",
    )
    with pytest.raises(CommandError) as caught:
        run("import_rubric", SLUG, str(path))
    assert str(path) in str(caught.value)
    assert "field 'step'" in str(caught.value)
    assert not Rubric.objects.exists()
    with pytest.raises(CommandError) as caught:
        run("import_rubric", SLUG, str(tmp_path / "absent.json"))
    assert "no such file" in str(caught.value)


# --- select_for_jury ---------------------------------------------------------------------------


def test_select_for_jury(competition):
    out = run("select_for_jury", SLUG, "--systems", "Frontier-A,Team Lexicon")
    assert out.strip() == "6 papers created"
    assert Counter(Paper.objects.values_list("system__name", flat=True)) == {
        "Frontier-A": 3,
        "Team Lexicon": 3,
    }
    codes = set(Paper.objects.values_list("code", flat=True))
    assert run("select_for_jury", SLUG, "--systems", "Frontier-A, Team Lexicon").strip() == (
        "0 papers created"
    )
    assert set(Paper.objects.values_list("code", flat=True)) == codes


def test_select_for_jury_refuses_unknown_systems(competition):
    with pytest.raises(CommandError) as caught:
        run("select_for_jury", SLUG, "--systems", "Frontier-A,Frontier-Z")
    assert "Frontier-Z" in str(caught.value)
    assert not Paper.objects.exists()


# --- set_jury_group and assign_jurors ---------------------------------------------------------------


def test_set_jury_group(competition, jurors):
    out = run("set_jury_group", SLUG, "1", "--jurors", "j1, j2,")
    assert out.strip() == "problem 1: 2 jurors added or kept"
    assert set(ProblemJuror.objects.values_list("juror__username", flat=True)) == {"j1", "j2"}


def test_set_jury_group_remove(competition, jurors):
    run("set_jury_group", SLUG, "1", "--jurors", "j1,j2")
    out = run("set_jury_group", SLUG, "1", "--jurors", "j2", "--remove")
    assert out.strip() == "problem 1: 1 jurors removed, 0 unmarked papers unassigned"
    assert list(ProblemJuror.objects.values_list("juror__username", flat=True)) == ["j1"]
    with pytest.raises(CommandError, match="not in the group of problem 1: j2"):
        run("set_jury_group", SLUG, "1", "--jurors", "j2", "--remove")


def test_set_jury_group_refusals(competition, jurors):
    UserFactory(username="outsider", roles=["organizer"])
    with pytest.raises(CommandError) as caught:
        run("set_jury_group", SLUG, "1", "--jurors", "j1,outsider")
    assert "outsider" in str(caught.value)
    with pytest.raises(CommandError) as caught:
        run("set_jury_group", SLUG, "9", "--jurors", "j1")
    assert "no problem 9" in str(caught.value)
    assert not ProblemJuror.objects.exists()


def test_assign_jurors_with_a_per_problem_override(competition, jurors):
    run("select_for_jury", SLUG, "--systems", ",".join(SELECTED))
    for number in (1, 2, 3):
        run("set_jury_group", SLUG, str(number), "--jurors", "j1,j2,j3,j4")
    out = run("assign_jurors", SLUG, "--per-paper", "2", "--problem", "3=3")
    assert out.splitlines()[0] == "28 assignments created"
    per_paper = Counter(Assignment.objects.values_list("paper__problem__number", "paper_id"))
    assert sorted(per_paper.values()) == [2] * 8 + [3] * 4
    assert all(count == 3 for (number, _), count in per_paper.items() if number == 3)
    load = Counter(Assignment.objects.values_list("juror__username", flat=True))
    assert max(load.values()) - min(load.values()) <= 1
    assert run("assign_jurors", SLUG, "--per-paper", "2", "--problem", "3=3").splitlines()[0] == (
        "0 assignments created"
    )


def test_assign_jurors_reports_short_groups(competition, jurors):
    run("select_for_jury", SLUG, "--systems", "Frontier-A")
    run("set_jury_group", SLUG, "1", "--jurors", "j1")
    out = run("assign_jurors", SLUG, "--per-paper", "2")
    # One line a short problem, not one a paper: problem 1's group has one juror, the
    # others none.
    warnings = [line for line in out.splitlines() if line.startswith("warning:")]
    assert warnings == [
        "warning: problem 1: 1 paper short of jurors (1 assignment missing): its group has "
        "1 juror and each paper needs 2; add jurors to the group (set_jury_group) and "
        "assign again",
        "warning: problem 2: 1 paper short of jurors (2 assignments missing): its group has "
        "0 jurors and each paper needs 2; add jurors to the group (set_jury_group) and "
        "assign again",
        "warning: problem 3: 1 paper short of jurors (2 assignments missing): its group has "
        "0 jurors and each paper needs 2; add jurors to the group (set_jury_group) and "
        "assign again",
    ]


@pytest.mark.parametrize("override", ["3", "three=3", "3=x"])
def test_assign_jurors_refuses_a_malformed_override(competition, override):
    with pytest.raises(CommandError) as caught:
        run("assign_jurors", SLUG, "--per-paper", "2", "--problem", override)
    assert "P=N" in str(caught.value)


def test_assign_jurors_refuses_an_unknown_problem(competition):
    with pytest.raises(CommandError) as caught:
        run("assign_jurors", SLUG, "--per-paper", "2", "--problem", "9=1")
    assert "no problem 9" in str(caught.value)


# --- import_marks and export_marks --------------------------------------------------------------


MARKS = (
    "system,problem,criterion,juror,points,comment\n"
    "Frontier-A,2,2a,j1,3,\n"
    "Frontier-A,2,2b,j1,2,\n"
    "Frontier-A,2,2c,j1,3.5,\n"
    "Frontier-A,2,2a,newcomer,3,\n"
    "Frontier-A,2,2b,newcomer,3,\n"
    "Frontier-A,2,2c,newcomer,3.5,\n"
)


def test_import_and_export_marks(competition, rubric_file, jurors, tmp_path):
    run("import_rubric", SLUG, str(rubric_file))
    path = tmp_path / "marks.csv"
    path.write_text(MARKS, encoding="utf-8")
    out = run("import_marks", SLUG, str(path))
    assert out.splitlines() == [
        "6 marks, 0 final marks, 1 new papers",
        "new juror accounts (no password): newcomer",
    ]
    assert Mark.objects.count() == 6
    exported = run("export_marks", SLUG, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(exported)))
    assert len([r for r in rows if r["status"] == "submitted"]) == 6
    finals = {r["criterion"]: r["points"] for r in rows if r["status"] == "provisional"}
    assert set(finals) == {"2a", "2c"}  # 2b is discrepant; nothing is finalized yet
    assert D(finals["2c"]) == D("3.5")
    xlsx = tmp_path / "marks.xlsx"
    assert run("export_marks", SLUG, "--format", "xlsx", "--out", str(xlsx)) == ""
    sheet = openpyxl.load_workbook(xlsx).active
    values = list(sheet.iter_rows(values_only=True))
    assert list(values[0]) == list(rows[0].keys())
    assert len(values) == len(rows) + 1


def test_export_marks_csv_to_a_file(competition, tmp_path):
    out_file = tmp_path / "marks.csv"
    assert run("export_marks", SLUG, "--format", "csv", "--out", str(out_file)) == ""
    assert out_file.read_text(encoding="utf-8").startswith('"system","problem","criterion"')


def test_import_marks_final(competition, rubric_file, tmp_path):
    run("import_rubric", SLUG, str(rubric_file))
    path = tmp_path / "final.csv"
    path.write_text(
        "system,problem,criterion,points,comment\n"
        "Frontier-B,2,2a,3,\nFrontier-B,2,2b,1,\nFrontier-B,2,2c,0.5,from the meeting\n",
        encoding="utf-8",
    )
    out = run("import_marks", SLUG, str(path), "--final")
    assert out.splitlines() == [
        "0 marks, 3 final marks, 1 new papers",
        "finalized problems: 2",
    ]
    assert set(Resolution.objects.values_list("kind", flat=True)) == {"imported"}
    assert competition.problems.get(number=2).jury.finalized_at is not None


def test_import_marks_errors_are_command_errors_and_write_nothing(
    competition, rubric_file, tmp_path
):
    run("import_rubric", SLUG, str(rubric_file))
    path = tmp_path / "bad.csv"
    path.write_text(MARKS + "Frontier-A,2,2a,j9,2.5,\n", encoding="utf-8")
    with pytest.raises(CommandError) as caught:
        run("import_marks", SLUG, str(path))
    assert f"{path}, line 8, field 'points'" in str(caught.value)
    assert not Mark.objects.exists()
    assert not Paper.objects.exists()
    with pytest.raises(CommandError) as caught:
        run("import_marks", SLUG, str(tmp_path / "absent.csv"))
    assert "no such file" in str(caught.value)


# --- demo ------------------------------------------------------------------------------------


def jury_counts() -> dict[str, int]:
    return {
        "rubrics": Rubric.objects.count(),
        "criteria": Criterion.objects.count(),
        "papers": Paper.objects.count(),
        "groups": ProblemJuror.objects.count(),
        "assignments": Assignment.objects.count(),
        "submitted": Assignment.objects.filter(submitted_at__isnull=False).count(),
        "marks": Mark.objects.count(),
        "comments": DiscussionComment.objects.count(),
        "tags": ObservationTag.objects.count(),
    }


def test_demo_twice_is_idempotent_for_the_jury_and_grades_problem_one(db):
    run("demo")
    counts = jury_counts()
    codes = sorted(Paper.objects.values_list("code", flat=True))
    marks = sorted(Mark.objects.values_list("pk", "points", "comment"))
    run("demo")
    assert jury_counts() == counts
    assert sorted(Paper.objects.values_list("code", flat=True)) == codes
    assert sorted(Mark.objects.values_list("pk", "points", "comment")) == marks
    assert counts["papers"] == len(SELECTED) * 3
    assert counts["assignments"] == counts["papers"] * 2
    assert counts["marks"] > 0
    assert counts["tags"] == 7

    problem = Paper.objects.filter(problem__number=1).first().problem
    _, rows = comparison_sheet(problem)
    discrepant = [
        (row.paper.code, cell.criterion.code)
        for row in rows
        for cell in row.cells
        if cell.state.status == "discrepant"
    ]
    assert discrepant, "no discrepancy on problem 1"
    assert sum(row.discrepancies for row in rows) == len(discrepant)
    assert [row for row in rows if len(row.submitted) >= 2], "no paper submitted by two jurors"
    # The discrepancy has a thread to discuss it in.
    code, criterion = discrepant[0]
    assert DiscussionComment.objects.filter(paper__code=code, criterion__code=criterion).exists()

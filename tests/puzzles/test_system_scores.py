"""import_system_scores: automatic figures computed elsewhere, external systems, precedence."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import IntegrityError, transaction

from puzzles.errors import ImportFailure
from puzzles.models import ExternalScore, System
from puzzles.selectors import leaderboard, system_auto_scores
from puzzles.services import competition_rescore, system_scores_import
from tests.puzzles.factories import (
    CompetitionFactory,
    OutputFactory,
    ProblemFactory,
    SystemFactory,
    TaskFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def competition():
    competition = CompetitionFactory(slug="iol")
    for number in (1, 2):
        problem = ProblemFactory(competition=competition, number=number)
        TaskFactory(problem=problem, number=1)
    return competition


def _import(competition, text: str, file: str = "scores.csv"):
    return system_scores_import(competition=competition, stream=io.StringIO(text), file=file)


def _state():
    return (
        sorted(System.objects.values_list("name", "external")),
        sorted(
            ExternalScore.objects.values_list(
                "system__name", "problem__number", "score", "exact_match", "chrf"
            ),
            key=str,
        ),
    )


def test_unknown_systems_are_created_external_with_their_figures(competition):
    result = _import(
        competition,
        "system,score,exact_match,chrf,problem\n"
        "Opus,0.61,0.42,0.88,\n"
        "Opus,0.5,,,1\n"
        "Flash,0.4,0.3,0.53,\n",
    )
    assert result.created == 3 and result.updated == 0
    assert sorted(result.systems_created) == ["Flash", "Opus"]
    opus = System.objects.get(name="Opus")
    assert opus.external and not opus.outputs.exists()
    whole = ExternalScore.objects.get(system=opus, problem=None)
    assert (whole.score, whole.exact_match, whole.chrf) == (0.61, 0.42, 0.88)
    assert ExternalScore.objects.get(system=opus, problem__number=1).exact_match is None
    assert "new external systems (no outputs): Flash, Opus" in result.lines()


def test_reimport_updates_in_place_and_keeps_what_the_file_does_not_name(competition):
    _import(competition, "system,score,problem\nOpus,0.6,\nOpus,0.5,1\n")
    ids = dict(ExternalScore.objects.values_list("problem__number", "pk"))
    result = _import(competition, "system,score\nOpus,0.7\n")
    assert (result.created, result.updated, result.systems_created) == (0, 1, [])
    assert dict(ExternalScore.objects.values_list("problem__number", "pk")) == ids
    assert ExternalScore.objects.get(problem=None).score == 0.7
    assert ExternalScore.objects.get(problem__number=1).score == 0.5
    assert System.objects.filter(name="Opus").count() == 1


def test_computed_figures_take_precedence_for_a_system_with_outputs(competition):
    task = competition.problems.get(number=1).tasks.get()
    output = OutputFactory(task=task, system__name="Local", raw_text='["one", "two"]')
    competition_rescore(competition=competition, systems=[output.system])
    result = _import(competition, "system,score,exact_match,chrf\nLocal,0.1,0.1,0.1\nFar,0.3,,\n")
    assert result.computed_first == ["Local"]
    assert any("computed figures take precedence: Local" in line for line in result.lines())
    assert not System.objects.get(name="Local").external
    rows = {r.system: r for r in system_auto_scores(competition)}
    local, far = rows["Local"], rows["Far"]
    assert local.source == "computed" and not local.external
    assert local.overall.score == pytest.approx(0.5)  # task 1 right, task 2 unanswered
    assert local.per_problem[1].score == 1.0 and local.per_problem[2].score == 0.0
    assert far.external and far.overall.score == 0.3 and far.overall.exact_match is None
    assert far.per_problem == {}


def test_auto_scores_per_problem_and_a_system_with_nothing(competition):
    SystemFactory(competition=competition, name="Empty")
    _import(competition, "system,score,problem\nFar,0.4,1\nFar,0.2,2\n")
    rows = {r.system: r for r in system_auto_scores(competition)}
    assert rows["Empty"].source == "none" and rows["Empty"].overall is None
    far = rows["Far"]
    assert far.external and far.overall is None
    assert {n: f.score for n, f in far.per_problem.items()} == {1: 0.4, 2: 0.2}


def test_auto_scores_with_a_whole_row_and_problem_rows(competition):
    # The whole-competition row (problem None) once broke sorting the per-problem ones.
    _import(competition, "system,score,problem\nFar,0.3,\nFar,0.4,1\nFar,0.2,2\n")
    far = next(r for r in system_auto_scores(competition) if r.system == "Far")
    assert far.overall.score == 0.3
    assert {n: f.score for n, f in far.per_problem.items()} == {1: 0.4, 2: 0.2}


def test_a_missing_whole_row_is_reported(competition):
    result = _import(competition, "system,score,problem\nFar,0.4,1\n")
    assert result.without_whole == ["Far"]


def test_external_systems_without_outputs_stay_off_the_computed_leaderboard(competition):
    _import(competition, "system,score\nFar,0.4\n")
    SystemFactory(competition=competition, name="Plain")
    _, rows = leaderboard(competition)
    assert [r.system for r in rows] == ["Plain"]


def test_auto_scores_take_a_constant_number_of_queries(competition, django_assert_num_queries):
    _import(competition, "system,score\n" + "".join(f"S{i},0.{i}\n" for i in range(1, 9)))
    with django_assert_num_queries(4):
        assert len(system_auto_scores(competition)) == 8


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        ("name,score\nA,0.5\n", "line 1, field 'system'", "missing column(s) system"),
        ("system,exact_match\nA,0.5\n", "line 1, field 'score'", "missing column(s) score"),
        ("system,score\n", "line 2", "no rows after the header"),
        ("", "line 1", "the file is empty"),
        ("system,score\nA,0.5\nB,1.5\n", "line 3, field 'score'", "1.5 is outside 0..1"),
        ("system,score\nA,61\n", "line 2, field 'score'", "looks like a percentage"),
        ("system,score\nA,61%\n", "line 2, field 'score'", "is a percentage"),
        ("system,score\nA,-0.1\n", "line 2, field 'score'", "-0.1 is outside 0..1"),
        ("system,score\nA,high\n", "line 2, field 'score'", "'high' is not a number"),
        ("system,score\nA,nan\n", "line 2, field 'score'", "a figure (0-1) is required"),
        ("system,score\nA,inf\n", "line 2, field 'score'", "'inf' is not a number"),
        ("system,score\nA,1_0\n", "line 2, field 'score'", "'1_0' is not a number"),
        ("system,score\nA,\n", "line 2, field 'score'", "a figure (0-1) is required"),
        ("system,score,chrf\nA,0.5,2\n", "line 2, field 'chrf'", "2 is outside 0..1"),
        (
            "system,score,exact_match\nA,0.5,x\n",
            "line 2, field 'exact_match'",
            "'x' is not a number",
        ),
        ("system,score,problem\nA,0.5,9\n", "line 2, field 'problem'", "no problem 9"),
        ("system,score,problem\nA,0.5,P1\n", "line 2, field 'problem'", "'P1' is not a problem"),
        (
            "system,score\nA,0.5\nA,0.6\n",
            "line 3, field 'system'",
            "'A' has a row for the whole competition already on line 2",
        ),
        (
            "system,score,problem\nA,0.5,1\n\nA,0.6,1\n",
            "line 4, field 'problem'",
            "'A' has a row for problem 1 already on line 2",
        ),
        ("system,score\n ,0.5\n", "line 2, field 'system'", "a system name is required"),
        ("system,score\nA\x00B,0.5\n", "line 2, field 'system'", "NUL"),
        (
            "system,score\nA,0.5,extra\n",
            "line 2, field '(extra after score)'",
            "3 fields where the header has 2",
        ),
        ("system,score\n" + "x" * 201 + ",0.5\n", "line 2, field 'system'", "at most 200"),
        ("system,score\nA,0.5\nB\n", "line 3, field 'score'", "the row is too short"),
    ],
)
def test_bad_input_names_file_line_and_field_and_writes_nothing(competition, text, where, message):
    _import(competition, "system,score\nKept,0.3\n")
    before = _state()
    with pytest.raises(ImportFailure) as caught:
        _import(competition, text, file="figs.csv")
    assert str(caught.value).startswith(f"figs.csv, {where}: "), str(caught.value)
    assert message in str(caught.value)
    assert _state() == before


def test_a_late_error_undoes_the_systems_created_before_it(competition):
    before = _state()
    with pytest.raises(ImportFailure, match="line 4, field 'score'"):
        _import(competition, "system,score\nNew1,0.1\nNew2,0.2\nNew3,7\n")
    assert _state() == before


def test_a_name_differing_only_in_case_is_refused(competition):
    SystemFactory(competition=competition, name="Claude Opus")
    with pytest.raises(ImportFailure, match="did you mean 'Claude Opus'") as caught:
        _import(competition, "system,score\nclaude  opus,0.5\n")
    assert caught.value.line == 2 and caught.value.field == "system"
    assert System.objects.count() == 1


def test_the_database_refuses_figures_outside_the_scale_and_a_second_whole_row(competition):
    system = SystemFactory(competition=competition)
    for bad in ({"score": 1.5}, {"score": 0.5, "chrf": -0.1}, {"score": 0.5, "exact_match": 2}):
        with pytest.raises(IntegrityError), transaction.atomic():
            ExternalScore.objects.create(system=system, **bad)
    ExternalScore.objects.create(system=system, score=0.5)
    with pytest.raises(IntegrityError), transaction.atomic():
        ExternalScore.objects.create(system=system, score=0.6)


def test_the_command_prints_what_it_did(competition, tmp_path: Path):
    path = tmp_path / "scores.csv"
    path.write_text("\ufeffsystem,score,exact_match,chrf\nOpus,0.61,0.42,0.88\n", encoding="utf-8")
    out = io.StringIO()
    call_command("import_system_scores", "iol", str(path), stdout=out)
    assert "1 figures created, 0 updated" in out.getvalue()
    assert "new external systems (no outputs): Opus" in out.getvalue()


def test_the_command_refuses_bad_input_with_the_place(competition, tmp_path: Path):
    path = tmp_path / "scores.csv"
    path.write_text("system,score\nOpus,1.2\n", encoding="utf-8")
    with pytest.raises(CommandError, match=r"scores.csv, line 2, field 'score': 1.2 is outside"):
        call_command("import_system_scores", "iol", str(path))
    with pytest.raises(CommandError, match="no such file"):
        call_command("import_system_scores", "iol", str(tmp_path / "none.csv"))
    with pytest.raises(CommandError, match="unknown competition"):
        call_command("import_system_scores", "nope", str(path))
    path.write_bytes(b"system,score\nOp\xffus,0.5\n")
    with pytest.raises(CommandError, match="not UTF-8"):
        call_command("import_system_scores", "iol", str(path))
    assert not System.objects.exists()


def test_auto_scores_of_an_external_system_with_whole_and_per_problem_figures(competition):
    # The whole competition's row (problem None) beside per-problem rows once failed to sort.
    _import(competition, "system,problem,score\nFar,,0.5\nFar,1,0.4\n")
    (far,) = system_auto_scores(competition)
    assert far.source == "external"
    assert far.overall.score == 0.5
    assert list(far.per_problem) == [1] and far.per_problem[1].score == 0.4

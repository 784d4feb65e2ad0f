"""Runs' outputs (issue 12, item 1): the import scores each output by the competition's rule,
its refusals, the command and the upload, and run_problem_scores against a hand computation."""

from __future__ import annotations

import io
from datetime import UTC, datetime

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from puzzles.analytics.runs.output_imports import run_outputs_import
from puzzles.analytics.runs.scores import ALL_TASKS, run_problem_scores
from puzzles.errors import ImportFailure
from puzzles.models import Competition, Problem, Run, RunOutput, System, Task

T0 = datetime(2026, 3, 1, 10, tzinfo=UTC)
# Problem 1: task A (weight 1, two items), task B (weight 2); problem 2: task C (weight 1).
A, B, C = "12026010100", "12026010200", "12026020100"


def _task(problem: Problem, external_id: str, number: int, weight: float, key) -> Task:
    return Task.objects.create(
        problem=problem,
        external_id=external_id,
        number=number,
        query="Translate.",
        task_type=Task.TaskType.TRANSLATION,
        eval_type=Task.EvalType.SINGLE,
        split=Task.Split.PUBLIC,
        weight=weight,
        answer_key=key,
    )


def _run(system: System, index: int) -> Run:
    return Run.objects.create(
        system=system, run_index=index, submitted_at=T0, status="scored", public_score=0.1
    )


@pytest.fixture
def competition(db):
    competition = Competition.objects.create(slug="outs", name="Outs", year=2026)
    one = Problem.objects.create(competition=competition, number=1, title="One")
    two = Problem.objects.create(competition=competition, number=2, title="Two")
    _task(one, A, 1, 1.0, [["one"], ["two"]])
    _task(one, B, 2, 2.0, [["cat"]])
    _task(two, C, 1, 1.0, [["abc"]])
    alpha = System.objects.create(competition=competition, name="Alpha")
    beta = System.objects.create(competition=competition, name="Beta")
    _run(alpha, 1)
    _run(alpha, 2)
    _run(beta, 1)
    Run.objects.create(system=beta, run_index=9, submitted_at=T0, status="failed", failure="limit")
    return competition


HEADER = "team,run,task,output\n"
# Run 1 of Alpha: A half right ("xyz" shares no character with "two"), B right, no C.
# Run 2 of Alpha: A right, B wrong, C "ab" against "abc" (EM 0, chrF 35/79 by hand:
# P = mean(2/2, 1/1) = 1, R = mean(2/3, 1/2, 0/1) = 7/18, F = 5PR/(4P+R) = 35/79).
GOOD = HEADER + (
    f'Alpha,1,{A},"[""one"", ""xyz""]"\n'
    f"Alpha,1,{B},cat\n"
    f'Alpha,2,{A},"1. one\n2. two"\n'
    f"Alpha,2,{B},dog\n"
    f'Alpha,2,{C},"[""ab""]"\n'
)


def _import(competition, text: str, file: str = "outs.csv"):
    return run_outputs_import(competition=competition, stream=io.StringIO(text), file=file)


def _stored() -> dict[tuple[str, int, str], tuple[float, float]]:
    return {
        (o.run.system.name, o.run.run_index, o.task.external_id): (o.exact_match, o.chrf)
        for o in RunOutput.objects.select_related("run__system", "task")
    }


def test_import_scores_every_output_by_the_rule(competition):
    result = _import(competition, GOOD)
    assert result.lines() == [
        "outs.csv: 5 outputs of 2 runs stored and scored (the earlier outputs of these runs "
        "replaced)",
        "warning: 1 run(s) answer fewer than the competition's 3 tasks; a missing task scores 0",
    ]
    stored = _stored()
    assert stored[("Alpha", 1, A)] == (0.5, 0.5)
    assert stored[("Alpha", 1, B)] == (1.0, 1.0)
    assert stored[("Alpha", 2, A)] == (1.0, 1.0)
    assert stored[("Alpha", 2, B)] == (0.0, 0.0)
    em, chrf = stored[("Alpha", 2, C)]
    assert em == 0.0 and chrf == pytest.approx(35 / 79, abs=1e-6)
    assert RunOutput.objects.get(run__run_index=2, task__external_id=A).raw_text == "1. one\n2. two"


def test_import_replaces_only_the_runs_it_names(competition):
    _import(competition, GOOD)
    _import(competition, HEADER + f"Alpha,1,{C},abc\nBeta,1,{A},one\n")
    stored = _stored()
    assert set(stored) == {
        ("Alpha", 1, C),
        ("Beta", 1, A),
        ("Alpha", 2, A),
        ("Alpha", 2, B),
        ("Alpha", 2, C),
    }
    assert stored[("Alpha", 1, C)] == (1.0, 1.0)


@pytest.mark.parametrize(
    ("body", "line", "field", "words"),
    [
        (f"Nobody,1,{A},x\n", 2, "team", "no run 1 of team 'Nobody'"),
        (f"Alpha,7,{A},x\n", 2, "run", "no run 7 of team 'Alpha'"),
        (f"Alpha,x,{A},x\n", 2, "run", "not a run index"),
        (f",1,{A},x\n", 2, "team", "team is empty"),
        ("Alpha,1,12026990100,x\n", 2, "task", "no task with id '12026990100'"),
        (f"Alpha,1,{A},x\nAlpha,1,{A},y\n", 3, "task", "first on line 2"),
        (f'Alpha,1,{A},x\nAlpha,1,{B},"[""a\\u0000""]"\n', 3, "output", "a NUL character"),
        (f"Alpha,{2**31},{A},x\n", 2, "run", "not a run index"),
        (f"Alpha,{'9' * 5000},{A},x\n", 2, "run", "not a run index"),
        (f"Beta,9,{A},x\n", 2, "run", "failed: a failed run has no outputs"),
    ],
)
def test_refusals_name_file_line_field_and_write_nothing(competition, body, line, field, words):
    _import(competition, GOOD)
    before = _stored()
    with pytest.raises(ImportFailure) as failure:
        _import(competition, HEADER + body, file="bad.csv")
    error = failure.value
    assert (error.file, error.line, error.field) == ("bad.csv", line, field)
    assert words in error.message
    assert _stored() == before


def test_refuses_a_missing_column_and_an_empty_file(competition):
    with pytest.raises(ImportFailure, match="output"):
        _import(competition, f"team,run,task\nAlpha,1,{A}\n")
    with pytest.raises(ImportFailure, match="no rows"):
        _import(competition, HEADER)
    assert not RunOutput.objects.exists()


def test_command_imports_and_refuses(competition, tmp_path):
    good, bad = tmp_path / "good.csv", tmp_path / "bad.csv"
    good.write_text(GOOD, encoding="utf-8")
    bad.write_text(GOOD + f"Alpha,9,{A},x\n", encoding="utf-8")
    out = io.StringIO()
    call_command("import_run_outputs", "outs", str(good), stdout=out)
    assert "5 outputs of 2 runs stored and scored" in out.getvalue()
    with pytest.raises(CommandError, match=r"bad\.csv, line 8, field 'run'"):
        call_command("import_run_outputs", "outs", str(bad), stdout=io.StringIO())
    assert RunOutput.objects.count() == 5


# --- run_problem_scores ------------------------------------------------------------------


def test_run_problem_scores_against_a_hand_computation(competition):
    _import(competition, GOOD)
    runs = dict(Run.objects.values_list("run_index", "pk").filter(system__name="Alpha"))
    beta = Run.objects.get(system__name="Beta", run_index=1).pk
    scores = run_problem_scores([runs[1], runs[2], beta])
    # Beta's run has no outputs: it has no figures.
    assert set(scores) == {runs[1], runs[2]}
    # Run 1: problem 1 EM = chrF = (1 x 0.5 + 2 x 1) / 3; problem 2 unanswered, so it has
    # no figure (not a zero one, as in the ablations); overall, over all tasks, the
    # unanswered task counts 0: EM = chrF = (0.5 + 2 + 0) / 4.
    assert scores[runs[1]] == {1: round(2.5 / 3, 4), ALL_TASKS: 0.625}
    # Run 2: problem 1 EM = chrF = (1 + 2 x 0) / 3; problem 2 EM 0 so score 0; overall
    # EM = 1/4, chrF = (1 + 0 + 35/79) / 4, score = sqrt(EM x chrF).
    overall = (0.25 * (1 + 35 / 79) / 4) ** 0.5
    assert scores[runs[2]] == {1: round(1 / 3, 4), 2: 0.0, ALL_TASKS: round(overall, 4)}
    assert round(overall, 4) == 0.3003


def test_run_problem_scores_takes_two_queries_whatever_the_runs(competition):
    _import(competition, GOOD)
    alpha = System.objects.get(name="Alpha")
    for index in range(3, 23):
        run = _run(alpha, index)
        RunOutput.objects.create(
            run=run, task=Task.objects.get(external_id=A), exact_match=1, chrf=1
        )
    few = list(Run.objects.filter(run_index__lte=2).values_list("pk", flat=True))
    many = list(Run.objects.values_list("pk", flat=True))
    counts = []
    for ids in (few, many):
        with CaptureQueriesContext(connection) as captured:
            scores = run_problem_scores(iter(ids))
        counts.append(len(captured))
    assert counts == [2, 2]
    assert len(scores) == 22
    assert run_problem_scores([]) == {}


# --- the page's second form --------------------------------------------------------------


def _upload(client, url, text: str, name: str):
    upload = io.BytesIO(text.encode())
    upload.name = name
    return client.post(url, {"outputs-file": upload, "import": "outputs"}, follow=True)


def test_upload_post_redirect_get(organizer_client, competition):
    url = reverse("puzzles:analytics_runs", args=[competition.slug])
    page = organizer_client.get(url).content.decode()
    assert "Import runs' outputs" in page and 'name="outputs-file"' in page
    response = _upload(organizer_client, url, GOOD, "up.csv")
    assert response.redirect_chain[-1][0] == url
    assert "5 outputs of 2 runs stored and scored" in response.content.decode()
    assert RunOutput.objects.count() == 5
    response = _upload(organizer_client, url, HEADER + f"<b>x</b>,1,{A},x\n", "bad.csv")
    text = response.content.decode()
    assert "bad.csv, line 2, field &#x27;team&#x27;" in text
    assert "<b>x</b>" not in text and "&lt;b&gt;x&lt;/b&gt;" in text
    assert RunOutput.objects.count() == 5


def test_jurors_cannot_upload_and_anonymous_is_redirected(client, juror, competition):
    url = reverse("puzzles:analytics_runs", args=[competition.slug])
    upload = io.BytesIO(GOOD.encode())
    upload.name = "up.csv"
    response = client.post(url, {"outputs-file": upload, "import": "outputs"})
    assert response.status_code == 302 and "login" in response["Location"]
    client.force_login(juror)
    upload.seek(0)
    assert client.post(url, {"outputs-file": upload, "import": "outputs"}).status_code == 403
    assert not RunOutput.objects.exists()


def test_cells_pandas_reads_as_missing_are_empty_answers(competition):
    # As the board read submissions: "NA" or "nan" is no answer, not the text "NA".
    _import(competition, HEADER + f"Alpha,1,{A},NA\nAlpha,1,{B},nan\nAlpha,2,{B},NA cat\n")
    stored = {
        (o.run.run_index, o.task.external_id): o
        for o in RunOutput.objects.select_related("run", "task")
    }
    assert stored[(1, A)].raw_text == "" and stored[(1, B)].raw_text == ""
    assert (stored[(1, A)].exact_match, stored[(1, A)].chrf) == (0.0, 0.0)
    assert stored[(2, B)].raw_text == "NA cat"

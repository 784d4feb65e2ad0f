"""Imports through the commands: submission CSVs, raw JSONL, the IOL-AI layout, and bad input.

Bad input must raise CommandError naming the file, the line and the field, and change nothing.
"""

from __future__ import annotations

import csv
import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from puzzles.models import Competition, Output, Problem, System, Task
from puzzles.selectors import leaderboard

from .factories import CompetitionFactory, ProblemFactory, TaskFactory

SLUG = "mini"
T1, T2, T3 = "12026010100", "12026010200", "12026020100"
QUERY_1 = "Translate into English:\n1. kaimek\n2. tasorel\n3. malamoun"


@pytest.fixture
def mini(db) -> Competition:
    """A small competition: three tasks over two problems, one of them with alternatives."""
    competition = CompetitionFactory(slug=SLUG)
    p1 = ProblemFactory(competition=competition, number=1)
    p2 = ProblemFactory(competition=competition, number=2)
    TaskFactory(
        problem=p1,
        number=1,
        external_id=T1,
        query=QUERY_1,
        answer_key=[["dogs"], ["your house"], ["in my tree"]],
    )
    TaskFactory(
        problem=p1,
        number=2,
        external_id=T2,
        query="Translate into English:\n4. amokra",
        eval_type=Task.EvalType.MULTI,
        answer_key=[["he ate", "she ate"]],
    )
    TaskFactory(
        problem=p2,
        number=1,
        external_id=T3,
        query="Write as a number:\na. fenham kiri",
        task_type=Task.TaskType.TEXT_TO_NUM,
        split=Task.Split.PRIVATE,
        weight=2.0,
        answer_key=[["27"]],
    )
    return competition


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def _csv(path: Path, rows: list[list[str]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)
    return path


def _import(path: Path, system: str, *flags: str) -> str:
    out = StringIO()
    call_command("import_outputs", SLUG, str(path), "--system", system, *flags, stdout=out)
    return out.getvalue()


def _board(competition: Competition) -> dict[str, dict]:
    _, rows = leaderboard(competition)
    return {r.system: r.as_dict() for r in rows}


def _snapshot() -> dict[str, object]:
    return {
        "competitions": Competition.objects.count(),
        "problems": list(Problem.objects.order_by("pk").values_list("pk", "context")),
        "tasks": list(Task.objects.order_by("pk").values_list("pk", "query", "answer_key")),
        "systems": list(System.objects.order_by("pk").values_list("pk", "name")),
        "outputs": list(
            Output.objects.order_by("pk").values_list("pk", "raw_text", "explanation", "scores")
        ),
    }


def _assert_location(message: str, *, file: Path, line: int | None, field: str | None) -> None:
    assert str(file) in message
    if line is not None:
        assert f"line {line}" in message
    if field is not None:
        assert f"field '{field}'" in message


GOOD_ROWS = [
    ["id", "pred", "explanation"],
    [T1, json.dumps(["dogs", "your house", "in my tree"]), "-ek is the plural."],
    [T2, '["she ate"]', ""],
    [T3, "27", "six times four plus three"],
]


# --- import_outputs: CSV ----------------------------------------------------------------


def test_import_csv_creates_system_outputs_and_scores(mini, tmp_path):
    path = _csv(tmp_path / "sys.csv", GOOD_ROWS)
    summary = _import(path, "Alpha", "--team", "Team A", "--tier", "frontier")
    assert "systems: 1 created, 0 updated" in summary
    assert "outputs: 3 created, 0 updated" in summary
    assert "warning" not in summary

    system = System.objects.get(competition=mini, name="Alpha")
    assert (system.team, system.tier) == ("Team A", System.Tier.FRONTIER)
    outputs = {o.task.external_id: o for o in system.outputs.select_related("task")}
    assert set(outputs) == {T1, T2, T3}
    assert outputs[T1].source == Output.Source.SUBMISSION
    assert outputs[T1].parsed_items == ["dogs", "your house", "in my tree"]
    assert outputs[T1].explanation == "-ek is the plural."
    assert outputs[T2].explanation == ""
    assert outputs[T3].format_flags["clean_json_list"] is False  # "27" is JSON, not a list
    assert outputs[T3].parsed_items == ["27"]
    assert outputs[T2].scores["iol2026"]["parsed"]["em"] == 1.0  # an alternative counts

    row = _board(mini)["Alpha"]
    assert (row["score"], row["exact_match"], row["chrf"]) == (1.0, 1.0, 1.0)
    assert row["explanation_rate"] == round(2 / 3, 4)


def test_import_csv_without_explanation_column(mini, tmp_path):
    path = _csv(tmp_path / "sys.csv", [["id", "pred"], [T1, "1. dogs\n2. house\n3. my tree"]])
    _import(path, "Beta")
    output = Output.objects.get(system__name="Beta", task__external_id=T1)
    assert output.parsed_items == ["dogs", "house", "my tree"]
    assert output.format_flags["clean_json_list"] is False
    assert output.scores["iol2026"]["parsed"]["item_em"] == [1.0, 0.0, 0.0]
    assert output.explanation == ""


def test_import_csv_warns_about_tasks_without_an_answer(mini, tmp_path):
    path = _csv(tmp_path / "sys.csv", [["id", "pred"], [T2, '["he ate"]']])
    summary = _import(path, "Gamma")
    assert f"warning: no answer for 2 task(s) ({T1}, {T3}); they score 0" in summary
    row = _board(mini)["Gamma"]
    # Only T2 (weight 1 of 1 + 1 + 2) is answered, and answered right.
    assert row["exact_match"] == 0.25
    assert row["empty_predictions"] == 2


def test_reimport_csv_updates_outputs_in_place(mini, tmp_path):
    first = _csv(tmp_path / "v1.csv", [["id", "pred"], [T1, '["dog", "house", "tree"]']])
    _import(first, "Delta")
    pks = dict(Output.objects.filter(system__name="Delta").values_list("task__external_id", "pk"))
    score_before = _board(mini)["Delta"]["score"]
    assert score_before == 0.0

    second = _csv(tmp_path / "v2.csv", GOOD_ROWS)
    summary = _import(second, "Delta")
    assert "systems: 0 created, 1 updated" in summary
    assert "outputs: 2 created, 1 updated" in summary
    assert System.objects.filter(competition=mini, name="Delta").count() == 1
    after = dict(Output.objects.filter(system__name="Delta").values_list("task__external_id", "pk"))
    assert after[T1] == pks[T1]
    assert len(after) == 3
    output = Output.objects.get(pk=pks[T1])
    assert output.parsed_items == ["dogs", "your house", "in my tree"]
    assert output.explanation == "-ek is the plural."
    assert _board(mini)["Delta"]["score"] == 1.0


# --- import_outputs: raw JSONL ----------------------------------------------------------


RAW_T1 = (
    "Let me compare the forms.\n\n## Explanation\nThe suffix -ek marks plurals.\n\n"
    "## Answer\n1. dogs\n2. your house\n3. in my tree\n"
)


def test_import_raw_jsonl_extracts_answers_and_explanation(mini, tmp_path):
    lines = [
        json.dumps({"id": T1, "output": RAW_T1}),
        "",  # blank lines are skipped
        json.dumps(
            {
                "id": T2,
                "output": "I think the answer is:\n\n**4.** she ate\n\nBecause -ra is the past.",
            }
        ),
        json.dumps({"id": T3, "output": None, "explanation": "I could not work it out."}),
    ]
    path = _write(tmp_path / "raw.jsonl", "\n".join(lines) + "\n")
    summary = _import(path, "Raw", "--raw")
    assert "outputs: 3 created, 0 updated" in summary

    outputs = {
        o.task.external_id: o
        for o in Output.objects.filter(system__name="Raw").select_related("task")
    }
    assert all(o.source == Output.Source.MODEL_TEXT for o in outputs.values())
    assert outputs[T1].raw_text == RAW_T1
    assert outputs[T1].extracted_items == ["dogs", "your house", "in my tree"]
    assert outputs[T1].explanation == "The suffix -ek marks plurals."
    assert outputs[T1].scores["iol2026"]["extracted"]["em"] == 1.0
    assert outputs[T1].scores["iol2026"]["parsed"]["em"] < 1.0  # the naive parser fails
    assert outputs[T2].extracted_items == ["she ate"]
    assert outputs[T2].explanation == "Because -ra is the past."
    assert outputs[T3].raw_text == ""
    assert outputs[T3].explanation == "I could not work it out."

    # The official stage of free model text is the extracted one.
    row = _board(mini)["Raw"]
    assert row["exact_match"] == 0.5  # T1 and T2 right (weight 2 of 4), T3 empty


def test_reimport_raw_jsonl_updates_in_place(mini, tmp_path):
    path = _write(tmp_path / "raw.jsonl", json.dumps({"id": T1, "output": "## Answer\ndog"}) + "\n")
    summary = _import(path, "Raw", "--raw")
    assert f"warning: no answer for 2 task(s) ({T2}, {T3}); they score 0" in summary
    pk = Output.objects.get(system__name="Raw", task__external_id=T1).pk
    _write(path, json.dumps({"id": T1, "output": RAW_T1}) + "\n")
    summary = _import(path, "Raw", "--raw")
    assert "outputs: 0 created, 1 updated" in summary
    output = Output.objects.get(pk=pk)
    assert output.extracted_items == ["dogs", "your house", "in my tree"]
    assert output.scores["iol2026"]["extracted"]["em"] == 1.0
    assert Output.objects.filter(system__name="Raw").count() == 1


# --- import_outputs: bad input ----------------------------------------------------------


@pytest.fixture
def existing(mini, tmp_path):
    """A system already imported, so failed imports can be seen to leave it untouched."""
    _import(_csv(tmp_path / "existing.csv", GOOD_ROWS), "Existing")
    return mini


def test_import_outputs_nonexistent_file(existing, tmp_path):
    before = _snapshot()
    path = tmp_path / "missing.csv"
    with pytest.raises(CommandError) as exc:
        _import(path, "Existing")
    # There is no line or field to name when the file is not there.
    assert str(path) in str(exc.value)
    assert "no such file" in str(exc.value)
    assert _snapshot() == before


def test_import_outputs_unknown_competition(existing, tmp_path):
    path = _csv(tmp_path / "sys.csv", GOOD_ROWS)
    with pytest.raises(CommandError, match="unknown competition 'nope'"):
        call_command("import_outputs", "nope", str(path), "--system", "X", stdout=StringIO())


BAD_CSVS = [
    pytest.param(
        [["task", "prediction"], [T1, "x"]],
        1,
        "id",
        "missing column(s) id, pred",
        id="wrong-columns",
    ),
    pytest.param(
        [["id", "explanation"], [T1, "x"]],
        1,
        "pred",
        "missing column(s) pred",
        id="missing-pred-column",
    ),
    pytest.param(
        [["id", "pred"], [T1, '["x"]'], ["12026099900", '["x"]']],
        3,
        "id",
        "unknown task id '12026099900'",
        id="unknown-task",
    ),
    pytest.param(
        [["id", "pred"], [T1, '["x"]'], [T2, '["x"]'], [T1, '["y"]']],
        4,
        "id",
        f"duplicate id '{T1}' (first on line 2)",
        id="duplicate-id",
    ),
    pytest.param(
        [["id", "pred"], [T1, "x"], [T2]],
        3,
        "pred",
        "too short",
        id="short-row",
    ),
]


@pytest.mark.parametrize(("rows", "line", "field", "words"), BAD_CSVS)
@pytest.mark.parametrize("system", ["Existing", "Newcomer"])
def test_import_csv_bad_input_names_file_line_field(
    existing, tmp_path, rows, line, field, words, system
):
    path = _csv(tmp_path / "bad.csv", rows)
    before = _snapshot()
    with pytest.raises(CommandError) as exc:
        _import(path, system)
    message = str(exc.value)
    assert words in message
    _assert_location(message, file=path, line=line, field=field)
    assert _snapshot() == before


def test_import_csv_error_names_the_line_where_a_multiline_row_starts(existing, tmp_path):
    # Submissions often hold numbered lines inside one quoted pred; the unknown id below
    # is on line 5 of the file (its pred runs on to line 7).
    rows = [
        ["id", "pred"],
        [T1, "1. dogs\n2. your house\n3. in my tree"],
        ["12026099900", "1. x\n2. y\n3. z"],
    ]
    path = _csv(tmp_path / "bad.csv", rows)
    assert path.read_text().splitlines()[4].startswith("12026099900,")
    before = _snapshot()
    with pytest.raises(CommandError) as exc:
        _import(path, "Existing")
    message = str(exc.value)
    assert "unknown task id '12026099900'" in message
    assert f"{path}, line 5, field 'id'" in message, message
    assert _snapshot() == before


def test_import_csv_row_with_too_many_fields(existing, tmp_path):
    path = _write(tmp_path / "bad.csv", f'id,pred\n{T1},"[""a""]"\n{T2},he ate,she ate,extra\n')
    before = _snapshot()
    with pytest.raises(CommandError) as exc:
        _import(path, "Existing")
    message = str(exc.value)
    assert "4 fields where the header has 2" in message
    # The row as a whole is wrong, so no one column is named.
    _assert_location(message, file=path, line=3, field=None)
    assert _snapshot() == before


def test_import_csv_without_rows(existing, tmp_path):
    path = _write(tmp_path / "empty.csv", "id,pred\n")
    before = _snapshot()
    with pytest.raises(CommandError) as exc:
        _import(path, "Newcomer")
    assert "no rows after the header" in str(exc.value)
    _assert_location(str(exc.value), file=path, line=2, field=None)
    assert _snapshot() == before


BAD_JSONL = [
    pytest.param(
        [json.dumps({"id": T1, "output": "a"}), '{"id": "12026010200", "output": "b"'],
        2,
        None,
        "malformed JSON",
        id="malformed-json",
    ),
    pytest.param(
        [json.dumps({"id": T1, "output": "a"}), "", json.dumps({"id": T2, "text": "b"})],
        3,
        "output",
        "missing key 'output'",
        id="missing-output",
    ),
    pytest.param(
        [json.dumps({"output": "a"})],
        1,
        "id",
        "missing key 'id'",
        id="missing-id",
    ),
    pytest.param(
        [json.dumps({"id": T1, "output": ["a"]})],
        1,
        "output",
        "must be a string",
        id="output-not-string",
    ),
    pytest.param(
        [json.dumps({"id": T1, "output": "a"}), json.dumps({"id": "99", "output": "b"})],
        2,
        "id",
        "unknown task id '99'",
        id="unknown-task",
    ),
    pytest.param(
        [json.dumps({"id": T1, "output": "a"}), json.dumps({"id": T1, "output": "b"})],
        2,
        "id",
        f"duplicate id '{T1}'",
        id="duplicate-id",
    ),
    pytest.param(
        [json.dumps(["not", "an", "object"])],
        1,
        None,
        "expected a JSON object",
        id="not-an-object",
    ),
]


@pytest.mark.parametrize(("lines", "line", "field", "words"), BAD_JSONL)
def test_import_jsonl_bad_input_names_file_line_field(
    existing, tmp_path, lines, line, field, words
):
    path = _write(tmp_path / "bad.jsonl", "\n".join(lines) + "\n")
    before = _snapshot()
    with pytest.raises(CommandError) as exc:
        _import(path, "Existing", "--raw")
    message = str(exc.value)
    assert words in message
    _assert_location(message, file=path, line=line, field=field)
    assert _snapshot() == before


# --- import_iolai: layouts built in tmp_path --------------------------------------------


TEST_HEADER = ["id", "context", "query", "work_lang", "task_lang", "task_type", "eval_type"]
SOLUTION_HEADER = ["id", "answer", "split", "points", "task_type", "eval_type"]


def _layout(
    root: Path,
    *,
    tests: list[list[str]] | None = None,
    solutions: list[list[str]] | None = None,
    predictions: list[dict] | None = None,
) -> Path:
    (root / "task").mkdir(parents=True, exist_ok=True)
    tests = tests or [
        [T1, "1. sorel: house", QUERY_1, "eng", "['xvl']", "translation", "single"],
        [T2, "1. sorel: house", "Translate:\n4. amokra", "eng", "['xvl']", "translation", "multi"],
        [T3, "ot 1", "Write:\na. fenham kiri", "eng", "['xos']", "text_to_num", "single"],
    ]
    solutions = solutions or [
        [T1, '["dogs", "your house", "in my tree"]', "public", "1", "translation", "single"],
        [T2, '[["he ate", "she ate"]]', "public", "1", "translation", "multi"],
        [T3, '["27"]', "private", "2", "text_to_num", "single"],
    ]
    _csv(root / "task" / "test.csv", [TEST_HEADER, *tests])
    _csv(root / "task" / "solution.csv", [SOLUTION_HEADER, *solutions])
    folder = root / "submissions" / "01_alpha"
    folder.mkdir(parents=True, exist_ok=True)
    _write(folder / "metadata.json", json.dumps({"team": "alpha", "account_type": "external"}))
    predictions = predictions or [
        {"id": T1, "pred": '["dogs", "house", "tree"]', "explanation": "plural -ek"},
        {"id": T2, "pred": '["she ate"]', "explanation": ""},
        {"id": T3, "pred": '["27"]', "explanation": ""},
    ]
    _write(folder / "predictions.json", json.dumps(predictions, indent=2))
    return root


def _import_iolai(root: Path, slug: str = "lay") -> str:
    out = StringIO()
    call_command("import_iolai", str(root), "--slug", slug, stdout=out)
    return out.getvalue()


def test_import_iolai_small_layout(db, tmp_path):
    summary = _import_iolai(_layout(tmp_path / "layout"))
    assert "tasks: 3 created, 0 updated" in summary
    assert "systems: 1 created, 0 updated" in summary
    competition = Competition.objects.get(slug="lay")
    assert competition.year == 2026
    task = Task.objects.get(problem__competition=competition, external_id=T2)
    assert (task.problem.number, task.number) == (1, 2)
    assert task.answer_key == [["he ate", "she ate"]]
    assert Task.objects.get(external_id=T3).weight == 2.0
    system = System.objects.get(competition=competition, name="alpha")
    assert system.tier == System.Tier.CHALLENGE
    row = _board(competition)["alpha"]
    # T2 and T3 right (3 of 4 points), T1 one item of three.
    assert row["exact_match"] == round((1 / 3 + 1 + 2) / 4, 4)


@pytest.fixture
def imported_layout(db, tmp_path):
    """A small layout already imported under slug "lay", to see failures change nothing."""
    root = _layout(tmp_path / "good")
    _import_iolai(root)
    return root


def _bad_solution(answer: str = '["dogs", "your house", "in my tree"]', split: str = "public"):
    return [
        [T1, '["dogs", "your house", "in my tree"]', "public", "1", "translation", "single"],
        [T2, '[["he ate", "she ate"]]', "public", "1", "translation", "multi"],
        [T3, answer, split, "2", "text_to_num", "single"],
    ]


BAD_LAYOUTS = [
    pytest.param(
        {"solutions": _bad_solution(answer='"27"')},
        "solution.csv",
        4,
        "answer",
        "answer key must be a non-empty JSON list",
        id="key-not-a-list",
    ),
    pytest.param(
        {"solutions": _bad_solution(answer='{"a": "27"}')},
        "solution.csv",
        4,
        "answer",
        "answer key must be a non-empty JSON list",
        id="key-an-object",
    ),
    pytest.param(
        {"solutions": _bad_solution(answer="[27, ")},
        "solution.csv",
        4,
        "answer",
        "answer key is not valid JSON",
        id="key-not-json",
    ),
    pytest.param(
        {"solutions": _bad_solution(answer='[["27", "twenty-seven"]]')},
        "solution.csv",
        4,
        "answer",
        "eval_type is 'single'",
        id="alternatives-in-single",
    ),
    pytest.param(
        {"solutions": _bad_solution(split="secret")},
        "solution.csv",
        4,
        "split",
        "'secret' is not one of public, private",
        id="unknown-split",
    ),
    pytest.param(
        {
            "tests": [
                [T1, "c", "q", "eng", "[]", "translation", "single"],
                [T2, "c", "q", "eng", "[]", "translation", "multi"],
                [T1, "c", "q2", "eng", "[]", "translation", "single"],
            ]
        },
        "test.csv",
        4,
        "id",
        f"duplicate task id '{T1}' (first on line 2)",
        id="duplicate-in-test-csv",
    ),
]


@pytest.mark.parametrize(("layout", "file", "line", "field", "words"), BAD_LAYOUTS)
def test_import_iolai_bad_layout_names_file_line_field(
    imported_layout, tmp_path, layout, file, line, field, words
):
    root = _layout(tmp_path / "bad", **layout)
    before = _snapshot()
    with pytest.raises(CommandError) as exc:
        _import_iolai(root)
    message = str(exc.value)
    assert words in message
    _assert_location(message, file=root / "task" / file, line=line, field=field)
    assert _snapshot() == before


def test_import_iolai_predictions_with_unknown_id(imported_layout, tmp_path):
    predictions = [
        {"id": T1, "pred": '["dogs"]', "explanation": ""},
        {"id": "12026099900", "pred": '["x"]', "explanation": ""},
    ]
    root = _layout(tmp_path / "bad", predictions=predictions)
    before = _snapshot()
    with pytest.raises(CommandError) as exc:
        _import_iolai(root)
    message = str(exc.value)
    path = root / "submissions" / "01_alpha" / "predictions.json"
    assert "unknown task id '12026099900'" in message
    # A JSON document has rows, not lines: the message names the row (the 2nd element).
    assert "row 2" in message
    _assert_location(message, file=path, line=None, field="id")
    assert _snapshot() == before


def test_import_iolai_missing_directory(db, tmp_path):
    with pytest.raises(CommandError) as exc:
        _import_iolai(tmp_path / "nowhere")
    assert str(tmp_path / "nowhere") in str(exc.value)
    assert Competition.objects.count() == 0


def test_import_iolai_new_slug_with_bad_layout_creates_nothing(db, tmp_path):
    root = _layout(tmp_path / "bad", solutions=_bad_solution(split="secret"))
    with pytest.raises(CommandError):
        _import_iolai(root, slug="fresh")
    assert Competition.objects.count() == 0
    assert Task.objects.count() == System.objects.count() == Output.objects.count() == 0

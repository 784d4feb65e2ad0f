"""import_solver_answers and import_judge_verdicts refuse bad input naming file, line and
field, and write nothing (an earlier good line included)."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from puzzles.context.lab.services import puzzles_import
from puzzles.context.results.imports import judge_verdicts_import, solver_answers_import
from puzzles.errors import ImportFailure
from puzzles.models import JudgeVerdict, SolverAnswer

pytestmark = pytest.mark.django_db

PUZZLE = {
    "slug": "tavo",
    "title": "Tavo (invented)",
    "language": "Tavo",
    "examples": [{"foreign": "tavo ri", "english": "yes, run"}],
    "questions": [
        {"id": "1.a", "direction": "to_english", "prompt": "tavo", "answer": "yes"},
        {"id": "1.b", "direction": "to_foreign", "prompt": "run", "answer": "ri"},
    ],
}
GOOD_ANSWER = {
    "puzzle": "tavo",
    "condition": "original",
    "model": "m",
    "question": "1.a",
    "answer": "yes",
}
GOOD_VERDICT = {"puzzle": "tavo", "condition": "random", "judge": "j", "verdict": "valid"}


@pytest.fixture(autouse=True)
def _puzzle():
    puzzles_import(stream=io.StringIO(json.dumps([PUZZLE])), file="p.json")


def _lines(*records) -> str:
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records)


def _with(base, **changes):
    record = dict(base)
    for key, value in changes.items():
        if value is ...:
            del record[key]
        else:
            record[key] = value
    return record


ANSWER_CASES = [
    (_with(GOOD_ANSWER, puzzle="nope"), "puzzle", "unknown puzzle 'nope'"),
    (_with(GOOD_ANSWER, condition="deleted"), "condition", "unknown condition 'deleted'"),
    (_with(GOOD_ANSWER, question="9.z"), "question", "has no question '9.z'"),
    (_with(GOOD_ANSWER, answer=3), "answer", "answer must be text"),
    (_with(GOOD_ANSWER, model=""), "model", "model is empty"),
    (_with(GOOD_ANSWER, model="m" * 201), "model", "longer than 200"),
    (_with(GOOD_ANSWER, answer=...), "answer", "missing"),
    (_with(GOOD_ANSWER, extra=1), "extra", "unknown field"),
    (GOOD_ANSWER, "question", "a second answer of 'm' to question '1.a'"),
    (
        '{"puzzle": "tavo", "condition": "original", "model": "m", "question": "1.b", '
        '"answer": "a\\u0000b"}',
        "answer",
        "NUL",
    ),
    ("[1, 2]", None, "expected a JSON object"),
    ('{"puzzle": ', None, "malformed JSON"),
]


@pytest.mark.parametrize(("bad", "field", "message"), ANSWER_CASES)
def test_bad_answer_line_is_refused_naming_file_line_and_field(bad, field, message):
    text = _lines(GOOD_ANSWER, bad)
    with pytest.raises(ImportFailure) as caught:
        solver_answers_import(stream=io.StringIO(text), file="answers.jsonl")
    error = caught.value
    assert (error.file, error.line) == ("answers.jsonl", 2)
    if field is not None:
        assert error.field == field
    assert message in str(error)
    assert SolverAnswer.objects.count() == 0


VERDICT_CASES = [
    (_with(GOOD_VERDICT, puzzle="nope"), "puzzle", "unknown puzzle 'nope'"),
    (_with(GOOD_VERDICT, condition="all"), "condition", "unknown condition 'all'"),
    (_with(GOOD_VERDICT, verdict="Unsolvable!"), "verdict", "verdict must be one of"),
    (_with(GOOD_VERDICT, verdict=None), "verdict", "verdict is not text"),
    (_with(GOOD_VERDICT, judge=...), "judge", "missing"),
    (_with(GOOD_VERDICT, verdict="unsolvable"), "judge", "a second verdict of 'j'"),
    (
        '{"puzzle": "tavo", "condition": "random", "judge": "j\\ud800", "verdict": "valid"}',
        "judge",
        "surrogate",
    ),
]


@pytest.mark.parametrize(("bad", "field", "message"), VERDICT_CASES)
def test_bad_verdict_line_is_refused_naming_file_line_and_field(bad, field, message):
    text = _lines(GOOD_VERDICT, bad)
    with pytest.raises(ImportFailure) as caught:
        judge_verdicts_import(stream=io.StringIO(text), file="verdicts.jsonl")
    error = caught.value
    assert (error.file, error.line, error.field) == ("verdicts.jsonl", 2, field)
    assert message in str(error)
    assert JudgeVerdict.objects.count() == 0


def test_blank_lines_are_counted_and_an_empty_file_is_refused():
    text = "\n" + _lines(GOOD_ANSWER) + "\n" + _lines(_with(GOOD_ANSWER, puzzle="x"))
    with pytest.raises(ImportFailure, match="line 4, field 'puzzle'"):
        solver_answers_import(stream=io.StringIO(text), file="a.jsonl")
    with pytest.raises(ImportFailure, match="no records"):
        judge_verdicts_import(stream=io.StringIO("\n \n"), file="v.jsonl")


def test_commands_exit_non_zero_with_the_message(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'{"puzzle": "tavo"}\n\xff\n')
    with pytest.raises(CommandError, match="bad.jsonl.*not UTF-8"):
        call_command("import_solver_answers", str(path))
    path.write_text(_lines(_with(GOOD_VERDICT, verdict="maybe")))
    with pytest.raises(CommandError, match=r"bad.jsonl, line 1, field 'verdict'"):
        call_command("import_judge_verdicts", str(path))
    with pytest.raises(CommandError, match="no such file"):
        call_command("import_judge_verdicts", str(tmp_path / "missing.jsonl"))
    assert not JudgeVerdict.objects.exists() and not SolverAnswer.objects.exists()


def test_null_empty_and_na_answers_are_abstentions():
    text = _lines(
        GOOD_ANSWER,
        _with(GOOD_ANSWER, question="1.b", answer=None),
        _with(GOOD_ANSWER, model="m2", answer="n/a."),
        _with(GOOD_ANSWER, model="m2", question="1.b", answer="  "),
    )
    solver_answers_import(stream=io.StringIO(text), file="a.jsonl")
    assert sorted(SolverAnswer.objects.values_list("model", "question__qid", "abstained")) == [
        ("m", "1.a", False),
        ("m", "1.b", True),
        ("m2", "1.a", True),
        ("m2", "1.b", True),
    ]

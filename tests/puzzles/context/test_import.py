"""puzzles_import and import_puzzles: the JSON schema, errors naming file and JSON path,
nothing written on a refusal; an existing slug is replaced unless it has results."""

from __future__ import annotations

import copy
import io
import json

import pytest
from django.core.management import CommandError, call_command

from puzzles.context.lab.services import puzzles_import
from puzzles.errors import ImportFailure
from puzzles.models import (
    Condition,
    ContextExample,
    ContextPuzzle,
    ContextQuestion,
    JudgeVerdict,
    SolverAnswer,
)

pytestmark = pytest.mark.django_db

PUZZLE = {
    "slug": "lirnu",
    "title": "Lirnu (invented)",
    "language": "Lirnu",
    "examples": [
        {"foreign": "Leo sana.", "english": "Leo sings."},
        {"foreign": ["mi=ta leo", "leo mi=ta"], "english": "Leo's house."},
        {"foreign": "sana ko", "english": "She sings."},
    ],
    "questions": [
        {"id": "3.1.a", "direction": "to_english", "prompt": "ko sana", "answer": "She sings."},
        {
            "id": "3.1.b",
            "direction": "to_foreign",
            "prompt": "Leo's house",
            "answer": ["mi=ta leo", "leo mi=ta"],
        },
    ],
}
OTHER = {
    "slug": "tavo",
    "title": "Tavo",
    "language": "Tavo",
    "examples": [{"foreign": "tavo", "english": "yes"}],
    "questions": [{"id": "1", "direction": "to_english", "prompt": "tavo", "answer": "yes"}],
}


def _import(data, file="p.json"):
    text = data if isinstance(data, str) else json.dumps(data)
    return puzzles_import(stream=io.StringIO(text), file=file)


def _state():
    return (
        list(ContextPuzzle.objects.values_list("slug", "title", "language")),
        list(ContextExample.objects.values_list("puzzle__slug", "position", "foreign")),
        list(ContextQuestion.objects.values_list("puzzle__slug", "qid", "direction", "answers")),
    )


def test_a_file_of_puzzles_is_imported_in_order():
    result = _import([PUZZLE, OTHER])
    assert result.created == ("lirnu", "tavo") and result.updated == ()
    puzzle = ContextPuzzle.objects.get(slug="lirnu")
    examples = list(puzzle.examples.order_by("position"))
    assert [(e.position, e.foreign, e.foreign_alternatives) for e in examples] == [
        (1, "Leo sana.", []),
        (2, "mi=ta leo", ["leo mi=ta"]),
        (3, "sana ko", []),
    ]
    questions = list(puzzle.questions.order_by("position"))
    assert [(q.qid, q.direction, q.answers) for q in questions] == [
        ("3.1.a", "to_english", ["She sings."]),
        ("3.1.b", "to_foreign", ["mi=ta leo", "leo mi=ta"]),
    ]


def _with(path: str, value, *, base=PUZZLE, delete=False):
    """Return [OTHER, a copy of base with the value at path set (or deleted)]."""
    puzzle = copy.deepcopy(base)
    *parents, last = path.split(".")
    node = puzzle
    for part in parents:
        node = node[int(part)] if part.isdigit() else node[part]
    if delete:
        del node[int(last) if last.isdigit() else last]
    else:
        node[int(last) if last.isdigit() else last] = value
    return [OTHER, puzzle]


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        (_with("examples", []), "puzzles[2].examples", "at least one of its examples"),
        (_with("examples", None, delete=True), "puzzles[2].examples", "examples missing"),
        (_with("questions", []), "puzzles[2].questions", "at least one of its questions"),
        (
            _with("questions.1.direction", None, delete=True),
            "puzzles[2].questions[2].direction",
            "missing direction",
        ),
        (
            _with("questions.1.direction", "to_klingon"),
            "puzzles[2].questions[2].direction",
            "'to_klingon'",
        ),
        (_with("questions.1.id", "3.1.a"), "puzzles[2].questions[2].id", "questions[1]"),
        (_with("examples.2.foreign", "  "), "puzzles[2].examples[3].foreign", "empty"),
        (_with("examples.1.foreign", ["a", ""]), "puzzles[2].examples[2].foreign[2]", "empty"),
        (_with("questions.0.answer", []), "puzzles[2].questions[1].answer", "empty list"),
        (_with("slug", "tavo"), "puzzles[2].slug", "already used by puzzles[1]"),
        (_with("slug", "no spaces"), "puzzles[2].slug", "letters, digits"),
        (_with("questions.0.answers", ["x"]), "puzzles[2].questions[1].answers", "unknown"),
        (_with("examples.0.english", "a\x00b"), "puzzles[2].examples[1].english", "NUL"),
        (_with("title", None), "puzzles[2].title", "not text (null)"),
        (_with("questions.0.prompt", 3), "puzzles[2].questions[1].prompt", "not text (a number)"),
        ({"slug": "x"}, "puzzles", "JSON list of puzzles"),
    ],
)
def test_bad_input_names_file_and_field_and_writes_nothing(data, field, message):
    before = _state()
    with pytest.raises(ImportFailure) as caught:
        _import(data)
    assert caught.value.file == "p.json"
    assert caught.value.field == field
    assert message in caught.value.message
    assert _state() == before == ([], [], [])


def test_malformed_json_names_the_line():
    with pytest.raises(ImportFailure) as caught:
        _import('[\n{"slug": "x",\n}]')
    assert caught.value.line == 3 and "malformed JSON" in caught.value.message


def test_too_deep_json_is_refused():
    with pytest.raises(ImportFailure, match="nested more than"):
        _import("[" * 100 + "]" * 100)


def test_an_existing_slug_is_replaced():
    _import([PUZZLE])
    changed = copy.deepcopy(PUZZLE)
    changed["title"] = "Lirnu, corrected"
    changed["examples"] = changed["examples"][:2]
    result = _import([changed, OTHER])
    assert result.created == ("tavo",) and result.updated == ("lirnu",)
    puzzle = ContextPuzzle.objects.get(slug="lirnu")
    assert puzzle.title == "Lirnu, corrected" and puzzle.examples.count() == 2


def test_a_puzzle_with_results_is_not_replaced_and_nothing_is_written():
    _import([PUZZLE])
    puzzle = ContextPuzzle.objects.get(slug="lirnu")
    SolverAnswer.objects.create(
        puzzle=puzzle,
        condition=Condition.ORIGINAL,
        model="m",
        question=puzzle.questions.first(),
        answer="She sings.",
    )
    before = _state()
    with pytest.raises(ImportFailure) as caught:
        _import([OTHER, PUZZLE])  # OTHER would be new: it must not be written either
    assert caught.value.field == "puzzles[2].slug" and "solver answers" in caught.value.message
    assert _state() == before


def test_verdicts_are_unique_per_puzzle_condition_and_judge():
    from django.db import IntegrityError, transaction

    _import([OTHER])
    puzzle = ContextPuzzle.objects.get()
    JudgeVerdict.objects.create(puzzle=puzzle, condition="targeted", judge="j", verdict="valid")
    with pytest.raises(IntegrityError), transaction.atomic():
        JudgeVerdict.objects.create(
            puzzle=puzzle, condition="targeted", judge="j", verdict="unsolvable"
        )


def test_the_command_imports_and_reports(tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps([PUZZLE, OTHER]), encoding="utf-8")
    out = io.StringIO()
    call_command("import_puzzles", str(path), stdout=out)
    assert out.getvalue().splitlines() == ["created lirnu", "created tavo", "2 created, 0 updated"]


def test_the_command_refuses_bad_input_in_one_line(tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps(_with("questions", [])), encoding="utf-8")
    with pytest.raises(CommandError) as caught:
        call_command("import_puzzles", str(path))
    assert str(caught.value) == (
        f"{path}, field 'puzzles[2].questions': a puzzle needs at least one of its questions "
        "(questions empty)"
    )
    with pytest.raises(CommandError, match="no such file"):
        call_command("import_puzzles", str(tmp_path / "missing.json"))

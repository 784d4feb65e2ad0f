"""The context lab's size limits (puzzles/context/lab/limits.py): a puzzle at every limit at once
imports and its pages answer; one past any limit is refused at import, naming the file and
the JSON path, and nothing is written (5,000 examples took 7-8 s a page, 20,000 killed the
worker)."""

from __future__ import annotations

import copy
import io
import json

import pytest
from django.urls import reverse

from puzzles.context.lab.analysis import analyse, tokens_whitespace
from puzzles.context.lab.limits import (
    MAX_ALTERNATIVES,
    MAX_CHARACTERS,
    MAX_EXAMPLES,
    MAX_QUESTIONS,
    MAX_TEXT,
    MAX_TOKENS,
)
from puzzles.context.lab.selectors import puzzle_inputs
from puzzles.context.lab.services import puzzle_from_problem, puzzles_import
from puzzles.errors import ImportFailure
from puzzles.models import ContextExample, ContextPuzzle, ContextQuestion, Task
from tests.puzzles.context.limit_puzzles import characters, puzzle_at_limits
from tests.puzzles.factories import ProblemFactory, TaskFactory

pytestmark = pytest.mark.django_db

AT_LIMITS = puzzle_at_limits()


def _import(*puzzles: dict, file: str = "p.json"):
    return puzzles_import(stream=io.StringIO(json.dumps(list(puzzles))), file=file)


def _nothing_written() -> bool:
    return not (
        ContextPuzzle.objects.exists()
        or ContextExample.objects.exists()
        or ContextQuestion.objects.exists()
    )


def test_a_puzzle_at_every_limit_imports_and_its_pages_answer(organizer_client):
    puzzle = AT_LIMITS
    assert len(puzzle["examples"]) == MAX_EXAMPLES
    assert len(puzzle["questions"]) == MAX_QUESTIONS
    assert characters(puzzle) == MAX_CHARACTERS
    assert len(puzzle["examples"][0]["foreign"]) == MAX_ALTERNATIVES
    assert max(len(q["answer"]) for q in puzzle["questions"]) == MAX_ALTERNATIVES
    assert max(len(e["english"]) for e in puzzle["examples"]) == MAX_TEXT
    _import(puzzle)
    examples, questions = puzzle_inputs(ContextPuzzle.objects.get(slug=puzzle["slug"]))
    words = {t for e in examples for text in e.foreign for t in tokens_whitespace(text)}
    assert len(words) == MAX_TOKENS
    assert len(analyse(examples, questions).tokens) == MAX_TOKENS
    for url in (
        reverse("puzzles:context_corpus"),
        reverse("puzzles:context_puzzle", args=[puzzle["slug"]]) + "?k=4",
        reverse("puzzles:context_puzzle_export", args=[puzzle["slug"], "coverage", "csv"]),
    ):
        assert organizer_client.get(url).status_code == 200, url


def _over(change) -> dict:
    puzzle = copy.deepcopy(AT_LIMITS)
    change(puzzle)
    return puzzle


def _more_examples(puzzle):
    puzzle["examples"].append({"foreign": puzzle["examples"][1]["foreign"], "english": ""})


def _more_questions(puzzle):
    puzzle["questions"].append(
        {"id": "extra", "direction": "to_english", "prompt": "x", "answer": "y"}
    )


def _more_forms(puzzle):
    puzzle["examples"][0]["foreign"].append("another form")


def _more_answers(puzzle):
    puzzle["questions"][0]["answer"].append("another answer")


def _longer_text(puzzle):
    puzzle["examples"][1]["english"] = "x" * (MAX_TEXT + 1)


def _more_characters(puzzle):
    puzzle["questions"][1]["prompt"] += "x"


def _more_words(puzzle):
    # A word that occurs elsewhere too gives way to a new one of its length.
    words = puzzle["examples"][5]["foreign"].split()
    elsewhere = {w for e in puzzle["examples"][6:] for w in e["foreign"].split()}
    shared = next(w for w in words if w in elsewhere)
    words[words.index(shared)] = "z" * len(shared)
    puzzle["examples"][5]["foreign"] = " ".join(words)


@pytest.mark.parametrize(
    ("change", "field", "says"),
    [
        (
            _more_examples,
            "puzzles[2].examples",
            f"81 examples; a puzzle has at most {MAX_EXAMPLES}",
        ),
        (_more_questions, "puzzles[2].questions", "101 questions; a puzzle has at most 100"),
        (_more_forms, "puzzles[2].examples[1].foreign", "11 alternatives; at most 10"),
        (_more_answers, "puzzles[2].questions[1].answer", "11 alternatives; at most 10"),
        (_longer_text, "puzzles[2].examples[2].english", "501 characters; a text has at most 500"),
        (_more_characters, "puzzles[2]", "20,001 characters of text in all"),
        # Named at the example where the 401st word appears.
        (_more_words, "puzzles[2].examples[79].foreign", "over 400 distinct foreign words"),
    ],
)
def test_a_puzzle_past_a_limit_is_refused_and_nothing_written(change, field, says):
    small = {
        "slug": "small",
        "examples": [{"foreign": "ka"}],
        "questions": [{"id": "1", "direction": "to_english", "prompt": "ka", "answer": "a"}],
    }
    with pytest.raises(ImportFailure) as caught:
        _import(small, _over(change), file="big.json")
    assert (caught.value.file, caught.value.field) == ("big.json", field)
    assert says in caught.value.message
    assert _nothing_written()


def test_twenty_thousand_examples_are_refused_before_anything_is_analysed():
    puzzle = {
        "slug": "huge",
        "examples": [{"foreign": f"w{n}", "english": ""} for n in range(20_000)],
        "questions": [{"id": "1", "direction": "to_english", "prompt": "w1", "answer": "a"}],
    }
    with pytest.raises(ImportFailure) as caught:
        _import(puzzle)
    assert caught.value.field == "puzzles[1].examples"
    assert "20000 examples" in caught.value.message
    assert _nothing_written()


def test_a_problem_past_a_limit_becomes_no_puzzle():
    lines = "\n".join(f"{n}. w{n} ka | word {n}" for n in range(1, MAX_EXAMPLES + 2))
    problem = ProblemFactory(context=f"Some sentences.\n\n{lines}\n")
    TaskFactory(
        problem=problem,
        query=f"Translate into English:\n\n{MAX_EXAMPLES + 2}. w1 ka\n",
        task_type=Task.TaskType.TRANSLATION,
        answer_key=[["word 1"]],
    )
    with pytest.raises(ImportFailure) as caught:
        puzzle_from_problem(problem=problem, slug="big", dry_run=True)
    assert caught.value.field == "examples"
    assert f"{MAX_EXAMPLES + 1} examples" in caught.value.message
    assert _nothing_written()

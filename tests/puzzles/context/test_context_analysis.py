"""context_analysis: the JSON report of a stored puzzle, both tokenizers; the selector's
query count does not grow with the puzzle."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from puzzles.context.lab.selectors import puzzle_analysis
from puzzles.context.lab.services import PuzzleSpec, puzzle_save
from puzzles.models import ContextPuzzle
from tests.puzzles.context.test_analysis import A_EXAMPLES, A_QUESTIONS, L_EXAMPLES, L_QUESTIONS

pytestmark = pytest.mark.django_db


def _save(slug, examples, questions):
    spec = PuzzleSpec(slug=slug, title=slug, language="", examples=examples, questions=questions)
    return puzzle_save(spec=spec)[0]


def _run(*argv):
    out = io.StringIO()
    call_command("context_analysis", *argv, stdout=out)
    return json.loads(out.getvalue())


def test_the_report_of_a_fragile_puzzle():
    _save("a", A_EXAMPLES, A_QUESTIONS)
    report = _run("a", "--tokenizer", "whitespace", "--format", "json")
    # Figures of puzzle A, computed by hand in test_analysis.py.
    assert report == {
        "puzzle": "a",
        "tokenizer": "whitespace",
        "fragile": True,
        "max_dq": 1,
        "examples": [
            {"index": 1, "d": 0, "dq": 0, "damaged_questions": []},
            {"index": 2, "d": 0, "dq": 0, "damaged_questions": []},
            {"index": 3, "d": 1, "dq": 1, "damaged_questions": ["q1"]},
            {"index": 4, "d": 2, "dq": 1, "damaged_questions": ["q2"]},
            {"index": 5, "d": 1, "dq": 1, "damaged_questions": ["q2"]},
        ],
    }


def test_the_tokenizer_changes_the_verdict_and_normalized_is_the_default():
    _save("leo", L_EXAMPLES, L_QUESTIONS)
    paper = _run("leo", "--tokenizer", "whitespace")
    assert paper["fragile"] and [e["d"] for e in paper["examples"]] == [1, 2, 0, 1]
    ours = _run("leo")
    assert ours["tokenizer"] == "normalized" and not ours["fragile"] and ours["max_dq"] == 0
    assert [e["d"] for e in ours["examples"]] == [0, 1, 0, 0]


def test_an_unknown_puzzle_names_the_known_ones():
    _save("leo", L_EXAMPLES, L_QUESTIONS)
    with pytest.raises(CommandError, match=r"unknown puzzle 'nope' \(known: leo\)"):
        _run("nope")


def test_the_selector_reads_a_puzzle_in_two_queries(django_assert_num_queries):
    from puzzles.context.lab.analysis import Example, Question

    examples = tuple(Example(foreign=(f"w{j} x{j % 7}", f"y{j}")) for j in range(40))
    questions = tuple(
        Question(id=f"{k}", direction="to_foreign", prompt="?", answers=(f"w{k}", f"x{k % 7}"))
        for k in range(30)
    )
    _save("big", examples, questions)
    puzzle = ContextPuzzle.objects.get(slug="big")
    with django_assert_num_queries(2):
        result = puzzle_analysis(puzzle, "whitespace")
    assert len(result.examples) == 40 and len(result.questions) == 30
    # Example j+1 alone holds w{j} and y{j}: D = 2 each; questions accept w{k} or x{k % 7},
    # and x{k % 7} is in several examples, so no single deletion damages any of them.
    assert {e.d for e in result.examples} == {2} and not result.fragile

"""The prompt of a puzzle variant: renumbered kept examples, questions, abstention wording."""

from __future__ import annotations

import pytest

from puzzles.context.lab.prompts import ABSTAIN, variant_prompt

EXAMPLES = [("ka mo", "the fish swims"), ("ka  lu.", "the bird\nflies"), ("ti mo", "a fish swims")]
QUESTIONS = [("1.a", "to_english", "ti lu"), ("1.b", "to_foreign", "the bird swims")]


def _prompt(kept, questions=QUESTIONS):
    return variant_prompt(
        title="Fish", language="Pelish", examples=EXAMPLES, questions=questions, kept=kept
    )


def test_deleted_example_is_gone_and_the_rest_renumbered():
    prompt = _prompt([3, 1])
    assert prompt.numbering == (1, 3)
    lines = prompt.text.splitlines()
    assert lines[0] == "Puzzle: Fish"
    assert "1. ka mo" in lines
    assert "2. ti mo" in lines
    assert "   a fish swims" in lines
    assert "ka lu." not in prompt.text and "bird flies" not in prompt.text
    assert "3." not in prompt.text


def test_all_examples_on_one_line_each():
    lines = _prompt([1, 2, 3]).text.splitlines()
    assert lines[lines.index("2. ka lu.") + 1] == "   the bird flies"


def test_questions_keep_their_ids_and_say_their_direction():
    lines = _prompt([1, 2, 3]).text.splitlines()
    assert "1.a (translate into English): ti lu" in lines
    assert "1.b (translate into Pelish): the bird swims" in lines
    assert lines.index("1.a (translate into English): ti lu") < lines.index(
        "1.b (translate into Pelish): the bird swims"
    )


def test_abstention_instruction_is_the_same_in_every_condition():
    def tail(text):
        return text[text.index("Answer every question") :]

    full, deleted, empty = _prompt([1, 2, 3]).text, _prompt([2]).text, _prompt([]).text
    assert f"answer {ABSTAIN} for that question" in full
    assert tail(full) == tail(deleted) == tail(empty)
    assert "`1.a: ...`" in tail(full)


def test_no_context_prompt_says_so():
    prompt = _prompt([])
    assert prompt.numbering == ()
    assert "No example sentences are given." in prompt.text
    assert "ka mo" not in prompt.text and "fish swims" not in prompt.text


def test_deterministic():
    assert _prompt([1, 3]) == _prompt([3, 1])
    assert _prompt([1, 3]).text != _prompt([1, 2]).text


@pytest.mark.parametrize(
    ("kept", "questions", "message"),
    [
        ([0], QUESTIONS, "not among the 3 examples"),
        ([4], QUESTIONS, "not among the 3 examples"),
        ([1, 1], QUESTIONS, "distinct"),
        ([1], [], "at least one question"),
        ([1], [("1.a", "sideways", "x")], "unknown question direction 'sideways'"),
        ([1], [("1.a", "to_english", "x"), ("1.a", "to_foreign", "y")], "distinct"),
        ([1], [(" ", "to_english", "x")], "present and distinct"),
    ],
)
def test_bad_inputs_are_refused(kept, questions, message):
    with pytest.raises(ValueError, match=message):
        _prompt(kept, questions)

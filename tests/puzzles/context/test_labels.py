"""Structural labels: which variants lose a required token (pure, invented puzzles)."""

from __future__ import annotations

import pytest

from puzzles.context.lab.analysis import TOKENIZERS, Example, Question, analyse
from puzzles.context.lab.labels import structural_label
from puzzles.context.lab.variants import puzzle_variants, variant
from tests.puzzles.context.random_puzzles import random_puzzles


def _label(examples, questions, condition, deleted=None):
    analysis = analyse([Example(foreign=(f,)) for f in examples], questions)
    return structural_label(analysis, variant(condition, len(examples), deleted), puzzle="p")


def test_deleting_the_only_holder_of_a_required_token_is_unsolvable():
    q = [Question(id="a", direction="to_english", prompt="ka ri")]
    assert _label(["ta ri", "ka ta", "ka"], q, "random", 1).damaged_questions == ("a",)
    assert not _label(["ta ri", "ka ta", "ka"], q, "targeted", 2).unsolvable
    assert _label(["ta ri", "ka ta", "ka"], q, "original").deleted == ()


def test_no_context_needs_a_required_token_of_the_context_in_every_alternative():
    in_context = [Question(id="a", direction="to_foreign", prompt="x", answers=("ta", "zu"))]
    label = _label(["ta", "ri"], in_context, "no_context")
    # Alternative "zu" uses no token of the context: nothing is lost, so still valid.
    assert label.deleted == (1, 2) and label.label == "valid"
    both = [Question(id="a", direction="to_foreign", prompt="x", answers=("ta", "ri zu"))]
    assert _label(["ta", "ri"], both, "no_context").label == "unsolvable"


@pytest.mark.parametrize("tokenizer", ["whitespace", "normalized"])
def test_the_targeted_label_is_the_puzzles_fragility(tokenizer):
    # Table 2 (the paper's) compares the judges' verdicts on the targeted variant with
    # fragility; the lab compares them with the targeted variant's structural label. They
    # are one thing: D(j) and D_Q(j) recomputed here from the definitions (a token held by
    # example j alone; a question damaged when every alternative needs such a token), the
    # targeted deletion takes a largest D_Q, so it damages a question iff max D_Q > 0.
    tokenize = TOKENIZERS[tokenizer]
    for spec in random_puzzles(60, seed=11):
        holders: dict[str, set[int]] = {}
        for j, example in enumerate(spec.examples, start=1):
            for token in {t for text in example.foreign for t in tokenize(text)}:
                holders.setdefault(token, set()).add(j)
        n = len(spec.examples)
        dq = [
            sum(_damaged_alone(q, j, holders, tokenize) for q in spec.questions)
            for j in range(1, n + 1)
        ]
        analysis = analyse(spec.examples, spec.questions, tokenizer=tokenizer)
        assert [e.dq for e in analysis.examples] == dq
        targeted = next(
            v
            for v in puzzle_variants([e.d for e in analysis.examples], dq, puzzle_slug=spec.slug)
            if v.condition == "targeted"
        )
        label = structural_label(analysis, targeted, puzzle=spec.slug)
        assert label.unsolvable == (max(dq) > 0) == analysis.fragile


def _damaged_alone(question, j, holders, tokenize) -> bool:
    """Tell whether deleting example j alone takes a token, held by j only, from every
    accepted alternative of the question (the prompt, or each accepted answer)."""
    texts = [question.prompt] if question.direction == "to_english" else question.answers
    return all(any(holders.get(t) == {j} for t in tokenize(text)) for text in texts)

"""Structural labels: which variants lose a required token (pure, invented puzzles)."""

from __future__ import annotations

from puzzles.context.analysis import Example, Question, analyse
from puzzles.context.labels import structural_label
from puzzles.context.variants import variant


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

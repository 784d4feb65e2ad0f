"""Reads of the context lab: a puzzle's examples and questions as the analysis's plain inputs."""

from __future__ import annotations

from ...models import ContextPuzzle
from .analysis import DEFAULT_TOKENIZER, Example, PuzzleAnalysis, Question, analyse


def puzzle_inputs(puzzle: ContextPuzzle) -> tuple[tuple[Example, ...], tuple[Question, ...]]:
    """Return the puzzle's examples and questions, in order, as plain data (two queries)."""
    examples = tuple(
        Example(foreign=(foreign, *alternatives), english=english)
        for foreign, alternatives, english in puzzle.examples.order_by("position").values_list(
            "foreign", "foreign_alternatives", "english"
        )
    )
    questions = tuple(
        Question(id=qid, direction=direction, prompt=prompt, answers=tuple(answers))
        for qid, direction, prompt, answers in puzzle.questions.order_by("position").values_list(
            "qid", "direction", "prompt", "answers"
        )
    )
    return examples, questions


def puzzle_analysis(puzzle: ContextPuzzle, tokenizer: str = DEFAULT_TOKENIZER) -> PuzzleAnalysis:
    """Analyse a stored puzzle (two queries, whatever its size)."""
    examples, questions = puzzle_inputs(puzzle)
    return analyse(examples, questions, tokenizer=tokenizer)


def puzzle_or_none(slug: str) -> ContextPuzzle | None:
    return ContextPuzzle.objects.filter(slug=slug).first()


def puzzle_slugs() -> list[str]:
    return list(ContextPuzzle.objects.order_by("slug").values_list("slug", flat=True))

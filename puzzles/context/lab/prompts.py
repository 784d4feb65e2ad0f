"""The prompt of one puzzle variant, ready to run through any model.

Pure computation: plain inputs (examples as (foreign, english) pairs, questions as
(id, direction, prompt) triples), a frozen dataclass out, no Django. The same inputs
always give the same text.

The kept examples are renumbered 1..k in the order of the puzzle. Keeping the original
numbers would leave a gap (1, 2, 4, ...) that tells the model an example was removed,
itself a cue to abstain that the original puzzle does not give; `PuzzlePrompt.numbering`
maps each prompt number back to the puzzle's own example number. Every example and
question is written on one line (runs of whitespace become one space, which leaves the
whitespace-separated tokens unchanged).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

DIRECTIONS = ("to_english", "to_foreign")
ABSTAIN = "N/A"


@dataclass(frozen=True)
class PuzzlePrompt:
    """A variant's prompt text; `numbering[k - 1]` is the puzzle's number of prompt example k."""

    text: str
    numbering: tuple[int, ...]


def variant_prompt(
    *,
    title: str,
    language: str,
    examples: Sequence[tuple[str, str]],
    questions: Sequence[tuple[str, str, str]],
    kept: Sequence[int],
) -> PuzzlePrompt:
    """Return the prompt of a puzzle keeping the examples `kept` (1-based, any order).

    The abstention instruction is the same in every condition, so that only the examples
    differ between a puzzle's prompts."""
    numbering = tuple(sorted(kept))
    if len(set(numbering)) != len(numbering):
        raise ValueError(f"kept examples must be distinct, got {list(kept)}")
    for index in numbering:
        if not 1 <= index <= len(examples):
            raise ValueError(f"kept example {index} is not among the {len(examples)} examples")
    if not questions:
        raise ValueError("a puzzle prompt needs at least one question")
    language = _line(language)
    lines = [f"Puzzle: {_line(title)}", ""]
    if numbering:
        lines.append(f"Here are sentences in {language} with their English translations, numbered:")
        lines.append("")
        for number, index in enumerate(numbering, start=1):
            foreign, english = examples[index - 1]
            lines.append(f"{number}. {_line(foreign)}")
            lines.append(f"   {_line(english)}")
    else:
        lines.append(f"This puzzle is about {language}. No example sentences are given.")
    lines += ["", "Questions:", ""]
    seen: set[str] = set()
    for question_id, direction, prompt in questions:
        question_id = _line(question_id)
        if not question_id or question_id in seen:
            raise ValueError(f"question ids must be present and distinct, got {question_id!r}")
        seen.add(question_id)
        lines.append(f"{question_id} ({_task(direction, language)}): {_line(prompt)}")
    lines += [
        "",
        "Answer every question. Some questions may not be answerable from the information "
        "given: when it does not give you what a question needs, answer "
        f"{ABSTAIN} for that question rather than guess.",
        f"Write one line per question, in the order above: the question's id, a colon and "
        f"your answer (for example `{questions[0][0].strip()}: ...`).",
    ]
    return PuzzlePrompt(text="\n".join(lines) + "\n", numbering=numbering)


def _task(direction: str, language: str) -> str:
    if direction == "to_english":
        return "translate into English"
    if direction == "to_foreign":
        return f"translate into {language}"
    raise ValueError(
        f"unknown question direction {direction!r}; expected one of {', '.join(DIRECTIONS)}"
    )


def _line(text: str) -> str:
    return " ".join(text.split())

"""A context puzzle from a competition's Rosetta Stone problem: pure, no Django.

What is read (the IOL-AI layout: the problem's data in its context, each task's
assignment in its query, one list of accepted alternatives per item in its answer key):

- **Examples**: the context's numbered lines holding one ` | ` between the two languages
  (`3. a / b | I will sell ...`); ` / ` separates alternatives of one side. Other lines
  (introduction, notes, footnotes) are not examples; a numbered line without ` | ` is
  skipped and reported.
- **Questions**: the numbered items of each translation task's query, item k paired with
  answer k of the task's key (with `multi` tasks, every accepted alternative). A task of
  another type (matching, fill in the blanks) is skipped and reported, as is a task whose
  items and key differ in number. Ids are `problem.task.item`, the item a letter in task
  order (`3.1.b`: problem 3, task 1, second item; a number past 26 items).
- **Direction** of a task, from its assignment: "into English" (or "from <not English>")
  is `to_english`, "into <another language>" (or "from English") is `to_foreign`; a task
  whose assignment says neither is skipped. A trailing note in parentheses of a
  `to_english` item, such as "(this word has two meanings)", is English, not part of the
  foreign prompt, and is dropped (reported).
- **Foreign side** of the examples: the side, left or right of ` | `, sharing more tokens
  (by the `normalized` tokenizer) with the foreign-language items (the prompts of
  `to_english` questions and the accepted answers of `to_foreign` ones). A tie is refused:
  the caller may name the side.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from string import ascii_lowercase

from .analysis import TO_ENGLISH, TO_FOREIGN, Example, PuzzleAnalysis, Question, tokens_normalized

SIDES = ("left", "right")
TRANSLATION = "translation"

_NUMBERED = re.compile(r"^\s*(\d+)[.)]\s+(.*\S)\s*$")
_INTO = re.compile(r"\binto\s+(?:the\s+)?([^\W\d_][\w'’-]*)", re.IGNORECASE)
_FROM = re.compile(r"\bfrom\s+(?:the\s+)?([^\W\d_][\w'’-]*)", re.IGNORECASE)
_TRAILING_NOTE = re.compile(r"\s*\(([^()]*)\)\s*$")
_SIDE_SEPARATOR = " | "
_ALTERNATIVES = " / "


class ConversionError(ValueError):
    """The problem cannot be read as a Rosetta Stone puzzle; `field` says where."""

    def __init__(self, message: str, *, field: str) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


@dataclass(frozen=True)
class ProblemTask:
    """One task of the problem as stored: its number, assignment, type and answer key."""

    number: int
    query: str
    task_type: str
    answer_key: Sequence[Sequence[str]]


@dataclass(frozen=True)
class TaskReading:
    """What was read from one task: its direction, the phrase that gave it, its items."""

    number: int
    direction: str
    phrase: str
    items: tuple[str, ...]  # the item numbers as the problem prints them


@dataclass(frozen=True)
class Conversion:
    examples: tuple[Example, ...]
    example_numbers: tuple[int, ...]  # each example's number in the problem
    questions: tuple[Question, ...]
    foreign_side: str
    shared: dict[str, int]  # side -> its tokens shared with the foreign-language items
    side_named: bool  # the caller named the foreign side
    tasks: tuple[TaskReading, ...]
    skipped: tuple[str, ...]


def task_direction(query: str) -> tuple[str, str] | None:
    """Return a task's direction and the phrase that tells it, or None when none does."""
    instruction = "\n".join(line for line in query.splitlines() if not _NUMBERED.match(line))
    into = _INTO.search(instruction)
    if into:
        target = into.group(1)
        return (TO_ENGLISH if target.lower() == "english" else TO_FOREIGN), into.group(0)
    source = _FROM.search(instruction)
    if source:
        return (TO_FOREIGN if source.group(1).lower() == "english" else TO_ENGLISH), source.group(0)
    return None


def rosetta_convert(
    *,
    problem_number: int,
    context: str,
    tasks: Sequence[ProblemTask],
    foreign_side: str | None = None,
) -> Conversion:
    """Read a Rosetta Stone problem into examples and questions; raise ConversionError."""
    if foreign_side is not None and foreign_side not in SIDES:
        raise ConversionError(f"the foreign side must be one of {', '.join(SIDES)}", field="side")
    skipped: list[str] = []
    pairs: list[tuple[int, tuple[str, ...], tuple[str, ...]]] = []
    for line_number, line in enumerate(context.splitlines(), start=1):
        numbered = _NUMBERED.match(line)
        if not numbered:
            continue
        body = numbered.group(2)
        if body.count(_SIDE_SEPARATOR.strip()) != 1 or _SIDE_SEPARATOR not in body:
            skipped.append(
                f"context line {line_number} (numbered {numbered.group(1)}): not one pair "
                f"separated by '{_SIDE_SEPARATOR.strip()}'"
            )
            continue
        left, right = body.split(_SIDE_SEPARATOR)
        pairs.append((int(numbered.group(1)), _alternatives(left), _alternatives(right)))
    if not pairs:
        raise ConversionError(
            "no numbered example 'N. text | translation' in the problem's data; "
            "is it a Rosetta Stone problem?",
            field="context",
        )

    readings: list[TaskReading] = []
    raw_questions: list[
        tuple[str, str, str, tuple[str, ...]]
    ] = []  # id, direction, prompt, answers
    for task in tasks:
        where = f"task {task.number}"
        if task.task_type != TRANSLATION:
            skipped.append(f"{where}: a {task.task_type} task, not a translation")
            continue
        told = task_direction(task.query)
        if told is None:
            skipped.append(f"{where}: its assignment says neither 'into …' nor 'from …'")
            continue
        direction, phrase = told
        items = [m for m in map(_NUMBERED.match, task.query.splitlines()) if m]
        if len(items) != len(task.answer_key):
            skipped.append(
                f"{where}: {len(items)} numbered items but {len(task.answer_key)} answers in "
                "the key"
            )
            continue
        for k, (item, accepted) in enumerate(zip(items, task.answer_key, strict=True), start=1):
            label = ascii_lowercase[k - 1] if len(items) <= len(ascii_lowercase) else str(k)
            qid = f"{problem_number}.{task.number}.{label}"
            prompt = item.group(2).strip()
            if direction == TO_ENGLISH:
                note = _TRAILING_NOTE.search(prompt)
                if note and note.start() > 0:
                    skipped.append(f"{qid}: note '({note.group(1)})' dropped from the prompt")
                    prompt = prompt[: note.start()].strip()
            answers = tuple(dict.fromkeys(a.strip() for a in accepted if a and a.strip()))
            if not answers:
                skipped.append(f"{qid} (item {item.group(1)}): no accepted answer in the key")
                continue
            raw_questions.append((qid, direction, prompt, answers))
        readings.append(
            TaskReading(
                number=task.number,
                direction=direction,
                phrase=phrase,
                items=tuple(m.group(1) for m in items),
            )
        )
    if not raw_questions:
        raise ConversionError(
            "no translation task with numbered items matching its answer key", field="tasks"
        )

    foreign_texts = [
        text
        for _, direction, prompt, answers in raw_questions
        for text in ((prompt,) if direction == TO_ENGLISH else answers)
    ]
    item_tokens = {t for text in foreign_texts for t in tokens_normalized(text)}
    shared = {
        side: len(
            item_tokens
            & {t for pair in pairs for text in pair[1 + i] for t in tokens_normalized(text)}
        )
        for i, side in enumerate(SIDES)
    }
    side = foreign_side
    if side is None:
        if shared["left"] == shared["right"]:
            raise ConversionError(
                f"cannot tell which side of the examples is foreign: the foreign-language "
                f"items share {shared['left']} tokens with each; name the side",
                field="side",
            )
        side = "left" if shared["left"] > shared["right"] else "right"
    foreign_index = 1 if side == "left" else 2
    english_index = 3 - foreign_index
    examples = tuple(
        Example(foreign=pair[foreign_index], english=_ALTERNATIVES.join(pair[english_index]))
        for pair in pairs
    )
    questions = tuple(
        Question(id=qid, direction=direction, prompt=prompt, answers=answers)
        for qid, direction, prompt, answers in raw_questions
    )
    return Conversion(
        examples=examples,
        example_numbers=tuple(pair[0] for pair in pairs),
        questions=questions,
        foreign_side=side,
        shared=shared,
        side_named=foreign_side is not None,
        tasks=tuple(readings),
        skipped=tuple(skipped),
    )


def conversion_lines(conversion: Conversion, analysis: PuzzleAnalysis) -> list[str]:
    """Return what was detected, for a person to check: sides, counts, each question."""
    c = conversion
    how = (
        "named by you"
        if c.side_named
        else f"shares {c.shared[c.foreign_side]} tokens with the foreign-language items, "
        f"the other side {c.shared[_other(c.foreign_side)]}"
    )
    lines = [
        f"foreign side: {c.foreign_side} of ' | ' ({how})",
        f"examples: {len(c.examples)} (numbered {_span(c.example_numbers)}), "
        f"{sum(len(e.foreign) > 1 for e in c.examples)} with alternatives",
        f"questions: {len(c.questions)}",
    ]
    for task in c.tasks:
        lines.append(
            f"task {task.number}: {task.direction} (from {task.phrase!r}), items "
            f"{_span(tuple(int(i) for i in task.items))}"
        )
    for question, score in zip(c.questions, analysis.questions, strict=True):
        required = " | ".join(" ".join(alt) for alt in score.required)
        line = f"  {question.id} {question.direction}: required {required}"
        if len(question.answers) > 1:
            line += f" ({len(question.answers)} accepted answers)"
        if score.absent:
            line += f"; not in the context: {' '.join(score.absent)}"
        lines.append(line)
    lines += [f"skipped: {reason}" for reason in c.skipped] or ["skipped: nothing"]
    return lines


def _alternatives(side: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(a.strip() for a in side.split(_ALTERNATIVES) if a.strip()))


def _other(side: str) -> str:
    return SIDES[1 - SIDES.index(side)]


def _span(numbers: tuple[int, ...]) -> str:
    if not numbers:
        return "none"
    if list(numbers) == list(range(numbers[0], numbers[0] + len(numbers))):
        return f"{numbers[0]}-{numbers[-1]}" if len(numbers) > 1 else str(numbers[0])
    return ", ".join(map(str, numbers))

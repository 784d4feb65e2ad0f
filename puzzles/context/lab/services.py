"""Writes of the context lab: puzzles from JSON, and one puzzle saved from a checked spec."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TextIO

from django.db import transaction

from ...errors import ImportFailure
from ...models import ContextExample, ContextPuzzle, ContextQuestion, Problem
from ...untrusted import json_parse
from .analysis import DIRECTIONS, Example, Question, analyse
from .limits import puzzle_size_check
from .rosetta import ConversionError, ProblemTask, conversion_lines, rosetta_convert

_SLUG = re.compile(r"^[-a-zA-Z0-9_]+$")
_PUZZLE_KEYS = ("slug", "title", "language", "examples", "questions")
_EXAMPLE_KEYS = ("foreign", "english")
_QUESTION_KEYS = ("id", "direction", "prompt", "answer")


@dataclass(frozen=True)
class PuzzleSpec:
    """A checked puzzle, ready to save: what the JSON import and puzzle_from_problem make."""

    slug: str
    title: str
    language: str
    examples: tuple[Example, ...]
    questions: tuple[Question, ...]


@dataclass(frozen=True)
class PuzzlesImport:
    created: tuple[str, ...]
    updated: tuple[str, ...]

    def lines(self) -> list[str]:
        out = [f"created {slug}" for slug in self.created]
        out += [f"updated {slug}" for slug in self.updated]
        out.append(f"{len(self.created)} created, {len(self.updated)} updated")
        return out


def puzzles_import(*, stream: TextIO, file: str) -> PuzzlesImport:
    """Import a JSON list of puzzles; all or nothing, errors name the file and JSON path.

    A slug already in the database is updated: its examples and questions are replaced.
    That is refused when the puzzle already has solver answers or judge verdicts, which
    refer to the old questions (delete the puzzle first to start over).
    """
    try:
        text = stream.read()
    except UnicodeDecodeError:
        raise ImportFailure("not UTF-8 text", file=file) from None
    data = json_parse(text, file=file, field="puzzles")
    specs = puzzle_specs_read(data, file=file)
    created, updated = [], []
    with transaction.atomic():
        for number, spec in enumerate(specs, start=1):
            _, was_created = puzzle_save(spec=spec, file=file, field=f"puzzles[{number}].slug")
            (created if was_created else updated).append(spec.slug)
    return PuzzlesImport(created=tuple(created), updated=tuple(updated))


def puzzle_specs_read(data: object, *, file: str) -> list[PuzzleSpec]:
    """Check decoded JSON against the puzzles schema; return one spec per puzzle."""
    if not isinstance(data, list) or not data:
        raise ImportFailure(
            'expected a non-empty JSON list of puzzles: [{"slug", "title", "language", '
            '"examples", "questions"}, ...]',
            file=file,
            field="puzzles",
        )
    specs: list[PuzzleSpec] = []
    seen: dict[str, str] = {}
    for number, entry in enumerate(data, start=1):
        where = f"puzzles[{number}]"
        spec = _puzzle_spec(entry, file=file, where=where)
        if spec.slug in seen:
            raise ImportFailure(
                f"slug {spec.slug!r} is already used by {seen[spec.slug]} in this file",
                file=file,
                field=f"{where}.slug",
            )
        seen[spec.slug] = where
        specs.append(spec)
    return specs


def puzzle_save(
    *,
    spec: PuzzleSpec,
    source_problem: Problem | None = None,
    file: str = "",
    field: str = "slug",
) -> tuple[ContextPuzzle, bool]:
    """Create the puzzle or replace an existing one's content; return it and whether new.

    Refused (ImportFailure) when an existing puzzle of that slug has solver answers or
    judge verdicts.
    """
    with transaction.atomic():
        puzzle = ContextPuzzle.objects.select_for_update().filter(slug=spec.slug).first()
        created = puzzle is None
        if created:
            puzzle = ContextPuzzle(slug=spec.slug)
        else:
            if puzzle.solver_answers.exists() or puzzle.judge_verdicts.exists():
                raise ImportFailure(
                    f"puzzle {spec.slug!r} already has solver answers or judge verdicts, which "
                    "refer to its questions; delete it before importing it again",
                    file=file,
                    field=field,
                )
            puzzle.examples.all().delete()
            puzzle.questions.all().delete()
        puzzle.title = spec.title
        puzzle.language = spec.language
        if source_problem is not None:
            puzzle.source_problem = source_problem
        puzzle.save()
        ContextExample.objects.bulk_create(
            ContextExample(
                puzzle=puzzle,
                position=position,
                foreign=example.foreign[0],
                foreign_alternatives=list(example.foreign[1:]),
                english=example.english,
            )
            for position, example in enumerate(spec.examples, start=1)
        )
        ContextQuestion.objects.bulk_create(
            ContextQuestion(
                puzzle=puzzle,
                position=position,
                qid=question.id,
                direction=question.direction,
                prompt=question.prompt,
                answers=list(question.answers),
            )
            for position, question in enumerate(spec.questions, start=1)
        )
    return puzzle, created


def json_type(value: object) -> str:
    """Return the JSON name of a decoded value's type, as a message shows it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    return {str: "a string", int: "a number", float: "a number", list: "a list"}.get(
        type(value), "an object"
    )


# --- checking one puzzle ---------------------------------------------------------------


def _puzzle_spec(entry: object, *, file: str, where: str) -> PuzzleSpec:
    entry = _object(entry, _PUZZLE_KEYS, file=file, where=where)
    slug = _text(entry, "slug", file=file, where=where, max_length=80)
    if not _SLUG.match(slug):
        raise ImportFailure(
            f"slug {slug!r} may hold only letters, digits, '-' and '_'",
            file=file,
            field=f"{where}.slug",
        )
    title = _text(entry, "title", file=file, where=where, max_length=200, required=False)
    language = _text(entry, "language", file=file, where=where, max_length=120, required=False)

    examples = _list(entry, "examples", file=file, where=where)
    questions = _list(entry, "questions", file=file, where=where)
    specs_examples = tuple(
        _example(item, file=file, where=f"{where}.examples[{k}]")
        for k, item in enumerate(examples, start=1)
    )
    specs_questions = []
    ids: dict[str, str] = {}
    for k, item in enumerate(questions, start=1):
        inner = f"{where}.questions[{k}]"
        question = _question(item, file=file, where=inner)
        if question.id in ids:
            raise ImportFailure(
                f"question id {question.id!r} is already used by {ids[question.id]}",
                file=file,
                field=f"{inner}.id",
            )
        ids[question.id] = inner
        specs_questions.append(question)
    puzzle_size_check(specs_examples, tuple(specs_questions), file=file, where=where)
    return PuzzleSpec(
        slug=slug,
        title=title,
        language=language,
        examples=specs_examples,
        questions=tuple(specs_questions),
    )


def _example(item: object, *, file: str, where: str) -> Example:
    item = _object(item, _EXAMPLE_KEYS, file=file, where=where)
    forms = _texts(item, "foreign", file=file, where=where)
    english = _text(item, "english", file=file, where=where, required=False)
    return Example(foreign=forms, english=english)


def _question(item: object, *, file: str, where: str) -> Question:
    item = _object(item, _QUESTION_KEYS, file=file, where=where)
    qid = _text(item, "id", file=file, where=where, max_length=40)
    if "direction" not in item:
        raise ImportFailure(
            f"missing direction: give one of {', '.join(DIRECTIONS)}",
            file=file,
            field=f"{where}.direction",
        )
    direction = item["direction"]
    if direction not in DIRECTIONS:
        raise ImportFailure(
            f"direction must be one of {', '.join(DIRECTIONS)}, not {direction!r}",
            file=file,
            field=f"{where}.direction",
        )
    prompt = _text(item, "prompt", file=file, where=where)
    answers = _texts(item, "answer", file=file, where=where)
    return Question(id=qid, direction=direction, prompt=prompt, answers=answers)


def _object(value: object, keys: tuple[str, ...], *, file: str, where: str) -> dict:
    if not isinstance(value, dict):
        raise ImportFailure(f"expected an object with {', '.join(keys)}", file=file, field=where)
    unknown = [k for k in value if k not in keys]
    if unknown:
        raise ImportFailure(
            f"unknown field {unknown[0]!r} (known: {', '.join(keys)})",
            file=file,
            field=f"{where}.{unknown[0]}",
        )
    return value


def _list(entry: dict, key: str, *, file: str, where: str) -> list:
    value = entry.get(key)
    if not isinstance(value, list) or not value:
        what = "missing" if value is None else "empty" if value == [] else "not a list"
        raise ImportFailure(
            f"a puzzle needs at least one of its {key} ({key} {what})",
            file=file,
            field=f"{where}.{key}",
        )
    return value


def _text(
    entry: dict,
    key: str,
    *,
    file: str,
    where: str,
    max_length: int | None = None,
    required: bool = True,
) -> str:
    value = entry.get(key, None if required else "")
    if not isinstance(value, str):
        what = "missing" if key not in entry else f"not text ({json_type(value)})"
        raise ImportFailure(f"{key} is {what}", file=file, field=f"{where}.{key}")
    value = value.strip()
    if required and not value:
        raise ImportFailure(f"{key} is empty", file=file, field=f"{where}.{key}")
    if max_length is not None and len(value) > max_length:
        raise ImportFailure(
            f"{key} is longer than {max_length} characters", file=file, field=f"{where}.{key}"
        )
    return value


def _texts(entry: dict, key: str, *, file: str, where: str) -> tuple[str, ...]:
    """Return a field that is one text or a list of alternative texts, none empty."""
    value = entry.get(key)
    if isinstance(value, str):
        return (_text(entry, key, file=file, where=where),)
    if not isinstance(value, list) or not value:
        what = "missing" if key not in entry else "an empty list" if value == [] else "not text"
        raise ImportFailure(
            f"{key} is {what}: give a text or a list of alternative texts",
            file=file,
            field=f"{where}.{key}",
        )
    out = []
    for k, item in enumerate(value, start=1):
        if not isinstance(item, str) or not item.strip():
            raise ImportFailure(
                f"alternative {k} of {key} is empty or not text",
                file=file,
                field=f"{where}.{key}[{k}]",
            )
        out.append(item.strip())
    return tuple(dict.fromkeys(out))


# --- a puzzle from a competition's Rosetta Stone problem --------------------------------


@dataclass(frozen=True)
class ProblemConversion:
    """What puzzle_from_problem read (the lines to show) and whether it saved the puzzle."""

    spec: PuzzleSpec
    lines: tuple[str, ...]
    saved: bool
    created: bool


def puzzle_from_problem(
    *,
    problem: Problem,
    slug: str,
    dry_run: bool = False,
    foreign_side: str | None = None,
) -> ProblemConversion:
    """Make (or replace) the context puzzle `slug` from a Rosetta Stone problem.

    Reads the problem's numbered examples and its translation tasks (puzzles.context.rosetta);
    with `dry_run` nothing is written. Refusals are ImportFailure naming the problem.
    """
    where = f"{problem.competition.slug} problem {problem.number}"
    if not _SLUG.match(slug) or len(slug) > 80:
        raise ImportFailure(
            f"slug {slug!r} may hold only letters, digits, '-' and '_' (at most 80)",
            file=where,
            field="slug",
        )
    tasks = [
        ProblemTask(
            number=task.number,
            query=task.query,
            task_type=task.task_type,
            answer_key=task.answer_key,
        )
        for task in problem.tasks.order_by("number")
    ]
    try:
        conversion = rosetta_convert(
            problem_number=problem.number,
            context=problem.context,
            tasks=tasks,
            foreign_side=foreign_side,
        )
    except ConversionError as exc:
        raise ImportFailure(exc.message, file=where, field=exc.field) from None
    puzzle_size_check(conversion.examples, conversion.questions, file=where)
    language = problem.language_name or problem.title or problem.language_label
    spec = PuzzleSpec(
        slug=slug,
        title=problem.title or f"Problem {problem.number}",
        language=language[:120],
        examples=conversion.examples,
        questions=conversion.questions,
    )
    analysis = analyse(spec.examples, spec.questions)
    lines = tuple(conversion_lines(conversion, analysis))
    if dry_run:
        return ProblemConversion(spec=spec, lines=lines, saved=False, created=False)
    _, created = puzzle_save(spec=spec, source_problem=problem, file=where, field="slug")
    return ProblemConversion(spec=spec, lines=lines, saved=True, created=created)

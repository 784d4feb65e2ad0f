"""Writes of the context lab's results: solver answers and judge verdicts from JSONL files.

One JSON object per line. Each import is one transaction: the whole file is checked first
and a refusal names the file, line and field and writes nothing. A row already stored
(the same puzzle, condition, model and question; or puzzle, condition and judge) is
updated by importing it again; rows the file does not name are kept.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TextIO

from django.db import transaction

from ...errors import ImportFailure
from ...models import Condition, ContextPuzzle, ContextQuestion, JudgeVerdict, SolverAnswer
from ...untrusted import json_parse
from .outcomes import is_abstention

ANSWER_KEYS = ("puzzle", "condition", "model", "question", "answer")
VERDICT_KEYS = ("puzzle", "condition", "judge", "verdict")
NAME_MAX = 200  # SolverAnswer.model and JudgeVerdict.judge


@dataclass(frozen=True)
class ResultsImport:
    """How many rows an import created, changed and found already as given."""

    what: str
    created: int
    updated: int
    unchanged: int

    def lines(self) -> list[str]:
        return [
            f"{self.what}: {self.created} created, {self.updated} updated, "
            f"{self.unchanged} unchanged"
        ]


def solver_answers_import(*, stream: TextIO, file: str) -> ResultsImport:
    """Import `{"puzzle", "condition", "model", "question", "answer"}` lines.

    `answer` is text or null; null, empty or `N/A` (outcomes.is_abstention) is an abstention.
    """
    records = list(_records(stream, file=file, keys=ANSWER_KEYS))
    puzzles = _puzzles(records, file=file)
    questions: dict[tuple[int, str], ContextQuestion] = {
        (q.puzzle_id, q.qid): q
        for q in ContextQuestion.objects.filter(puzzle__in=list(puzzles.values()))
    }
    rows: dict[tuple[int, str, str, int], tuple[str, int]] = {}
    for line, record in records:
        puzzle = puzzles[_text(record, "puzzle", file=file, line=line)]
        condition = _condition(record, file=file, line=line)
        model = _name(record, "model", file=file, line=line)
        qid = _text(record, "question", file=file, line=line)
        question = questions.get((puzzle.pk, qid))
        if question is None:
            known = ", ".join(q for pk, q in questions if pk == puzzle.pk)
            raise ImportFailure(
                f"puzzle {puzzle.slug!r} has no question {qid!r} (its questions: {known})",
                file=file,
                line=line,
                field="question",
            )
        answer = record["answer"]
        if answer is not None and not isinstance(answer, str):
            raise ImportFailure(
                "answer must be text, or null for an abstention",
                file=file,
                line=line,
                field="answer",
            )
        key = (puzzle.pk, condition, model, question.pk)
        if key in rows:
            raise ImportFailure(
                f"a second answer of {model!r} to question {qid!r} of {puzzle.slug!r} under "
                f"{condition!r} (first on line {rows[key][1]})",
                file=file,
                line=line,
                field="question",
            )
        rows[key] = (answer or "", line)
    with transaction.atomic():
        stored = {
            (a.puzzle_id, a.condition, a.model, a.question_id): a
            for a in SolverAnswer.objects.select_for_update().filter(
                puzzle__in=list(puzzles.values()), model__in={k[2] for k in rows}
            )
        }
        new, changed = [], []
        for key, (answer, _) in rows.items():
            abstained = is_abstention(answer)
            row = stored.get(key)
            if row is None:
                pk, condition, model, question_pk = key
                new.append(
                    SolverAnswer(
                        puzzle_id=pk,
                        condition=condition,
                        model=model,
                        question_id=question_pk,
                        answer=answer,
                        abstained=abstained,
                    )
                )
            elif (row.answer, row.abstained) != (answer, abstained):
                row.answer, row.abstained = answer, abstained
                changed.append(row)
        SolverAnswer.objects.bulk_create(new)
        SolverAnswer.objects.bulk_update(changed, ["answer", "abstained"])
    return ResultsImport(
        what="solver answers",
        created=len(new),
        updated=len(changed),
        unchanged=len(rows) - len(new) - len(changed),
    )


def judge_verdicts_import(*, stream: TextIO, file: str) -> ResultsImport:
    """Import `{"puzzle", "condition", "judge", "verdict"}` lines; verdict valid or unsolvable."""
    records = list(_records(stream, file=file, keys=VERDICT_KEYS))
    puzzles = _puzzles(records, file=file)
    rows: dict[tuple[int, str, str], tuple[str, int]] = {}
    for line, record in records:
        puzzle = puzzles[_text(record, "puzzle", file=file, line=line)]
        condition = _condition(record, file=file, line=line)
        judge = _name(record, "judge", file=file, line=line)
        verdict = _text(record, "verdict", file=file, line=line)
        if verdict not in JudgeVerdict.Verdict.values:
            raise ImportFailure(
                f"verdict must be one of {', '.join(JudgeVerdict.Verdict.values)}, not {verdict!r}",
                file=file,
                line=line,
                field="verdict",
            )
        key = (puzzle.pk, condition, judge)
        if key in rows:
            raise ImportFailure(
                f"a second verdict of {judge!r} on {puzzle.slug!r} under {condition!r} "
                f"(first on line {rows[key][1]})",
                file=file,
                line=line,
                field="judge",
            )
        rows[key] = (verdict, line)
    with transaction.atomic():
        stored = {
            (v.puzzle_id, v.condition, v.judge): v
            for v in JudgeVerdict.objects.select_for_update().filter(
                puzzle__in=list(puzzles.values()), judge__in={k[2] for k in rows}
            )
        }
        new, changed = [], []
        for key, (verdict, _) in rows.items():
            row = stored.get(key)
            if row is None:
                pk, condition, judge = key
                new.append(
                    JudgeVerdict(puzzle_id=pk, condition=condition, judge=judge, verdict=verdict)
                )
            elif row.verdict != verdict:
                row.verdict = verdict
                changed.append(row)
        JudgeVerdict.objects.bulk_create(new)
        JudgeVerdict.objects.bulk_update(changed, ["verdict"])
    return ResultsImport(
        what="judge verdicts",
        created=len(new),
        updated=len(changed),
        unchanged=len(rows) - len(new) - len(changed),
    )


# --- reading and checking records -------------------------------------------------------


def _records(stream: TextIO, *, file: str, keys: tuple[str, ...]) -> Iterator[tuple[int, dict]]:
    """Yield (line, object) of a JSONL file, each object holding exactly `keys`."""
    count = 0
    try:
        for line, text in enumerate(stream, start=1):
            if not text.strip():
                continue
            record = json_parse(text.strip(), file=file, line=line)
            if not isinstance(record, dict):
                raise ImportFailure(
                    f"expected a JSON object with {', '.join(keys)}", file=file, line=line
                )
            unknown = [k for k in record if k not in keys]
            if unknown:
                raise ImportFailure(
                    f"unknown field (known: {', '.join(keys)})",
                    file=file,
                    line=line,
                    field=unknown[0],
                )
            missing = [k for k in keys if k not in record]
            if missing:
                raise ImportFailure("missing", file=file, line=line, field=missing[0])
            count += 1
            yield line, record
    except UnicodeDecodeError:
        raise ImportFailure("not UTF-8 text", file=file) from None
    if not count:
        raise ImportFailure(
            f"no records: expected one JSON object per line with {', '.join(keys)}",
            file=file,
            line=1,
        )


def _puzzles(records: list[tuple[int, dict]], *, file: str) -> dict[str, ContextPuzzle]:
    """Return the puzzles the records name, by slug; refuse the first unknown one."""
    slugs = {record["puzzle"].strip() for _, record in records if isinstance(record["puzzle"], str)}
    found = {p.slug: p for p in ContextPuzzle.objects.filter(slug__in=slugs)}
    for line, record in records:
        slug = _text(record, "puzzle", file=file, line=line)
        if slug not in found:
            raise ImportFailure(f"unknown puzzle {slug!r}", file=file, line=line, field="puzzle")
    return found


def _text(record: dict, key: str, *, file: str, line: int) -> str:
    value = record[key]
    if not isinstance(value, str) or not value.strip():
        what = "empty" if isinstance(value, str) else "not text"
        raise ImportFailure(f"{key} is {what}", file=file, line=line, field=key)
    return value.strip()


def _name(record: dict, key: str, *, file: str, line: int) -> str:
    value = _text(record, key, file=file, line=line)
    if len(value) > NAME_MAX:
        raise ImportFailure(
            f"{key} is longer than {NAME_MAX} characters", file=file, line=line, field=key
        )
    return value


def _condition(record: dict, *, file: str, line: int) -> str:
    value = _text(record, "condition", file=file, line=line)
    if value not in Condition.values:
        raise ImportFailure(
            f"unknown condition {value!r} (known: {', '.join(Condition.values)})",
            file=file,
            line=line,
            field="condition",
        )
    return value

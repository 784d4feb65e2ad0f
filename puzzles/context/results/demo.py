"""Invented solver answers and judge verdicts for the demo puzzles, so the results pages show
something on a fresh install (`manage.py demo`).

Everything is drawn from the puzzles as stored: a question is answered with its first
accepted answer, another question's answer (a wrong one), or N/A (an abstention), with
probabilities that depend on the model and on whether the variant damages the question
(its structural label, with the default seed and tokenizer, as the pages read them). Each
draw is seeded by the model, puzzle, condition and question, so the same puzzles always give
the same rows and loading again changes nothing. The rows go in through `result_imports`,
like any file.
"""

from __future__ import annotations

import io
import json
import random
from collections.abc import Iterable
from dataclasses import dataclass

from ...models import ContextPuzzle, ContextQuestion
from ..lab.variants import CONDITIONS
from .imports import ResultsImport, judge_verdicts_import, solver_answers_import
from .outcomes import answer_em
from .selectors import structural_labels_of

DEMO_RESULTS_FILE = "puzzles/context/demo_results.py"
ABSTAIN = "N/A"


@dataclass(frozen=True)
class DemoModel:
    """An invented model: how often it is right, and abstains, on intact and damaged questions."""

    name: str
    correct: float
    abstain: float
    correct_damaged: float
    abstain_damaged: float


@dataclass(frozen=True)
class DemoJudge:
    """An invented judge: how often it calls a structurally unsolvable (or valid) variant so."""

    name: str
    sees_unsolvable: float
    sees_valid: float


MODELS = (
    DemoModel("demo-careful (invented)", 0.9, 0.0, 0.1, 0.7),
    DemoModel("demo-guesser (invented)", 0.75, 0.0, 0.3, 0.0),
    DemoModel("demo-small (invented)", 0.55, 0.15, 0.1, 0.5),
)
JUDGES = (
    DemoJudge("demo-judge-strict (invented)", 0.9, 0.8),
    DemoJudge("demo-judge-lenient (invented)", 0.5, 0.95),
)


@dataclass(frozen=True)
class DemoResults:
    """What loading the demo results did."""

    answers: ResultsImport
    verdicts: ResultsImport

    def lines(self) -> list[str]:
        return [*self.answers.lines(), *self.verdicts.lines()]


def context_demo_results_load(puzzles: Iterable[ContextPuzzle] | None = None) -> DemoResults | None:
    """Import invented answers and verdicts for `puzzles` (every puzzle when None).

    Returns None when there is no puzzle (or none with a question). Running it again on the
    same puzzles changes nothing."""
    puzzles = list(ContextPuzzle.objects.order_by("slug") if puzzles is None else puzzles)
    key: dict[str, list[tuple[str, tuple[str, ...]]]] = {p.slug: [] for p in puzzles}
    by_id = {p.pk: p.slug for p in puzzles}
    for pk, qid, answers in (
        ContextQuestion.objects.filter(puzzle_id__in=by_id)
        .order_by("puzzle_id", "position")
        .values_list("puzzle_id", "qid", "answers")
    ):
        key[by_id[pk]].append((qid, tuple(answers)))
    puzzles = [p for p in puzzles if key[p.slug]]
    if not puzzles:
        return None
    damaged = {
        (label.puzzle, label.condition): set(label.damaged_questions)
        for label in structural_labels_of(puzzles)
    }
    answer_rows, verdict_rows = [], []
    for puzzle in puzzles:
        questions = key[puzzle.slug]
        for condition in CONDITIONS:
            hurt = damaged[(puzzle.slug, condition)]
            for model in MODELS:
                for qid, accepted in questions:
                    answer = _answer(model, puzzle.slug, condition, qid, accepted, questions, hurt)
                    answer_rows.append(
                        {
                            "puzzle": puzzle.slug,
                            "condition": condition,
                            "model": model.name,
                            "question": qid,
                            "answer": answer,
                        }
                    )
            for judge in JUDGES:
                rng = _rng(judge.name, puzzle.slug, condition)
                if hurt:
                    unsolvable = rng.random() < judge.sees_unsolvable
                else:
                    unsolvable = rng.random() >= judge.sees_valid
                verdict_rows.append(
                    {
                        "puzzle": puzzle.slug,
                        "condition": condition,
                        "judge": judge.name,
                        "verdict": "unsolvable" if unsolvable else "valid",
                    }
                )
    return DemoResults(
        answers=solver_answers_import(stream=_jsonl(answer_rows), file=DEMO_RESULTS_FILE),
        verdicts=judge_verdicts_import(stream=_jsonl(verdict_rows), file=DEMO_RESULTS_FILE),
    )


def _answer(
    model: DemoModel,
    puzzle: str,
    condition: str,
    qid: str,
    accepted: tuple[str, ...],
    questions: list[tuple[str, tuple[str, ...]]],
    damaged: set[str],
) -> str:
    """Draw one answer: right, abstained, or wrong (another question's answer)."""
    rng = _rng(model.name, puzzle, condition, qid)
    hurt = qid in damaged
    draw = rng.random()
    abstain = model.abstain_damaged if hurt else model.abstain
    correct = model.correct_damaged if hurt else model.correct
    if draw < abstain:
        return ABSTAIN
    if draw < abstain + correct:
        return accepted[0]
    wrong = [
        other[0]
        for other_id, other in questions
        if other_id != qid and other and not answer_em(other[0], accepted)
    ]
    return rng.choice(wrong) if wrong else f"{accepted[0]} {accepted[0]}"


def _rng(*parts: str) -> random.Random:
    return random.Random(":".join(("ioleval-demo", *parts)))


def _jsonl(rows: list[dict]) -> io.StringIO:
    return io.StringIO("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))

"""What models do with a puzzle's variants: their answers scored, their runs, Table 1.

Pure computation: plain inputs, frozen dataclasses out, no Django. Definitions:

- An answer is scored by the exact-match rule of the `iol2026` metric
  (`puzzles.metrics.exact_match`, which normalises both sides); with several accepted
  answers the score is the best over them.
- An answer is an abstention when it is missing, empty, or `N/A` after the metric's own
  normalisation (so ` n/a `, `N/A.` and `"N/A"` abstain too). An abstention scores 0.
- A run is one model's answers to one puzzle under one condition. A question of the puzzle
  that the run does not answer counts as an abstention; a puzzle, condition or model
  without any answer has no run and is left out (it is not counted as abstained).
- A puzzle's EM in a run is the mean over its questions, abstentions counted as 0.
- A model abstained on a puzzle when it abstained on every question of it; the puzzle is
  attempted otherwise (a run that answers some questions and abstains on others is
  attempted, its abstentions scoring 0).
- An abstention caused by the deletion is a question the model abstained on in a variant
  and answered (not abstained) in the original of the same puzzle. The paper's Table 1
  counts them in puzzles: a puzzle counts once when any of its abstentions was caused,
  out of the puzzles with a question answered in the original; the count in questions is
  ours and given beside it, named as such.

The paired tests are in `paired.py`, the judges against the structural labels in
`judges.py`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from puzzles.metrics import exact_match, normalize

from ..lab.variants import CONDITIONS

ABSTENTIONS = ("", "n/a")
VERDICTS = ("valid", "unsolvable")


# --- scoring --------------------------------------------------------------------------


def is_abstention(answer: str | None) -> bool:
    """Return True for a missing, empty or `N/A` answer (compared in the metric's normal form)."""
    return answer is None or normalize(answer) in ABSTENTIONS


def answer_em(answer: str | None, accepted: Sequence[str]) -> float:
    """Return the exact match (0 or 1) of an answer: the best over accepted answers, 0 if abstained."""
    if not accepted:
        raise ValueError("a question needs at least one accepted answer to be scored")
    if is_abstention(answer):
        return 0.0
    return max(exact_match(answer or "", gold) for gold in accepted)


@dataclass(frozen=True)
class Answer:
    """One solver answer as imported: the model's answer to a question of a puzzle variant."""

    puzzle: str
    condition: str
    model: str
    question: str
    answer: str | None


@dataclass(frozen=True)
class QuestionResult:
    """One question of a run: abstained or not, and its exact match."""

    question: str
    abstained: bool
    em: float

    @property
    def correct(self) -> bool:
        return self.em == 1.0


@dataclass(frozen=True)
class PuzzleRun:
    """One model's answers to one puzzle under one condition, one result per question."""

    model: str
    condition: str
    puzzle: str
    results: tuple[QuestionResult, ...]

    @property
    def em(self) -> float:
        """Mean exact match over the puzzle's questions, abstentions counted as 0."""
        return sum(r.em for r in self.results) / len(self.results)

    @property
    def em_exact(self) -> Fraction:
        """The same mean as an exact fraction (questions right over questions), so that
        differences between runs compare exactly (in floats 3/5 - 2/5 is not 1/5)."""
        return sum((Fraction(r.em) for r in self.results), Fraction(0)) / len(self.results)

    @property
    def abstained(self) -> bool:
        """True when the model abstained on every question of the puzzle."""
        return all(r.abstained for r in self.results)


def puzzle_runs(
    answers: Iterable[Answer], key: Mapping[str, Mapping[str, Sequence[str]]]
) -> tuple[PuzzleRun, ...]:
    """Score answers against `key` (puzzle -> question id -> accepted answers) into runs.

    Runs come sorted by model, condition (in CONDITIONS order) and puzzle; a run's results
    follow the key's question order. An answer for an unknown puzzle, question or condition,
    or a second answer to the same question, is refused naming the answer's 1-based
    position."""
    for puzzle, questions in key.items():
        if not questions:
            raise ValueError(f"puzzle {puzzle!r} has no questions")
    given: dict[tuple[str, str, str], dict[str, str | None]] = defaultdict(dict)
    for position, row in enumerate(answers, start=1):
        where = f"answer {position}"
        if row.condition not in CONDITIONS:
            raise ValueError(
                f"{where}: unknown condition {row.condition!r}; "
                f"expected one of {', '.join(CONDITIONS)}"
            )
        if row.puzzle not in key:
            raise ValueError(f"{where}: unknown puzzle {row.puzzle!r}")
        if row.question not in key[row.puzzle]:
            raise ValueError(f"{where}: puzzle {row.puzzle!r} has no question {row.question!r}")
        run = given[(row.model, row.condition, row.puzzle)]
        if row.question in run:
            raise ValueError(
                f"{where}: a second answer of {row.model!r} to question {row.question!r} "
                f"of {row.puzzle!r} under {row.condition!r}"
            )
        run[row.question] = row.answer
    runs = []
    for (model, condition, puzzle), run in given.items():
        results = tuple(
            QuestionResult(
                question=question,
                abstained=is_abstention(run.get(question)),
                em=answer_em(run.get(question), accepted),
            )
            for question, accepted in key[puzzle].items()
        )
        runs.append(PuzzleRun(model, condition, puzzle, results))
    return tuple(sorted(runs, key=lambda r: (r.model, CONDITIONS.index(r.condition), r.puzzle)))


# --- Table 1: per model and condition -------------------------------------------------


@dataclass(frozen=True)
class ConditionSummary:
    """One model under one condition (the paper's Table 1).

    Caused abstentions (None for the original itself), over the puzzles run under both this
    condition and the original: `puzzles_caused_abstention` counts puzzles with at least one
    question abstained on here and answered in the original (the paper's figure), out of
    `puzzles_answered_in_original` puzzles with a question answered in the original;
    `questions_caused_abstention` counts those questions (ours), out of
    `questions_answered_in_original`."""

    model: str
    condition: str
    n_puzzles: int
    mean_em: float
    puzzles_abstained: int
    mean_em_attempted: float | None
    puzzles_caused_abstention: int | None
    puzzles_answered_in_original: int | None
    questions_caused_abstention: int | None
    questions_answered_in_original: int | None
    note: str | None = None

    @property
    def n_attempted(self) -> int:
        return self.n_puzzles - self.puzzles_abstained


def condition_summaries(runs: Iterable[PuzzleRun]) -> tuple[ConditionSummary, ...]:
    """Return Table 1: one row per model and condition present, sorted like the runs."""
    grouped = runs_by_model_condition(runs)
    rows = []
    for (model, condition), by_puzzle in grouped.items():
        puzzle_runs_ = list(by_puzzle.values())
        attempted = [r for r in puzzle_runs_ if not r.abstained]
        notes = []
        if not attempted:
            notes.append("Every puzzle was abstained on, so there is no mean over attempted ones.")
        caused = answered = puzzles_caused = puzzles_answered = None
        if condition != "original":
            originals = grouped.get((model, "original"), {})
            caused = answered = puzzles_caused = puzzles_answered = 0
            for puzzle, run in by_puzzle.items():
                if puzzle not in originals:
                    continue
                here_answered = here_caused = 0
                for before, after in question_pairs(originals[puzzle], run):
                    if not before.abstained:
                        here_answered += 1
                        here_caused += after.abstained
                answered += here_answered
                caused += here_caused
                puzzles_answered += here_answered > 0
                puzzles_caused += here_caused > 0
            missing = len(set(by_puzzle) - set(originals))
            if missing:
                notes.append(
                    f"{plural(missing, 'puzzle')} without an original run: their abstentions "
                    "cannot be traced to the deletion."
                )
        rows.append(
            ConditionSummary(
                model=model,
                condition=condition,
                n_puzzles=len(puzzle_runs_),
                mean_em=mean([r.em for r in puzzle_runs_]),
                puzzles_abstained=len(puzzle_runs_) - len(attempted),
                mean_em_attempted=mean([r.em for r in attempted]) if attempted else None,
                puzzles_caused_abstention=puzzles_caused,
                puzzles_answered_in_original=puzzles_answered,
                questions_caused_abstention=caused,
                questions_answered_in_original=answered,
                note=" ".join(notes) or None,
            )
        )
    return tuple(rows)


# --- shared by Table 1, the paired tests and the judges --------------------------------


def runs_by_model_condition(
    runs: Iterable[PuzzleRun],
) -> dict[tuple[str, str], dict[str, PuzzleRun]]:
    """Return {(model, condition): {puzzle: run}} in model, CONDITIONS order."""
    grouped: dict[tuple[str, str], dict[str, PuzzleRun]] = {}
    for run in sorted(runs, key=lambda r: (r.model, CONDITIONS.index(r.condition), r.puzzle)):
        by_puzzle = grouped.setdefault((run.model, run.condition), {})
        if run.puzzle in by_puzzle:
            raise ValueError(f"two runs of {run.model!r} on {run.puzzle!r} under {run.condition!r}")
        by_puzzle[run.puzzle] = run
    return grouped


def question_pairs(
    original: PuzzleRun, variant: PuzzleRun
) -> list[tuple[QuestionResult, QuestionResult]]:
    """Return the results of the same questions in two runs of one puzzle, paired by id."""
    after = {r.question: r for r in variant.results}
    if set(after) != {r.question for r in original.results}:
        raise ValueError(
            f"the runs of {original.model!r} on {original.puzzle!r} under {original.condition!r}"
            f" and {variant.condition!r} do not hold the same questions"
        )
    return [(r, after[r.question]) for r in original.results]


def mean(values: Sequence[float]) -> float:
    """Return the mean of a non-empty sequence."""
    return sum(values) / len(values)


def plural(n: int, word: str) -> str:
    """Return "1 puzzle" or "n puzzles"."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"

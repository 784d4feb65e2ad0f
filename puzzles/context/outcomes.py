"""What models and judges do with a puzzle's variants: scores, Table 1, paired tests, judges.

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
- The paired tests compare the original with each other condition, over the puzzles (and
  their questions) that the model ran under both: Wilcoxon's signed-rank test on puzzle EM
  (scipy's default: zero differences dropped, two-sided; differences taken exactly, so
  that equal ones tie, which floats do not ensure: 3/5 - 2/5 != 1/5) and the exact McNemar test on
  question correctness (EM = 1), a two-sided binomial test on the discordant questions.
- A judge's verdict is compared with a structural label given per (puzzle, condition),
  True for unsolvable. The paper's Table 2 takes the verdicts on the targeted variant alone
  (PAPER_TABLE_2_CONDITIONS): the targeted deletion removes an example of largest D_Q, so
  its label is the puzzle's fragility (max D_Q > 0). Ours also pools every judged
  condition (original, random, targeted, no_context), under another name. The positive class is "unsolvable"; F1 = 2TP / (2TP + FP + FN), the
  harmonic mean of precision and recall, also given (as 0) when one of them is undefined
  but the other is 0.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy import stats as sps

from ioleval.wording import plural
from puzzles.metrics import exact_match, normalize

from .variants import CONDITIONS

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
    grouped = _by_model_condition(runs)
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
                for before, after in _question_pairs(originals[puzzle], run):
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
                mean_em=_mean([r.em for r in puzzle_runs_]),
                puzzles_abstained=len(puzzle_runs_) - len(attempted),
                mean_em_attempted=_mean([r.em for r in attempted]) if attempted else None,
                puzzles_caused_abstention=puzzles_caused,
                puzzles_answered_in_original=puzzles_answered,
                questions_caused_abstention=caused,
                questions_answered_in_original=answered,
                note=" ".join(notes) or None,
            )
        )
    return tuple(rows)


# --- paired tests ---------------------------------------------------------------------


@dataclass(frozen=True)
class PairedTest:
    """The original against one other condition, for one model.

    Wilcoxon: over `n_puzzles` puzzles run under both, `n_changed` of them with a different
    EM. McNemar: over `n_questions` questions of those puzzles, `lost` correct in the
    original only and `gained` correct in the variant only. A figure that cannot be given
    is None, and its note says why in a sentence."""

    model: str
    condition: str
    n_puzzles: int
    n_changed: int
    mean_em_original: float | None
    mean_em_variant: float | None
    wilcoxon_statistic: float | None
    wilcoxon_p: float | None
    wilcoxon_note: str | None
    n_questions: int
    lost: int
    gained: int
    mcnemar_p: float | None
    mcnemar_note: str | None


def paired_tests(runs: Iterable[PuzzleRun]) -> tuple[PairedTest, ...]:
    """Return one test per model and non-original condition present, sorted like the runs."""
    grouped = _by_model_condition(runs)
    tests = []
    for (model, condition), by_puzzle in grouped.items():
        if condition == "original":
            continue
        originals = grouped.get((model, "original"), {})
        pairs = [(originals[p], by_puzzle[p]) for p in sorted(by_puzzle) if p in originals]
        tests.append(_paired_test(model, condition, pairs))
    return tuple(tests)


ENUMERATE_UP_TO = 16  # differences: every sign pattern (2**16 = 65,536) is enumerated
EXACT_UP_TO = 50  # differences without ties: scipy's exact distribution; past it, the normal


def wilcoxon_signed_rank(
    before: Sequence[float | Fraction], after: Sequence[float | Fraction]
) -> tuple[float, float, bool]:
    """Return Wilcoxon's signed-rank statistic (the smaller rank sum), its two-sided p-value
    and whether the p is exact, for paired values whose differences are not all zero.

    Differences are taken exactly (each value as a Fraction: pass fractions, such as
    PuzzleRun.em_exact, for values like 3/5 that floats cannot hold), so that equal
    differences tie. Zero differences are dropped (Wilcoxon's own rule) and tied magnitudes
    share their mean rank. Up to ENUMERATE_UP_TO differences the p-value is exact under
    ties too: the rank sum of the positive differences is computed for every sign pattern
    (the permutation distribution scipy's default uses at up to 13 pairs, there through a
    general permutation test that takes seconds at 12 or 13); without ties up to
    EXACT_UP_TO, scipy's exact distribution; past that, the normal approximation with the
    tie correction (scipy's own default there). scipy is given the signed ranks, on which
    the test depends alone, so it sees the exact ties."""
    exact = [Fraction(b) - Fraction(a) for b, a in zip(before, after, strict=True) if b != a]
    m = len(exact)
    magnitudes = sorted({abs(d) for d in exact})
    order = {value: position for position, value in enumerate(magnitudes)}
    ranks = sps.rankdata([order[abs(d)] for d in exact]) if m else np.zeros(0)
    signs = np.array([1.0 if d > 0 else -1.0 for d in exact])
    differences = signs * ranks  # the signed ranks
    positive = float(ranks[signs > 0].sum())
    statistic = min(positive, float(ranks.sum()) - positive)
    if m <= ENUMERATE_UP_TO:
        patterns = (np.arange(2**m)[:, None] >> np.arange(m)) & 1
        sums = patterns @ ranks
        tolerance = 1e-9 * max(1.0, float(ranks.sum()))
        greater = float(np.mean(sums >= positive - tolerance))
        less = float(np.mean(sums <= positive + tolerance))
        return statistic, min(1.0, 2 * min(greater, less)), True
    ties = len(magnitudes) < m
    method = "approx" if ties or m > EXACT_UP_TO else "exact"
    result = sps.wilcoxon(differences, method=method)
    return statistic, float(result.pvalue), method == "exact"


def _paired_test(
    model: str, condition: str, pairs: Sequence[tuple[PuzzleRun, PuzzleRun]]
) -> PairedTest:
    before = [o.em_exact for o, _ in pairs]
    after = [v.em_exact for _, v in pairs]
    n = len(pairs)
    changed = sum(a != b for a, b in zip(before, after, strict=True))
    statistic = p_value = None
    if n < 2:
        have = "No puzzle was" if n == 0 else "Only one puzzle was"
        w_note = f"{have} run under both original and {condition}; the test needs at least 2."
    elif not changed:
        w_note = f"No puzzle's EM differs between original and {condition}; nothing to rank."
    else:
        statistic, p_value, exact = wilcoxon_signed_rank(before, after)
        dropped = n - changed
        notes = [f"{plural(dropped, 'puzzle')} with equal EM left out of the ranks."] * bool(
            dropped
        )
        if not exact:
            why = "with ties" if changed <= EXACT_UP_TO else "over 50"
            notes.append(
                f"p from the normal approximation ({changed} differences, {why}; exact up to 16)."
            )
        w_note = " ".join(notes) or None
    lost = gained = n_questions = 0
    for original, variant in pairs:
        for o, v in _question_pairs(original, variant):
            n_questions += 1
            lost += o.correct and not v.correct
            gained += v.correct and not o.correct
    mcnemar_p = None
    if not n_questions:
        m_note = f"No question was answered under both original and {condition}."
    elif not lost + gained:
        m_note = (
            f"No question changed correctness between original and {condition}; "
            "the test needs at least one discordant question."
        )
    else:
        mcnemar_p = float(sps.binomtest(lost, lost + gained, 0.5).pvalue)
        m_note = None
    return PairedTest(
        model=model,
        condition=condition,
        n_puzzles=n,
        n_changed=changed,
        mean_em_original=_mean([o.em for o, _ in pairs]) if n else None,
        mean_em_variant=_mean([v.em for _, v in pairs]) if n else None,
        wilcoxon_statistic=statistic,
        wilcoxon_p=p_value,
        wilcoxon_note=w_note,
        n_questions=n_questions,
        lost=lost,
        gained=gained,
        mcnemar_p=mcnemar_p,
        mcnemar_note=m_note,
    )


# --- judges ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """One judge's verdict on one puzzle variant: `valid` or `unsolvable`."""

    puzzle: str
    condition: str
    judge: str
    verdict: str


# The paper's Table 2: the judges' verdicts on the targeted deletion against fragility.
PAPER_TABLE_2_CONDITIONS = ("targeted",)


@dataclass(frozen=True)
class JudgeAgreement:
    """One judge against the structural label; the positive class is "unsolvable".

    tp: both unsolvable; fp: judge unsolvable, label solvable; fn: judge valid, label
    unsolvable; tn: both solvable. `conditions`: those of the verdicts counted (in
    CONDITIONS order). Undefined figures are None and `note` says why."""

    judge: str
    tp: int
    fp: int
    fn: int
    tn: int
    precision: float | None
    recall: float | None
    f1: float | None
    note: str | None = None
    conditions: tuple[str, ...] = ()

    @property
    def n(self) -> int:
        return self.tp + self.fp + self.fn + self.tn


def judge_agreement(
    verdicts: Iterable[Verdict],
    labels: Mapping[tuple[str, str], bool],
    *,
    conditions: Iterable[str] | None = None,
) -> tuple[JudgeAgreement, ...]:
    """Return one row per judge (sorted): its verdicts under `conditions` against `labels`.

    `conditions=PAPER_TABLE_2_CONDITIONS` gives the paper's Table 2 (the targeted variant
    alone); None pools every condition judged. `labels[(puzzle, condition)]` is True when
    the variant is structurally unsolvable; a verdict on a variant without a label is
    refused, whatever `conditions` counts. A judge without a verdict counted has no row."""
    counted = set(CONDITIONS if conditions is None else conditions)
    unknown = counted - set(CONDITIONS)
    if unknown:
        raise ValueError(
            f"unknown condition {sorted(unknown)[0]!r}; expected one of {', '.join(CONDITIONS)}"
        )
    counts: dict[str, list[int]] = {}
    seen: dict[str, set[str]] = {}
    for (judge, puzzle, condition), unsolvable in _verdict_index(verdicts).items():
        if (puzzle, condition) not in labels:
            raise ValueError(
                f"verdict of {judge!r} on {puzzle!r} under {condition!r}: "
                "no structural label for that variant"
            )
        if condition not in counted:
            continue
        cell = counts.setdefault(judge, [0, 0, 0, 0])
        seen.setdefault(judge, set()).add(condition)
        label = labels[(puzzle, condition)]
        cell[(0 if label else 1) if unsolvable else (2 if label else 3)] += 1
    return tuple(
        _agreement(
            judge, *counts[judge], conditions=tuple(c for c in CONDITIONS if c in seen[judge])
        )
        for judge in sorted(counts)
    )


def _agreement(
    judge: str, tp: int, fp: int, fn: int, tn: int, *, conditions: tuple[str, ...]
) -> JudgeAgreement:
    precision = tp / (tp + fp) if tp + fp else None
    recall = tp / (tp + fn) if tp + fn else None
    f1 = 2 * tp / (2 * tp + fp + fn) if 2 * tp + fp + fn else None
    if f1 is None:
        note = (
            "No variant was judged unsolvable and none is structurally unsolvable, "
            "so precision, recall and F1 are undefined."
        )
    elif precision is None:
        note = "No variant was judged unsolvable, so precision is undefined (F1 is 0)."
    elif recall is None:
        note = "No variant is structurally unsolvable, so recall is undefined (F1 is 0)."
    else:
        note = None
    return JudgeAgreement(judge, tp, fp, fn, tn, precision, recall, f1, note, conditions)


@dataclass(frozen=True)
class Contradiction:
    """A judge's verdict on a variant beside one model's EM on it and on the original."""

    judge: str
    model: str
    puzzle: str
    condition: str
    verdict: str
    em_original: float
    em_variant: float


@dataclass(frozen=True)
class Contradictions:
    """Table 7: judged unsolvable, EM stayed equal or rose. Table 8: judged valid, EM fell."""

    unsolvable_but_held: tuple[Contradiction, ...]
    valid_but_fell: tuple[Contradiction, ...]


def judge_contradictions(verdicts: Iterable[Verdict], runs: Iterable[PuzzleRun]) -> Contradictions:
    """Return the verdicts that a model's EM contradicts, per judge, model and variant.

    Verdicts on the original are not compared; a model without a run of the variant or of
    its original is left out of that verdict's comparison. Sorted by judge, puzzle, condition
    and model."""
    grouped = _by_model_condition(runs)
    models = sorted({model for model, _ in grouped})
    held, fell = [], []
    for (judge, puzzle, condition), unsolvable in sorted(
        _verdict_index(verdicts).items(),
        key=lambda item: (item[0][0], item[0][1], CONDITIONS.index(item[0][2])),
    ):
        if condition == "original":
            continue
        for model in models:
            original = grouped.get((model, "original"), {}).get(puzzle)
            variant = grouped.get((model, condition), {}).get(puzzle)
            if original is None or variant is None:
                continue
            row = Contradiction(
                judge=judge,
                model=model,
                puzzle=puzzle,
                condition=condition,
                verdict=VERDICTS[unsolvable],
                em_original=original.em,
                em_variant=variant.em,
            )
            if unsolvable and variant.em >= original.em:
                held.append(row)
            elif not unsolvable and variant.em < original.em:
                fell.append(row)
    return Contradictions(tuple(held), tuple(fell))


def _verdict_index(verdicts: Iterable[Verdict]) -> dict[tuple[str, str, str], bool]:
    """Return {(judge, puzzle, condition): unsolvable}, refusing bad or repeated verdicts."""
    index: dict[tuple[str, str, str], bool] = {}
    for position, row in enumerate(verdicts, start=1):
        where = f"verdict {position}"
        if row.verdict not in VERDICTS:
            raise ValueError(
                f"{where}: verdict must be one of {', '.join(VERDICTS)}, got {row.verdict!r}"
            )
        if row.condition not in CONDITIONS:
            raise ValueError(
                f"{where}: unknown condition {row.condition!r}; "
                f"expected one of {', '.join(CONDITIONS)}"
            )
        name = (row.judge, row.puzzle, row.condition)
        if name in index:
            raise ValueError(
                f"{where}: a second verdict of {row.judge!r} on {row.puzzle!r} "
                f"under {row.condition!r}"
            )
        index[name] = row.verdict == "unsolvable"
    return index


# --- helpers --------------------------------------------------------------------------


def _by_model_condition(
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


def _question_pairs(
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


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)

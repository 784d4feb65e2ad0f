"""The paired tests of the context lab's results: the original against each other
condition, per model (pure computation, no Django).

The paired tests compare the original with each other condition, over the puzzles (and
their questions) that the model ran under both: Wilcoxon's signed-rank test on puzzle EM
(scipy's default: zero differences dropped, two-sided; differences taken exactly, so
that equal ones tie, which floats do not ensure: 3/5 - 2/5 != 1/5) and the exact McNemar test on
question correctness (EM = 1), a two-sided binomial test on the discordant questions.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy import stats as sps

from .outcomes import PuzzleRun, mean, plural, question_pairs, runs_by_model_condition


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
    grouped = runs_by_model_condition(runs)
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
        for o, v in question_pairs(original, variant):
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
        mean_em_original=mean([o.em for o, _ in pairs]) if n else None,
        mean_em_variant=mean([v.em for _, v in pairs]) if n else None,
        wilcoxon_statistic=statistic,
        wilcoxon_p=p_value,
        wilcoxon_note=w_note,
        n_questions=n_questions,
        lost=lost,
        gained=gained,
        mcnemar_p=mcnemar_p,
        mcnemar_note=m_note,
    )

"""The best k-example deletions of a puzzle: greedy, and the exact optimum for small
puzzles (by trying every subset); pure, no Django. The definitions are `analysis.py`'s."""

from __future__ import annotations

from itertools import combinations
from math import comb

from .analysis import Deletion, OptimumSearch, PuzzleAnalysis
from .distance import lost, mask_of

# The exhaustive search of the best k-example deletion stops before this many subsets.
MAX_COMBINATIONS = 50_000


def greedy_deletion(analysis: PuzzleAnalysis, k: int) -> Deletion:
    """Delete k examples one at a time, each time the one that damages the most questions.

    Ties go to the lower index. Greedy is not optimal: two examples that each damage
    nothing alone may together remove every occurrence of a token (see optimal_deletion).
    """
    k = _k_check(analysis, k)
    return greedy_deletions(analysis, k)[-1] if k else Deletion((), ())


def greedy_deletions(analysis: PuzzleAnalysis, k: int) -> tuple[Deletion, ...]:
    """Return the greedy deletions of 1, 2, .., k examples (each extends the one before)."""
    k = _k_check(analysis, k)
    reachable = _reachable(analysis, k)
    deleted: list[int] = []
    out = []
    for _ in range(k):
        best_j, best_damage = 0, -1
        gone = mask_of(deleted)
        for j in range(1, analysis.n_examples + 1):
            if j in deleted:
                continue
            with_j = gone | (1 << (j - 1))
            damage = sum(1 for alts in reachable if lost(alts, with_j))
            if damage > best_damage:
                best_j, best_damage = j, damage
        deleted.append(best_j)
        chosen = tuple(sorted(deleted))
        out.append(Deletion(deleted=chosen, damaged_questions=analysis.damaged_questions(chosen)))
    return tuple(out)


def optimal_deletion(
    analysis: PuzzleAnalysis, k: int, *, cap: int = MAX_COMBINATIONS
) -> OptimumSearch:
    """Find the k-example deletion that damages the most questions, by trying every subset.

    Skipped (best None) when there are more than `cap` subsets of k examples. Ties go to
    the lexicographically first subset.
    """
    k = _k_check(analysis, k)
    total = comb(analysis.n_examples, k)
    if total > cap:
        return OptimumSearch(k=k, combinations=total, cap=cap, best=None)
    best: tuple[int, ...] = ()
    best_damage = -1
    reachable = _reachable(analysis, k)
    for chosen in combinations(range(1, analysis.n_examples + 1), k):
        gone = mask_of(chosen)
        damage = sum(1 for alts in reachable if lost(alts, gone))
        if damage > best_damage:
            best, best_damage = chosen, damage
    deletion = Deletion(deleted=best, damaged_questions=analysis.damaged_questions(best))
    return OptimumSearch(k=k, combinations=total, cap=cap, best=deletion)


def _reachable(analysis: PuzzleAnalysis, k: int) -> list[tuple[tuple[int, ...], ...]]:
    """Return the token masks of the questions k deletions may damage: those of deletion
    distance at most k, or whose distance is only an upper bound. No other question can
    count, so they are all a set of k deletions is tested on."""
    return [
        alts
        for q, alts in zip(analysis.questions, analysis.masks, strict=True)
        if q.distance is not None and (q.distance <= k or not q.distance_exact)
    ]


def _k_check(analysis: PuzzleAnalysis, k: int) -> int:
    if not 0 <= k <= analysis.n_examples:
        raise ValueError(f"k must be between 0 and {analysis.n_examples} (the examples)")
    return k

"""Correlations with bootstrap intervals, ranges, ranks and criterion difficulty."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

from ._common import (
    Interval,
    as_float,
    bootstrap_note,
    fmt,
    join_notes,
    percentile_interval,
    plural,
    present,
    resample_counts,
)

MIN_PAIRS = 3


@dataclass(frozen=True)
class Correlation:
    """Spearman, Pearson and Kendall (tau-b) between two columns, with bootstrap 95% intervals.

    Figures are None when they cannot be given, and `note` says why in a sentence; `note`
    also mentions left-out pairs and ties. `skipped` counts bootstrap resamples in which a
    column came out constant (no correlation exists there), left out of the intervals."""

    n: int
    spearman: float | None = None
    spearman_p: float | None = None
    spearman_ci: Interval | None = None
    pearson: float | None = None
    pearson_p: float | None = None
    pearson_ci: Interval | None = None
    kendall: float | None = None
    kendall_p: float | None = None
    kendall_ci: Interval | None = None
    dropped: int = 0
    tied: tuple[int, int] = (0, 0)
    resamples: int = 0
    skipped: int = 0
    note: str | None = None


def correlate(
    x: Sequence[object],
    y: Sequence[object],
    *,
    resamples: int = 10_000,
    seed: int = 2026,
    names: tuple[str, str] = ("first scores", "second scores"),
    items: tuple[str, str] = ("pair", "pairs"),
) -> Correlation:
    """Correlate paired values (None or NaN on either side drops the pair).

    `names` are the two columns in the plural ("automatic scores", "jury totals") and `items`
    what a pair is ("system", "systems"), for the sentences. The intervals are percentile
    intervals over `resamples` resamples of the pairs (0 for none), seeded by `seed`."""
    if len(x) != len(y):
        raise ValueError(f"correlate needs paired values, got {len(x)} and {len(y)}")
    pairs = [(as_float(a), as_float(b)) for a, b in zip(x, y, strict=True)]
    kept = [(a, b) for a, b in pairs if a is not None and b is not None]
    dropped = len(pairs) - len(kept)
    n = len(kept)
    notes = []
    if dropped:
        notes.append(f"{plural(dropped, *items)} without both figures left out.")
    if n < MIN_PAIRS:
        have = "No" if n == 0 else f"Only {n}"
        verb = "has" if n == 1 else "have"
        notes.append(
            f"{have} {items[0] if n == 1 else items[1]} {verb} both figures; "
            f"a correlation needs at least {MIN_PAIRS}."
        )
        return Correlation(n=n, dropped=dropped, note=join_notes(notes))
    xs = np.array([a for a, _ in kept])
    ys = np.array([b for _, b in kept])
    constant = [
        f"The {name} are all {fmt(column[0])}, so they cannot be correlated with anything."
        for column, name in ((xs, names[0]), (ys, names[1]))
        if np.ptp(column) == 0
    ]
    if constant:
        return Correlation(n=n, dropped=dropped, note=join_notes(notes + constant))
    tied = (_tied_values(xs), _tied_values(ys))
    for count, name in zip(tied, names, strict=True):
        if count:
            notes.append(
                f"The {name} have {count} tied values; Spearman and Kendall allow for ties."
            )
    spearman = sps.spearmanr(xs, ys)
    pearson = sps.pearsonr(xs, ys)
    kendall = sps.kendalltau(xs, ys)
    cis, skipped = _bootstrap(xs, ys, resamples=resamples, seed=seed)
    notes.append(bootstrap_note(skipped, resamples, "had a constant column"))
    return Correlation(
        n=n,
        spearman=float(spearman.statistic),
        spearman_p=float(spearman.pvalue),
        spearman_ci=cis[0],
        pearson=float(pearson.statistic),
        pearson_p=float(pearson.pvalue),
        pearson_ci=cis[1],
        kendall=float(kendall.statistic),
        kendall_p=float(kendall.pvalue),
        kendall_ci=cis[2],
        dropped=dropped,
        tied=tied,
        resamples=resamples,
        skipped=skipped,
        note=join_notes(notes),
    )


def _tied_values(values: np.ndarray) -> int:
    """Count the values that share their value with another one (1, 2, 2, 3 has 2)."""
    return sum(c for c in Counter(values.tolist()).values() if c > 1)


def _weighted_pearson(w: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Return Pearson's r per row, each original point i counted w[row, i] times (a and b:
    one value per original point, per row; centred near their mean, so that the sums of
    squares do not cancel)."""
    total = w.sum(axis=1)
    wa, wb = w * a, w * b
    sa, sb = wa.sum(axis=1), wb.sum(axis=1)
    saa = np.einsum("ij,ij->i", wa, a)
    sbb = np.einsum("ij,ij->i", wb, b)
    sab = np.einsum("ij,ij->i", wa, b)
    return (sab - sa * sb / total) / np.sqrt((saa - sa * sa / total) * (sbb - sb * sb / total))


class _Ties:
    """The points of one column grouped by value, in ascending order, for weighted ranks."""

    def __init__(self, values: np.ndarray):
        _, self.group, sizes = np.unique(values, return_inverse=True, return_counts=True)
        self.order = np.argsort(self.group, kind="stable")
        self.starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])

    def weights(self, w: np.ndarray) -> np.ndarray:
        """Return how often each distinct value was drawn (resamples x values)."""
        return np.add.reduceat(w[:, self.order], self.starts, axis=1)

    def ranks(self, drawn: np.ndarray, total: np.ndarray) -> np.ndarray:
        """Return each point's average rank among the drawn copies, less the mean rank
        (total + 1) / 2: a copy of point i ranks (drawn below) + (drawn tied + 1) / 2."""
        below = np.cumsum(drawn, axis=1) - drawn
        return (below + (drawn + 1) / 2 - (total[:, None] + 1) / 2)[:, self.group]


# Below this many points, Kendall's pair sums are integers under 2^24 and float32 (twice as
# fast in the matrix product) gives them exactly.
EXACT_FLOAT32_POINTS = 4096


class _Pairs:
    """The pairwise facts of the original points that a resample only reweights."""

    def __init__(self, xs: np.ndarray, ys: np.ndarray):
        self.xs, self.ys = xs - xs.mean(), ys - ys.mean()
        self.ties_x, self.ties_y = _Ties(xs), _Ties(ys)
        concordance = np.sign(xs[:, None] - xs[None, :]) * np.sign(ys[:, None] - ys[None, :])
        self.float = np.float32 if len(xs) < EXACT_FLOAT32_POINTS else np.float64
        self.concordance = concordance.astype(self.float)
        self.moments = np.column_stack(
            [self.xs, self.ys, self.xs**2, self.ys**2, self.xs * self.ys]
        )

    def figures(self, w: np.ndarray):
        """Return, for draw counts w (resamples x points), which resamples have no constant
        column, and their Spearman, Pearson and Kendall tau-b.

        A resample's pairs are the original pairs counted w_i w_j times: Kendall's numerator
        is w C w' (C: concordance signs) and its untied pairs are total^2 less the sums of
        squared draws per tied value; a drawn copy of point i has the average rank (drawn
        below) + (drawn tied + 1) / 2, from cumulative draws over the sorted values; Pearson
        needs only weighted moments."""
        total = w.sum(axis=1)
        drawn_x, drawn_y = self.ties_x.weights(w), self.ties_y.weights(w)
        untied_x = total**2 - (drawn_x**2).sum(axis=1)
        untied_y = total**2 - (drawn_y**2).sum(axis=1)
        ok = (untied_x > 0) & (untied_y > 0)
        w, total, drawn_x, drawn_y = w[ok], total[ok], drawn_x[ok], drawn_y[ok]
        wf = w.astype(self.float)
        pairs = ((wf @ self.concordance) * wf).sum(axis=1, dtype=np.float64)
        kendall = pairs / np.sqrt(untied_x[ok] * untied_y[ok])
        spearman = _weighted_pearson(
            w, self.ties_x.ranks(drawn_x, total), self.ties_y.ranks(drawn_y, total)
        )
        sx, sy, sxx, syy, sxy = (w @ self.moments).T
        pearson = (sxy - sx * sy / total) / np.sqrt(
            (sxx - sx * sx / total) * (syy - sy * sy / total)
        )
        return ok, spearman, pearson, kendall


def _bootstrap(
    xs: np.ndarray, ys: np.ndarray, *, resamples: int, seed: int
) -> tuple[tuple[Interval | None, Interval | None, Interval | None], int]:
    """Resample the pairs; return the Spearman, Pearson and Kendall intervals and how many
    resamples had a constant column (skipped)."""
    if resamples <= 0:
        return (None, None, None), 0
    pairs = _Pairs(xs, ys)
    found: list[list[np.ndarray]] = [[], [], []]
    skipped = 0
    for w in resample_counts(np.random.default_rng(seed), len(xs), resamples):
        ok, *figures = pairs.figures(w.astype(float))
        skipped += int((~ok).sum())
        for bucket, values in zip(found, figures, strict=True):
            bucket.append(values)
    cis = tuple(percentile_interval(np.concatenate(f)) for f in found)
    return cis, skipped


def spread(values: Sequence[object]) -> float | None:
    """Return max - min of the values present (None with fewer than 2)."""
    kept = present(values)
    return max(kept) - min(kept) if len(kept) >= 2 else None


def competition_ranks(values: Sequence[object]) -> list[int | None]:
    """Rank highest first, 1-based, ties sharing the best rank (1, 2, 2, 4); None stays
    unranked."""
    kept = present(values)
    return [
        None if v is None else 1 + sum(1 for other in kept if other > v)
        for v in (as_float(x) for x in values)
    ]


# A criterion is "much harder" for one side when its mean fraction of points is lower by
# more than this (a quarter of the criterion's points).
DIFFICULTY_MARGIN = 0.25


@dataclass(frozen=True)
class CriterionGap:
    """One criterion's mean fraction of points for models and humans; difference = human -
    model (positive: harder for models)."""

    code: str
    model: float
    human: float
    difference: float


@dataclass(frozen=True)
class CriterionDifficulty:
    """How criterion difficulty for models compares with that for humans."""

    n: int
    codes: tuple[str, ...]
    spearman: float | None
    spearman_p: float | None
    spearman_ci: Interval | None
    harder_for_models: tuple[CriterionGap, ...]
    harder_for_humans: tuple[CriterionGap, ...]
    margin: float
    note: str | None


def criterion_difficulty(
    model_fraction: Mapping[str, object],
    human_fraction: Mapping[str, object],
    *,
    margin: float = DIFFICULTY_MARGIN,
    resamples: int = 10_000,
    seed: int = 2026,
) -> CriterionDifficulty:
    """Compare, over the rubric codes both sides have, the mean fraction (0-1) of each
    criterion's points that models and humans got: Spearman rho, and the criteria whose
    fractions differ by more than `margin`, largest gap first."""
    codes = tuple(
        sorted(
            c
            for c in model_fraction.keys() & human_fraction.keys()
            if as_float(model_fraction[c]) is not None and as_float(human_fraction[c]) is not None
        )
    )
    gaps = [
        CriterionGap(c, m, h, h - m)
        for c in codes
        for m, h in [(as_float(model_fraction[c]), as_float(human_fraction[c]))]
    ]
    harder_models = sorted((g for g in gaps if g.difference > margin), key=lambda g: -g.difference)
    harder_humans = sorted((g for g in gaps if -g.difference > margin), key=lambda g: g.difference)
    if len(codes) < MIN_PAIRS:
        have = "No rubric codes" if not codes else f"Only {plural(len(codes), 'rubric code')}"
        result = Correlation(
            n=len(codes),
            note=f"{have} in common between the systems' and the contestants' points; "
            f"a correlation needs at least {MIN_PAIRS}.",
        )
    else:
        result = correlate(
            [g.model for g in gaps],
            [g.human for g in gaps],
            resamples=resamples,
            seed=seed,
            names=("models' fractions", "contestants' fractions"),
            items=("criterion", "criteria"),
        )
    return CriterionDifficulty(
        n=len(codes),
        codes=codes,
        spearman=result.spearman,
        spearman_p=result.spearman_p,
        spearman_ci=result.spearman_ci,
        harder_for_models=tuple(harder_models),
        harder_for_humans=tuple(harder_humans),
        margin=margin,
        note=result.note,
    )

"""Correlations with exact small-sample p-values and intervals fitting n, ranges, ranks and
criterion difficulty.

The p-values and the intervals follow `ioleval.inference`, one rule for the whole project:
exact permutation p-values up to EXACT_UP_TO pairs, large-sample methods above; Pearson's
interval by Fisher's z; Spearman's and Kendall's by Fisher's z with their own standard errors
up to EXACT_UP_TO pairs, by a percentile bootstrap of the pairs above (drawn here, fast);
never a zero-width interval. Each figure carries its method's name."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from fractions import Fraction

import numpy as np

from ioleval.inference import (
    EXACT_UP_TO,
    KINDS,
    Bounds,
    correlation_tests,
    fisher_interval,
    percentile_bounds,
    reasons,
)

from ._common import (
    Interval,
    as_float,
    bootstrap_note,
    fmt,
    join_notes,
    plural,
    present,
    resample_counts,
)

MIN_PAIRS = 3


@dataclass(frozen=True)
class Correlation:
    """Spearman, Pearson and Kendall (tau-b) between two columns, with p-values and 95%
    intervals, each with the name of its method (`<figure>_p_method`, `<figure>_ci_method`).

    Figures are None when they cannot be given, and `note` says why in a sentence; `note`
    also mentions left-out pairs, ties and each interval that cannot be given. `resamples` is
    the number of bootstrap resamples drawn (0: none, as up to EXACT_UP_TO pairs); `skipped`
    counts those in which a column came out constant (no correlation exists there), left out
    of the intervals."""

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
    spearman_p_method: str | None = None
    pearson_p_method: str | None = None
    kendall_p_method: str | None = None
    spearman_ci_method: str | None = None
    pearson_ci_method: str | None = None
    kendall_ci_method: str | None = None


@dataclass(frozen=True)
class Columns:
    """Two paired columns to correlate, with the words the sentences use for them: `names`
    are the columns in the plural ("automatic scores", "jury totals"), `items` what a pair is
    ("system", "systems")."""

    x: Sequence[object]
    y: Sequence[object]
    names: tuple[str, str] = ("first scores", "second scores")
    items: tuple[str, str] = ("pair", "pairs")
    kinds: tuple[str, ...] = KINDS  # the coefficients wanted; the others stay None


def correlate(
    x: Sequence[object],
    y: Sequence[object],
    *,
    resamples: int = 10_000,
    seed: int = 2026,
    names: tuple[str, str] = ("first scores", "second scores"),
    items: tuple[str, str] = ("pair", "pairs"),
    kinds: tuple[str, ...] = KINDS,
) -> Correlation:
    """Correlate paired values (None or NaN on either side drops the pair).

    `names` are the two columns in the plural ("automatic scores", "jury totals") and `items`
    what a pair is ("system", "systems"), for the sentences. Above EXACT_UP_TO pairs,
    Spearman's and Kendall's intervals are percentile intervals over `resamples` resamples of
    the pairs (0 for none), seeded by `seed`."""
    columns = Columns(x, y, names, items, kinds)
    return correlations([columns], resamples=resamples, seed=seed)[0]


def correlations(
    columns: Sequence[Columns], *, resamples: int = 10_000, seed: int = 2026
) -> list[Correlation]:
    """Return correlate of each pair of columns, the same figures as one call each: the
    bootstraps of columns with the same number of pairs share their draws, as the calls would."""
    prepared = [_prepare(c) for c in columns]
    active = [p for p in prepared if p[1] is not None] if resamples > 0 else []
    built = {id(p): _Pairs(*p[1]) for p in active}
    found: dict[int, list[list[np.ndarray]]] = {id(p): [[], []] for p in active}
    skipped = dict.fromkeys(found, 0)
    by_size: dict[int, list] = {}
    for p in active:
        by_size.setdefault(p[0].n, []).append(p)
    for n, group in by_size.items():
        for w in resample_counts(np.random.default_rng(seed), n, resamples):
            w = w.astype(float)
            for p in group:
                ok, *figures = built[id(p)].figures(w)
                skipped[id(p)] += int((~ok).sum())
                for bucket, values in zip(found[id(p)], figures, strict=True):
                    bucket.append(values)
    out = []
    for p in prepared:
        result, pairs, notes, columns = p
        if pairs is not None and resamples > 0:
            method = f"percentile bootstrap of the {columns.items[1]}, {resamples:,} resamples"
            drawn = {
                kind: percentile_bounds(np.concatenate(f), kind=kind, method=method)
                for f, kind in zip(found[id(p)], ("spearman", "kendall"), strict=True)
                if kind in columns.kinds
            }
            result = replace(
                result,
                **{k: v for kind, b in drawn.items() for k, v in _bounds(kind, b).items()},
                resamples=resamples,
                skipped=skipped[id(p)],
                note=join_notes(
                    [
                        *notes,
                        *reasons(drawn.values()),
                        bootstrap_note(skipped[id(p)], resamples, "had a constant column"),
                    ]
                ),
            )
        out.append(result)
    return out


def _bounds(kind: str, bounds: Bounds) -> dict:
    """Return a Correlation's fields for one figure's interval and its method."""
    return {f"{kind}_ci": bounds.interval, f"{kind}_ci_method": bounds.method}


def _prepare(
    columns: Columns,
) -> tuple[Correlation, tuple[np.ndarray, np.ndarray] | None, list[str], Columns]:
    """Return the figures of two columns that need no bootstrap, what their bootstrap needs
    (None when there is none to draw: no correlation, at most EXACT_UP_TO pairs, or neither
    rank coefficient wanted) with the notes so far, and the columns."""
    x, y, names, items = columns.x, columns.y, columns.names, columns.items
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
        return Correlation(n=n, dropped=dropped, note=join_notes(notes)), None, notes, columns
    xs = np.array([a for a, _ in kept])
    ys = np.array([b for _, b in kept])
    constant = [
        f"The {name} are all {fmt(column[0])}, so they cannot be correlated with anything."
        for column, name in ((xs, names[0]), (ys, names[1]))
        if np.ptp(column) == 0
    ]
    if constant:
        result = Correlation(n=n, dropped=dropped, note=join_notes(notes + constant))
        return result, None, notes, columns
    tied = (_tied_values(xs), _tied_values(ys))
    for count, name in zip(tied, names, strict=True):
        if count:
            notes.append(
                f"The {name} have {count} tied values; Spearman and Kendall allow for ties."
            )
    kinds = columns.kinds
    tests = correlation_tests(xs, ys, kinds)
    small = n <= EXACT_UP_TO  # too few pairs for a bootstrap: Fisher's z with their own SEs
    intervals = {
        kind: fisher_interval(kind, test.statistic, n)
        for kind, test in tests.items()
        if kind == "pearson" or small
    }
    notes += reasons(intervals.values())
    fields = {}
    for kind, test in tests.items():
        fields |= {kind: test.statistic, f"{kind}_p": test.p, f"{kind}_p_method": test.method}
    for kind, bounds in intervals.items():
        fields |= _bounds(kind, bounds)
    result = Correlation(n=n, dropped=dropped, tied=tied, note=join_notes(notes), **fields)
    bootstrap = not small and bool({"spearman", "kendall"} & set(kinds))
    return result, (xs, ys) if bootstrap else None, notes, columns


def _tied_values(values: np.ndarray) -> int:
    """Count the values that share their value with another one (1, 2, 2, 3 has 2)."""
    return sum(c for c in Counter(values.tolist()).values() if c > 1)


class _Ranks:
    """One column's values in ascending order, for the average ranks of a resample's drawn
    copies: a copy of point i ranks (drawn below) + (drawn tied + 1) / 2."""

    def __init__(self, values: np.ndarray):
        self.order = np.argsort(values, kind="stable")
        ordered = values[self.order]
        last = np.append(ordered[1:] != ordered[:-1], True)  # a tie group ends here
        self.ties = not last.all()
        self.ends = np.flatnonzero(last)
        self.group = np.cumsum(np.append(False, last[:-1]))  # each sorted point's tie group

    def of(self, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Return the ranks of each point (resamples x points, in ascending order of the
        values) and, per resample, the sum of squared draws per tie group (the pairs tied)."""
        drawn = w[:, self.order]
        through = np.cumsum(drawn, axis=1)
        if not self.ties:
            return through - (drawn - 1) / 2, np.einsum("ij,ij->i", drawn, drawn)
        end = through[:, self.ends]
        per_group = end.copy()
        per_group[:, 1:] -= end[:, :-1]
        end -= (per_group - 1) / 2  # the group's average rank
        return end[:, self.group], np.einsum("ij,ij->i", per_group, per_group)


# Below this many points, Kendall's pair sums are integers under 2^24 and float32 (twice as
# fast in the matrix product) gives them exactly.
EXACT_FLOAT32_POINTS = 4096


class _Pairs:
    """The pairwise facts of the original points that a resample only reweights."""

    def __init__(self, xs: np.ndarray, ys: np.ndarray):
        self.ranks_x, self.ranks_y = _Ranks(xs), _Ranks(ys)
        # where each point, in ascending order of x, stands in ascending order of y
        position_y = np.empty(len(ys), dtype=np.intp)
        position_y[self.ranks_y.order] = np.arange(len(ys))
        self.y_at_x = position_y[self.ranks_x.order]
        concordance = np.sign(xs[:, None] - xs[None, :]) * np.sign(ys[:, None] - ys[None, :])
        self.float = np.float32 if len(xs) < EXACT_FLOAT32_POINTS else np.float64
        self.concordance = concordance.astype(self.float)

    def figures(self, w: np.ndarray):
        """Return, for draw counts w (resamples x points), which resamples have no constant
        column, and their Spearman and Kendall tau-b (Pearson's interval is Fisher's).

        A resample's pairs are the original pairs counted w_i w_j times: Kendall's numerator
        is w C w' (C: the pairs' concordance signs) and its untied pairs are total^2 less the
        squared draws per tied value; Spearman is Pearson's r of the drawn copies' average
        ranks (_Ranks)."""
        total = w.sum(axis=1)
        rank_x, tied_x = self.ranks_x.of(w)
        rank_y, tied_y = self.ranks_y.of(w)
        untied_x, untied_y = total**2 - tied_x, total**2 - tied_y
        ok = (untied_x > 0) & (untied_y > 0)
        if not ok.all():
            w, total, rank_x, rank_y = w[ok], total[ok], rank_x[ok], rank_y[ok]
        wf = w.astype(self.float)
        pairs = ((wf @ self.concordance) * wf).sum(axis=1, dtype=np.float64)
        kendall = pairs / np.sqrt(untied_x[ok] * untied_y[ok])
        # Spearman in ascending order of x: the weights, and both ranks less their mean
        middle = (total[:, None] + 1) / 2
        drawn = w[:, self.ranks_x.order]
        spearman = _pearson_of_sums(
            total,
            *_weighted_moments(drawn, rank_x - middle, rank_y[:, self.y_at_x] - middle),
        )
        return ok, spearman, kendall


def _weighted_moments(w: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, ...]:
    """Return the per-row sums of w a, w b, w a^2, w b^2 and w a b."""
    wa, wb = w * a, w * b
    return (
        wa.sum(axis=1),
        wb.sum(axis=1),
        np.einsum("ij,ij->i", wa, a),
        np.einsum("ij,ij->i", wb, b),
        np.einsum("ij,ij->i", wa, b),
    )


def _pearson_of_sums(total, sa, sb, saa, sbb, sab) -> np.ndarray:
    """Return Pearson's r from weighted sums (total weight, sums, squares and products)."""
    return (sab - sa * sb / total) / np.sqrt((saa - sa * sa / total) * (sbb - sb * sb / total))


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
    model (positive: harder for models), computed exactly and given as floats."""

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
    spearman_p_method: str | None = None
    spearman_ci_method: str | None = None


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
    fractions differ by more than `margin`, largest gap first.

    Fractions are compared exactly: give them as Fraction (or Decimal, int) and equal shares
    are ties and a gap of exactly `margin` is not "more than" it (floats are taken at their
    exact binary value; `margin` at its decimal one)."""
    exact = {
        side: {c: _exact(v) for c, v in fractions.items()}
        for side, fractions in (("model", model_fraction), ("human", human_fraction))
    }
    model, human = exact["model"], exact["human"]
    codes = tuple(
        sorted(c for c in model.keys() & human.keys() if None not in (model[c], human[c]))
    )
    limit = Fraction(str(margin))
    differences = {c: human[c] - model[c] for c in codes}
    gaps = {
        c: CriterionGap(c, float(model[c]), float(human[c]), float(differences[c])) for c in codes
    }
    harder_models = sorted(
        (c for c in codes if differences[c] > limit), key=lambda c: -differences[c]
    )
    harder_humans = sorted(
        (c for c in codes if -differences[c] > limit), key=lambda c: differences[c]
    )
    if len(codes) < MIN_PAIRS:
        have = "No rubric codes" if not codes else f"Only {plural(len(codes), 'rubric code')}"
        result = Correlation(
            n=len(codes),
            note=f"{have} in common between the systems' and the contestants' points; "
            f"a correlation needs at least {MIN_PAIRS}.",
        )
    else:
        result = correlate(
            _order_keeping_floats([model[c] for c in codes]),
            _order_keeping_floats([human[c] for c in codes]),
            resamples=resamples,
            seed=seed,
            names=("models' fractions", "contestants' fractions"),
            items=("criterion", "criteria"),
            kinds=("spearman",),
        )
    return CriterionDifficulty(
        n=len(codes),
        codes=codes,
        spearman=result.spearman,
        spearman_p=result.spearman_p,
        spearman_ci=result.spearman_ci,
        harder_for_models=tuple(gaps[c] for c in harder_models),
        harder_for_humans=tuple(gaps[c] for c in harder_humans),
        margin=margin,
        note=result.note,
        spearman_p_method=result.spearman_p_method,
        spearman_ci_method=result.spearman_ci_method,
    )


def _exact(value: object) -> Fraction | None:
    """Return a number as an exact Fraction (None for a missing value: None or NaN)."""
    if as_float(value) is None:
        return None
    if isinstance(value, Fraction | int | Decimal):
        return Fraction(value)
    return Fraction(float(value))  # a float, or a numpy number: its exact binary value


def _order_keeping_floats(values: list[Fraction]) -> list[float]:
    """Return the values as floats, or, where two different values would become the same
    float, as their dense ranks: a rank correlation needs only their order and their ties,
    and equal Fractions always give equal floats."""
    floats = [float(v) for v in values]
    if len(set(floats)) == len(set(values)):
        return floats
    order = {v: float(i) for i, v in enumerate(sorted(set(values)))}
    return [order[v] for v in values]

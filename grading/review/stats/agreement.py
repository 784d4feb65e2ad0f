"""Juror agreement: Krippendorff's alpha, ICC(2,k), each juror's deviation, discrepant cells.

A unit is one cell of the jury's work, a (paper, criterion) pair, and its ratings are the
jurors' marks for it; the sentences speak of cells and marks."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from ._common import (
    Interval,
    as_float,
    bootstrap_note,
    fmt,
    join_notes,
    percentile_interval,
    plural,
    present,
    resampled_sums,
)


@dataclass(frozen=True)
class Reliability:
    """An agreement coefficient (alpha or ICC) with its bootstrap 95% interval over cells.

    `units` cells entered the figure, `left_out` did not (too few marks); `skipped` counts
    resamples without variation, left out of the interval."""

    value: float | None
    ci: Interval | None
    units: int
    left_out: int = 0
    resamples: int = 0
    skipped: int = 0
    note: str | None = None


# --- Krippendorff's alpha ---------------------------------------------------------------------


def coincidence_matrix(units: Sequence[Sequence[object]]) -> tuple[np.ndarray, np.ndarray]:
    """Return the distinct values and the coincidence matrix o[c, k] of the pairable units
    (Krippendorff 2011, section C): each unit with m >= 2 values adds, for every ordered pair
    of its values (c, k) taken from two different raters, 1 / (m - 1) to o[c, k]."""
    pairable = [u for u in (present(u) for u in units) if len(u) >= 2]
    flat = np.array([v for u in pairable for v in u], dtype=float)
    rows = np.repeat(np.arange(len(pairable)), [len(u) for u in pairable])
    values = np.unique(flat)
    counts = np.zeros((len(pairable), len(values)))  # counts[u, c]: how often unit u has c
    np.add.at(counts, (rows, np.searchsorted(values, flat)), 1)
    weight = 1 / (counts.sum(axis=1) - 1)
    o = (counts * weight[:, None]).T @ counts - np.diag(weight @ counts)
    return values, o


def krippendorff_alpha_interval(
    units: Sequence[Sequence[object]], *, resamples: int = 10_000, seed: int = 2026
) -> Reliability:
    """Krippendorff's alpha with the interval metric delta(c, k)^2 = (c - k)^2:
    alpha = 1 - (n - 1) * sum o[c,k] delta^2 / sum n_c n_k delta^2, from the coincidence
    matrix. `units` holds each cell's marks (None for a missing one); cells with fewer than 2
    marks are not pairable and are left out. The interval resamples cells."""
    return reliabilities(alphas=[units], resamples=resamples, seed=seed)[0][0]


def reliabilities(
    *,
    alphas: Sequence[Sequence[Sequence[object]]] = (),
    iccs: Sequence[Sequence[Sequence[object]]] = (),
    resamples: int = 10_000,
    seed: int = 2026,
) -> tuple[list[Reliability], list[Reliability]]:
    """Return krippendorff_alpha_interval of each of `alphas` and icc_2k of each of `iccs`,
    the same figures as one call each, at a fraction of the cost: the bootstraps of all of
    them share their draws (resampled_sums), as the calls would for the same number of units."""
    pending = [_alpha_pending(units) for units in alphas] + [_icc_pending(m) for m in iccs]
    active = [p for p in pending if p.statistic is not None]
    sums = (
        resampled_sums([p.statistic.figures for p in active], resamples=resamples, seed=seed)
        if resamples > 0
        else [np.empty((0, p.statistic.figures.shape[1])) for p in active]
    )
    for p, s in zip(active, sums, strict=True):
        got = p.statistic.of_sums(s)
        undefined = np.isnan(got)
        skipped = int(undefined.sum())
        p.result = replace(
            p.result,
            ci=percentile_interval(got[~undefined]),
            resamples=resamples,
            skipped=skipped,
            note=join_notes(
                [p.result.note, bootstrap_note(skipped, resamples, "had no variation")]
            ),
        )
    results = [p.result for p in pending]
    return results[: len(alphas)], results[len(alphas) :]


@dataclass
class _Pending:
    """A figure before its interval: the result so far and, when there is an interval to
    draw, the statistic to resample."""

    result: Reliability
    statistic: _Weighted | None = None


class _Weighted:
    """A statistic that depends on a resample only through weighted sums of per-unit figures:
    `figures` (units x p) and `of_sums` (sums, resamples x p, to one value per resample, NaN
    where undefined). Called with draw-count weights (resamples x units) it gives the value
    per resample."""

    def __init__(self, figures: np.ndarray, of_sums):
        self.figures, self.of_sums = figures, of_sums

    def __call__(self, w: np.ndarray) -> np.ndarray:
        return self.of_sums(w @ self.figures)


def _alpha_pending(units: Sequence[Sequence[object]]) -> _Pending:
    marks = [present(u) for u in units]
    pairable = [u for u in marks if len(u) >= 2]
    left_out = len(marks) - len(pairable)
    notes = []
    if left_out:
        notes.append(f"{plural(left_out, 'cell')} with fewer than two marks left out.")
    if not pairable:
        notes.append("No cell has marks from two jurors yet, so agreement cannot be measured.")
        return _Pending(Reliability(None, None, 0, left_out, note=join_notes(notes)))
    values, o = coincidence_matrix(pairable)
    if len(values) == 1:
        notes.append(
            f"Every mark is {fmt(values[0])}: with no variation, Krippendorff's alpha is undefined."
        )
        return _Pending(Reliability(None, None, len(pairable), left_out, note=join_notes(notes)))
    n_c = o.sum(axis=1)
    delta2 = (values[:, None] - values[None, :]) ** 2
    alpha = 1 - (n_c.sum() - 1) * (o * delta2).sum() / (np.outer(n_c, n_c) * delta2).sum()
    return _Pending(
        Reliability(float(alpha), None, len(pairable), left_out, note=join_notes(notes)),
        _alpha_weighted(pairable),
    )


def _alpha_weighted(pairable: list[list[float]]) -> _Weighted:
    """Return alpha as a function of draw-count weights over the pairable units.

    Summed over a unit's ordered pairs, (c - k)^2 / (m - 1) is 2 m SS / (m - 1) (SS: squared
    deviations from the unit's mean), and over all pairs of pairable values it is 2 (n Q - S^2)
    (S, Q: sum and sum of squares), so alpha = 1 - (n - 1) sum(m SS / (m - 1)) / (n Q - S^2):
    per-unit sums that a resample adds up with its draw counts as weights."""
    # One flat array with each value's unit index, so that the per-unit sums are bincounts
    # (a Python loop over thousands of units cost more than the bootstrap's matrix products).
    flat = np.array([v for u in pairable for v in u], dtype=float)
    flat -= flat.mean()
    unit = np.repeat(np.arange(len(pairable)), [len(u) for u in pairable])
    m = np.bincount(unit, minlength=len(pairable)).astype(float)
    s = np.bincount(unit, weights=flat, minlength=len(pairable))
    q = np.bincount(unit, weights=flat * flat, minlength=len(pairable))
    ss = np.bincount(unit, weights=(flat - (s / m)[unit]) ** 2, minlength=len(pairable))
    d = m * ss / (m - 1)

    def alpha(sums: np.ndarray) -> np.ndarray:
        n, big_s, big_q, big_d = sums.T
        den = n * big_q - big_s**2
        ok = den > 1e-10 * n * big_q
        return np.where(ok, 1 - (n - 1) * big_d / np.where(ok, den, 1), np.nan)

    return _Weighted(np.column_stack([m, s, q, d]), alpha)


# --- ICC(2,k) ---------------------------------------------------------------------------------


def icc_2k(
    matrix: Sequence[Sequence[object]], *, resamples: int = 10_000, seed: int = 2026
) -> Reliability:
    """ICC(2,k): two-way random effects, absolute agreement, mean of k raters (Shrout & Fleiss
    1979; McGraw & Wong 1996 ICC(A,k)) = (MSR - MSE) / (MSR + (MSC - MSE) / n), for a cells x
    raters matrix. Rows with a missing mark are left out; the interval resamples rows."""
    return reliabilities(iccs=[matrix], resamples=resamples, seed=seed)[1][0]


def _icc_pending(matrix: Sequence[Sequence[object]]) -> _Pending:
    rows = [[as_float(v) for v in row] for row in matrix]
    widths = {len(r) for r in rows}
    if len(widths) > 1:
        raise ValueError(f"icc_2k needs rows of one length, got lengths {sorted(widths)}")
    complete = [r for r in rows if None not in r]
    left_out = len(rows) - len(complete)
    notes = []
    if left_out:
        notes.append(f"{plural(left_out, 'cell')} without a mark from every juror left out.")
    k = widths.pop() if widths else 0
    if len(complete) < 2 or k < 2:
        notes.append(
            f"ICC needs at least 2 cells marked by the same 2 or more jurors; "
            f"there {'is' if len(complete) == 1 else 'are'} {plural(len(complete), 'cell')} "
            f"and {plural(k, 'juror')}."
        )
        return _Pending(Reliability(None, None, len(complete), left_out, note=join_notes(notes)))
    icc = _icc_weighted(np.array(complete))
    value = icc(np.ones((1, len(complete))))[0]
    if np.isnan(value):
        flat = {v for row in complete for v in row}
        notes.append(
            f"Every mark is {fmt(flat.pop())}: with no variation, ICC is undefined."
            if len(flat) == 1
            else "ICC cannot be computed: the cells differ less than the jurors disagree."
        )
        return _Pending(Reliability(None, None, len(complete), left_out, note=join_notes(notes)))
    return _Pending(
        Reliability(float(value), None, len(complete), left_out, note=join_notes(notes)), icc
    )


def _icc_weighted(x: np.ndarray) -> _Weighted:
    """Return ICC(2,k) of the rows x raters matrix x as a function of draw-count weights over
    its rows (NaN where there is no variation): the sums of squares of the two-way ANOVA come
    from per-row sums that a resample adds up with its draw counts."""
    n, k = x.shape
    x = x - x.mean()  # centring changes no sum of squares and avoids cancellation
    row = x.sum(axis=1)
    sq = (x * x).sum(axis=1)

    def icc(sums: np.ndarray) -> np.ndarray:
        q, grand, row_sq, columns = sums[:, 0], sums[:, 1], sums[:, 2], sums[:, 3:]
        correction = grand**2 / (n * k)
        sst = q - correction
        ssr = row_sq / k - correction
        ssc = (columns**2).sum(axis=1) / n - correction
        msr, msc = ssr / (n - 1), ssc / (k - 1)
        mse = (sst - ssr - ssc) / ((n - 1) * (k - 1))
        den = msr + (msc - mse) / n
        ok = (sst > 1e-10 * q) & (den > 0)
        return np.where(ok, (msr - mse) / np.where(ok, den, 1), np.nan)

    return _Weighted(np.column_stack([sq, row, row * row, x]), icc)


# --- each juror against the agreed marks --------------------------------------------------------

# A juror whose mean difference from the agreed marks stays within this many points is in
# line with the jury; below FEW_CELLS marked cells the figure is too thin to act on.
DEVIATION_MARGIN = 0.25
FEW_CELLS = 5


@dataclass(frozen=True)
class RaterDeviation:
    """One juror's mean signed difference (own mark - agreed mark) and mean absolute difference
    over the n cells they marked that have an agreed mark."""

    rater: Hashable
    mean: float | None
    mean_abs: float | None
    n: int

    @property
    def sentence(self) -> str:
        return deviation_sentence(self)


def rater_deviation(
    marks: Mapping[Hashable, Mapping[Hashable, object]], agreed: Mapping[Hashable, object]
) -> tuple[RaterDeviation, ...]:
    """For each rater of marks (rater -> cell -> points), compare with agreed (cell -> points),
    in the raters' order. The agreed mark includes the rater's own, so with two jurors a
    deviation is half the gap between them."""
    out = []
    for rater, own in marks.items():
        diffs = [
            mine - final
            for cell, value in own.items()
            for mine, final in [(as_float(value), as_float(agreed.get(cell)))]
            if mine is not None and final is not None
        ]
        n = len(diffs)
        out.append(
            RaterDeviation(
                rater,
                sum(diffs) / n if n else None,
                sum(abs(d) for d in diffs) / n if n else None,
                n,
            )
        )
    return tuple(out)


def deviation_sentence(
    deviation: RaterDeviation, *, margin: float = DEVIATION_MARGIN, few: int = FEW_CELLS
) -> str:
    """Word a deviation for the chair, without a subject ("Juror 3 " + sentence): "marks 0.8
    points above the agreed marks on average (n = 40): more lenient than the jury"."""
    if deviation.n == 0 or deviation.mean is None:
        return "has no marks on cells with an agreed mark yet"
    mean, n = deviation.mean, deviation.n
    if mean > margin:
        text = f"marks {fmt(mean)} points above the agreed marks on average (n = {n}): more lenient than the jury"
    elif mean < -margin:
        text = f"marks {fmt(-mean)} points below the agreed marks on average (n = {n}): more severe than the jury"
    else:
        text = f"marks in line with the agreed marks ({'+' if mean >= 0 else '-'}{fmt(abs(mean))} points on average, n = {n})"
    if n < few:
        text += f"; only {plural(n, 'cell')}, too few to judge"
    return text


# --- discrepant cells -------------------------------------------------------------------------


@dataclass(frozen=True)
class DiscrepancyRate:
    """The share of compared cells (2+ submitted marks) whose marks differ by more than the
    tolerance before consensus."""

    rate: float | None
    discrepant: int
    compared: int
    note: str | None = None


def discrepancy_rate(cells: Sequence[Sequence[object]], *, tolerance: object) -> DiscrepancyRate:
    """Count cells whose submitted marks (None for missing) span more than tolerance; values
    are compared as given, so Decimal marks and tolerance stay exact."""
    compared = discrepant = 0
    for cell in cells:
        values = [v for v in cell if v is not None]
        if len(values) < 2:
            continue
        compared += 1
        discrepant += max(values) - min(values) > tolerance
    if not compared:
        return DiscrepancyRate(None, 0, 0, "No cell has submitted marks from two jurors yet.")
    return DiscrepancyRate(discrepant / compared, discrepant, compared)

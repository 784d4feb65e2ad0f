"""Juror agreement: Krippendorff's alpha, ICC(A,k) and ICC(A,1), discrepant cells.

A unit is one cell of the jury's work, a (paper, criterion) pair, and its ratings are the
jurors' marks for it; the sentences speak of cells and marks. A cell belongs to a paper, and
the cells of one paper are not independent (one juror read the whole paper, one system wrote
it): given the papers, the bootstrap resamples papers, each with all its cells (a cluster
bootstrap); without them, each cell is its own paper."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from ._common import (
    MIN_UNITS,
    Bootstrap,
    Interval,
    as_float,
    bootstrap_interval,
    bootstrap_sums,
    fmt,
    interval_method,
    join_notes,
    plural,
    present,
    too_few_note,
)


@dataclass(frozen=True)
class Reliability:
    """An agreement coefficient (alpha or ICC) with its 95% bootstrap interval.

    `units` cells entered the figure, `left_out` did not (too few marks); the bootstrap
    resampled `clusters` of them, each a `unit` ("paper": all of a paper's cells together),
    `resamples` times (or, when `exact`, every distinct resample once with its probability);
    `skipped` resamples had no variation and are left out of the interval; `mc_error` is the
    Monte-Carlo standard error of the interval's ends (0 when exact)."""

    value: float | None
    ci: Interval | None
    units: int
    left_out: int = 0
    resamples: int = 0
    skipped: int = 0
    note: str | None = None
    unit: str = "cell"
    clusters: int = 0
    exact: bool = False
    mc_error: float | None = None

    @property
    def method(self) -> str | None:
        """Say how the interval was drawn (None without an interval)."""
        if self.ci is None:
            return None
        boot = Bootstrap(self.ci, self.resamples, exact=self.exact, mc_error=self.mc_error)
        return interval_method(boot, unit=self.unit, units=self.clusters)


@dataclass(frozen=True)
class Icc:
    """The two ICCs of one cells x jurors matrix, from one two-way ANOVA (McGraw & Wong 1996,
    two-way random effects, absolute agreement): `average`, ICC(A,k) = Shrout & Fleiss's
    ICC(2,k), the reliability of the mean of k jurors' marks; `single`, ICC(A,1) = ICC(2,1),
    the reliability of one juror's mark."""

    average: Reliability
    single: Reliability


@dataclass(frozen=True)
class Ratings:
    """Cells' marks (one sequence per cell, None for a missing mark) and the paper of each
    cell, the bootstrap's resampling unit (None: each cell is its own paper)."""

    cells: Sequence[Sequence[object]]
    papers: Sequence[Hashable] | None = field(default=None)


def _ratings(data) -> Ratings:
    return data if isinstance(data, Ratings) else Ratings(data)


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
    units: Sequence[Sequence[object]],
    *,
    papers: Sequence[Hashable] | None = None,
    resamples: int = 10_000,
    seed: int = 2026,
) -> Reliability:
    """Krippendorff's alpha with the interval metric delta(c, k)^2 = (c - k)^2:
    alpha = 1 - (n - 1) * sum o[c,k] delta^2 / sum n_c n_k delta^2, from the coincidence
    matrix. `units` holds each cell's marks (None for a missing one); cells with fewer than 2
    marks are not pairable and are left out. The interval resamples papers (each cell its own
    paper when `papers` is None)."""
    return reliabilities(alphas=[Ratings(units, papers)], resamples=resamples, seed=seed)[0][0]


def reliabilities(
    *,
    alphas: Sequence[Ratings | Sequence[Sequence[object]]] = (),
    iccs: Sequence[Ratings | Sequence[Sequence[object]]] = (),
    resamples: int = 10_000,
    seed: int = 2026,
    mc_target: float | None = None,
    max_resamples: int = 100_000,
) -> tuple[list[Reliability], list[Icc]]:
    """Return krippendorff_alpha_interval of each of `alphas` and icc of each of `iccs`, the
    same figures as one call each, at a fraction of the cost: the bootstraps of all of them
    share their draws (bootstrap_sums), as the calls would for the same number of papers.

    With `mc_target`, a figure whose interval ends carry a larger Monte-Carlo error is drawn
    again with five times the resamples, up to max_resamples (few papers: cheap, and there the
    error is largest); its `resamples` says how many it got."""
    pending = [_alpha_pending(_ratings(r)) for r in alphas]
    pending += [_icc_pending(_ratings(r)) for r in iccs]
    for p in pending:
        p.base = p.results
    todo = [p for p in pending if p.statistic is not None]
    if resamples > 0:
        for p in todo:
            if p.statistic.figures.shape[0] < MIN_UNITS:
                p.results = [
                    replace(r, note=join_notes([r.note, too_few_note(r.clusters, r.unit)]))
                    for r in p.base
                ]
        todo = [p for p in todo if p.statistic.figures.shape[0] >= MIN_UNITS]
    drawn = resamples
    while todo and drawn > 0:
        _draw(todo, resamples=drawn, seed=seed)
        if mc_target is None or drawn >= max_resamples:
            break
        todo = [
            p
            for p in todo
            if any(r.mc_error is not None and r.mc_error > mc_target for r in p.results)
        ]
        drawn = min(max_resamples, drawn * 5)
    out = [p.results for p in pending]
    return [r[0] for r in out[: len(alphas)]], [Icc(*r) for r in out[len(alphas) :]]


def _draw(pending: list[_Pending], *, resamples: int, seed: int) -> None:
    """Give each pending figure its interval from one shared bootstrap of `resamples`."""
    sums = bootstrap_sums([p.statistic.figures for p in pending], resamples=resamples, seed=seed)
    for p, s in zip(pending, sums, strict=True):
        got = p.statistic.of_sums(s.sums).reshape(len(s.sums), -1)
        p.results = [
            _with_interval(r, bootstrap_interval(got[:, j], s.probabilities))
            for j, r in enumerate(p.base)
        ]


def _with_interval(result: Reliability, boot: Bootstrap) -> Reliability:
    skipped = None
    if boot.skipped_share > 0.05:
        skipped = (
            f"{boot.skipped_share:.0%} of the bootstrap's resamples had no variation and were "
            "left out of the interval."
        )
    return replace(
        result,
        ci=boot.ci,
        resamples=boot.resamples,
        skipped=boot.skipped,
        exact=boot.exact,
        mc_error=boot.mc_error,
        note=join_notes([result.note, skipped, boot.note]),
    )


@dataclass
class _Pending:
    """Figures before their intervals: the results so far and, when there is an interval to
    draw, the statistic to resample (one column of its values per result)."""

    results: list[Reliability]
    statistic: _Weighted | None = None
    base: list[Reliability] = field(default_factory=list)  # the results before any interval


class _Weighted:
    """A statistic that depends on a resample only through weighted sums of per-unit figures:
    `figures` (units x p) and `of_sums` (sums, resamples x p, to values per resample, NaN
    where undefined). Called with draw-count weights (resamples x units) it gives the values
    per resample. Given each unit's cluster, the figures are summed per cluster first, and
    the weights are then over clusters: a resample draws clusters with all their units."""

    def __init__(self, figures: np.ndarray, of_sums, clusters: np.ndarray | None = None):
        if clusters is not None:
            summed = np.zeros((int(clusters.max()) + 1, figures.shape[1]))
            np.add.at(summed, clusters, figures)
            figures = summed
        self.figures, self.of_sums = figures, of_sums

    def __call__(self, w: np.ndarray) -> np.ndarray:
        return self.of_sums(w @ self.figures)


def _clusters(papers: Sequence[Hashable] | None, keep: Sequence[int]) -> tuple[np.ndarray, int]:
    """Return the cluster index of each kept cell (0, 1, ... in order of first appearance) and
    the number of clusters; without papers every cell is its own cluster."""
    if papers is None:
        return np.arange(len(keep)), len(keep)
    index: dict[Hashable, int] = {}
    got = np.array([index.setdefault(papers[i], len(index)) for i in keep], dtype=np.intp)
    return got, len(index)


def _alpha_pending(ratings: Ratings) -> _Pending:
    marks = [present(u) for u in ratings.cells]
    keep = [i for i, u in enumerate(marks) if len(u) >= 2]
    pairable = [marks[i] for i in keep]
    left_out = len(marks) - len(pairable)
    unit = "cell" if ratings.papers is None else "paper"
    notes = []
    if left_out:
        notes.append(f"{plural(left_out, 'cell')} with fewer than two marks left out.")
    if not pairable:
        notes.append("No cell has marks from two jurors yet, so agreement cannot be measured.")
        return _Pending([Reliability(None, None, 0, left_out, note=join_notes(notes), unit=unit)])
    clusters, n_clusters = _clusters(ratings.papers, keep)
    values, o = coincidence_matrix(pairable)
    if len(values) == 1:
        notes.append(
            f"Every mark is {fmt(values[0])}: with no variation, Krippendorff's alpha is undefined."
        )
        return _Pending(
            [
                Reliability(
                    None, None, len(pairable), left_out, note=join_notes(notes), unit=unit,
                    clusters=n_clusters,
                )
            ]
        )  # fmt: skip
    n_c = o.sum(axis=1)
    delta2 = (values[:, None] - values[None, :]) ** 2
    alpha = 1 - (n_c.sum() - 1) * (o * delta2).sum() / (np.outer(n_c, n_c) * delta2).sum()
    result = Reliability(
        float(alpha), None, len(pairable), left_out, note=join_notes(notes), unit=unit,
        clusters=n_clusters,
    )  # fmt: skip
    weighted = _alpha_weighted(pairable)
    return _Pending([result], _Weighted(weighted.figures, weighted.of_sums, clusters))


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


# --- ICC(A,k) and ICC(A,1) --------------------------------------------------------------------


def icc(
    matrix: Sequence[Sequence[object]],
    *,
    papers: Sequence[Hashable] | None = None,
    resamples: int = 10_000,
    seed: int = 2026,
) -> Icc:
    """ICC(A,k) and ICC(A,1) of a cells x raters matrix (two-way random effects, absolute
    agreement; McGraw & Wong 1996; Shrout & Fleiss 1979's ICC(2,k) and ICC(2,1)), from the
    mean squares of the two-way ANOVA (rows MSR, raters MSC, error MSE, n rows, k raters):
    ICC(A,k) = (MSR - MSE) / (MSR + (MSC - MSE) / n),
    ICC(A,1) = (MSR - MSE) / (MSR + (k - 1) MSE + k (MSC - MSE) / n).
    Rows with a missing mark are left out; the intervals resample papers (each row its own
    paper when `papers` is None)."""
    return reliabilities(iccs=[Ratings(matrix, papers)], resamples=resamples, seed=seed)[1][0]


def icc_2k(
    matrix: Sequence[Sequence[object]], *, resamples: int = 10_000, seed: int = 2026
) -> Reliability:
    """ICC(2,k) = ICC(A,k) of icc: the reliability of the mean of the k raters' marks."""
    return icc(matrix, resamples=resamples, seed=seed).average


def _icc_pending(ratings: Ratings) -> _Pending:
    rows = [[as_float(v) for v in row] for row in ratings.cells]
    widths = {len(r) for r in rows}
    if len(widths) > 1:
        raise ValueError(f"icc needs rows of one length, got lengths {sorted(widths)}")
    keep = [i for i, r in enumerate(rows) if None not in r]
    complete = [rows[i] for i in keep]
    left_out = len(rows) - len(complete)
    unit = "cell" if ratings.papers is None else "paper"
    notes = []
    if left_out:
        notes.append(f"{plural(left_out, 'cell')} without a mark from every juror left out.")
    k = widths.pop() if widths else 0
    clusters, n_clusters = _clusters(ratings.papers, keep)

    def without(note: str) -> _Pending:
        result = Reliability(
            None, None, len(complete), left_out, note=join_notes([*notes, note]), unit=unit,
            clusters=n_clusters,
        )  # fmt: skip
        return _Pending([result, result])

    if len(complete) < 2 or k < 2:
        return without(
            f"ICC needs at least 2 cells marked by the same 2 or more jurors; "
            f"there {'is' if len(complete) == 1 else 'are'} {plural(len(complete), 'cell')} "
            f"and {plural(k, 'juror')}."
        )
    weighted = _icc_weighted(np.array(complete))
    average, single = weighted(np.ones((1, len(complete))))[0]
    if np.isnan(average):
        flat = {v for row in complete for v in row}
        return without(
            f"Every mark is {fmt(flat.pop())}: with no variation, ICC is undefined."
            if len(flat) == 1
            else "ICC cannot be computed: the cells differ less than the jurors disagree."
        )
    results = [
        Reliability(
            float(v), None, len(complete), left_out, note=join_notes(notes), unit=unit,
            clusters=n_clusters,
        )
        for v in (average, single)
    ]  # fmt: skip
    return _Pending(results, _Weighted(weighted.figures, weighted.of_sums, clusters))


def _icc_weighted(x: np.ndarray) -> _Weighted:
    """Return ICC(A,k) and ICC(A,1) of the rows x raters matrix x (two columns) as a function
    of draw-count weights over its rows (NaN where there is no variation): the sums of squares
    of the two-way ANOVA come from per-row sums that a resample adds up with its draw counts
    (the row count too, since a resample of papers holds a varying number of rows)."""
    n, k = x.shape
    x = x - x.mean()  # centring changes no sum of squares and avoids cancellation
    row = x.sum(axis=1)
    sq = (x * x).sum(axis=1)

    def icc(sums: np.ndarray) -> np.ndarray:
        rows, q, grand, row_sq = sums[:, 0], sums[:, 1], sums[:, 2], sums[:, 3]
        columns = sums[:, 4:]
        with np.errstate(divide="ignore", invalid="ignore"):
            correction = grand**2 / (rows * k)
            sst = q - correction
            ssr = row_sq / k - correction
            ssc = (columns**2).sum(axis=1) / rows - correction
            msr, msc = ssr / (rows - 1), ssc / (k - 1)
            mse = (sst - ssr - ssc) / ((rows - 1) * (k - 1))
            average_den = msr + (msc - mse) / rows
            single_den = msr + (k - 1) * mse + k * (msc - mse) / rows
            ok = (rows >= 2) & (sst > 1e-10 * q) & (average_den > 0) & (single_den > 0)
            average = np.where(ok, (msr - mse) / np.where(ok, average_den, 1), np.nan)
            single = np.where(ok, (msr - mse) / np.where(ok, single_den, 1), np.nan)
        return np.column_stack([average, single])

    return _Weighted(np.column_stack([np.ones(n), sq, row, row * row, x]), icc)


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

"""Helpers the statistics share: number cleaning, wording, bootstrap resampling."""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from ioleval.wording import plural

Interval = tuple[float, float]

# Bootstrap resamples are drawn in blocks so that a large problem (thousands of units) never
# holds a resamples x units array at once; the block size does not change the draws' order.
# Blocks of a few hundred thousand cells stay in the processor's cache while they are counted
# (2,000,000 took a third longer at 2,400 units).
BLOCK_CELLS = 250_000


def as_float(value: object) -> float | None:
    """Return value as a float, or None for a missing value (None or NaN)."""
    if value is None:
        return None
    number = float(value)  # Decimal, int, numpy scalars
    return None if math.isnan(number) else number


def present(values: Iterable[object]) -> list[float]:
    """Return the values that are not missing, as floats."""
    return [v for v in (as_float(x) for x in values) if v is not None]


def fmt(value: float) -> str:
    """Write a figure the way the pages do: one decimal when that is exact, else two."""
    if abs(value * 10 - round(value * 10)) < 1e-9:
        return f"{value:.1f}"
    return f"{value:.2f}"


def join_notes(notes: Iterable[str]) -> str | None:
    """Join sentences into one note, or None when there is nothing to say."""
    text = " ".join(n for n in notes if n)
    return text or None


def resample_blocks(rng: np.random.Generator, n: int, resamples: int):
    """Yield blocks of bootstrap index rows (each row draws n indices from 0..n-1 with
    replacement), resamples rows in all."""
    rows = max(1, BLOCK_CELLS // max(n, 1))
    done = 0
    while done < resamples:
        size = min(rows, resamples - done)
        yield rng.integers(0, n, size=(size, n))
        done += size


def resample_counts(rng: np.random.Generator, n: int, resamples: int):
    """Yield blocks of bootstrap weights: how often each of n units was drawn in each resample
    (the same draws as resample_blocks, as counts so that sums become matrix products)."""
    for idx in resample_blocks(rng, n, resamples):
        size = idx.shape[0]
        flat = (idx + n * np.arange(size)[:, None]).ravel()
        yield np.bincount(flat, minlength=size * n).reshape(size, n)


def resampled_sums(figures: Sequence[np.ndarray], *, resamples: int, seed: int) -> list[np.ndarray]:
    """Return, for each units x p array of per-unit figures, their sums over each bootstrap
    resample of its units (resamples x p), weighting unit i by how often it was drawn.

    Arrays with the same number of units get the same draws, the ones a single call with that
    seed would get: drawing and counting the indices is most of a bootstrap's cost, so it is
    done once per unit count, and one matrix product serves all the arrays."""
    out: list[np.ndarray | None] = [None] * len(figures)
    by_units: dict[int, list[int]] = {}
    for i, f in enumerate(figures):
        by_units.setdefault(f.shape[0], []).append(i)
    for n, members in by_units.items():
        stacked = np.column_stack([figures[i] for i in members])
        sums = np.concatenate(
            [
                w.astype(float) @ stacked
                for w in resample_counts(np.random.default_rng(seed), n, resamples)
            ]
        )
        at = 0
        for i in members:
            width = figures[i].shape[1]
            out[i] = sums[:, at : at + width]
            at += width
    return out  # type: ignore[return-value]


def bootstrap_note(skipped: int, resamples: int, why: str) -> str | None:
    """Say when many resamples gave no figure (over 5%), so the interval rests on fewer."""
    if resamples and skipped / resamples > 0.05:
        return (
            f"{skipped:,} of {resamples:,} bootstrap resamples {why} and were left out "
            "of the interval."
        )
    return None


# --- bootstraps that state their resampling unit and their Monte-Carlo error --------------------

Z95 = 1.959963984540054  # the standard normal's 97.5% point


def distinct_resamples(n: int) -> int:
    """Return how many distinct bootstrap resamples n units have: multisets of n draws from n,
    C(2n - 1, n) (126 for 5 units, 6,435 for 8, 92,378 for 10)."""
    return math.comb(2 * n - 1, n) if n > 0 else 0


def exact_counts(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Return every distinct bootstrap resample of n units as draw counts (one row each) and
    its probability under drawing n times with replacement, n! / (c_1! ... c_n!) / n^n (the
    multinomial): the bootstrap distribution itself, with no Monte-Carlo error."""
    combos = np.array(list(itertools.combinations_with_replacement(range(n), n)), dtype=np.intp)
    counts = np.zeros((len(combos), n), dtype=np.intp)
    rows = np.repeat(np.arange(len(combos)), n)
    np.add.at(counts, (rows, combos.ravel()), 1)
    log_p = math.lgamma(n + 1) - n * math.log(n) - np.sum(_log_factorials(n)[counts], axis=1)
    p = np.exp(log_p)
    return counts, p / p.sum()  # the sum is 1 up to rounding


def _log_factorials(n: int) -> np.ndarray:
    return np.array([math.lgamma(i + 1) for i in range(n + 1)])


@dataclass(frozen=True)
class Sums:
    """A bootstrap's weighted sums (resamples x p) and, for an exact bootstrap, each row's
    probability (None: random draws, each row equally likely)."""

    sums: np.ndarray
    probabilities: np.ndarray | None = None

    @property
    def exact(self) -> bool:
        return self.probabilities is not None


# Below this many units (papers) a bootstrap gives no interval: 4 papers have 35 distinct
# resamples, 2 have 3, and percentiles of so few say more about the resampling than the data.
MIN_UNITS = 5


def too_few_note(n: int, unit: str) -> str:
    """Say why there is no interval with fewer than MIN_UNITS units."""
    return (
        f"No interval: {plural(n, unit)} {'is' if n == 1 else 'are'} too few for a bootstrap, "
        f"which needs at least {MIN_UNITS}."
    )


# Up to this many distinct resamples (10 units: 92,378) a bootstrap enumerates them all rather
# than draw at random: as cheap as 10,000 draws of a few units, and free of Monte-Carlo error
# where it is largest (a handful of units, a lumpy bootstrap distribution).
EXACT_LIMIT = 100_000


def bootstrap_sums(
    figures: Sequence[np.ndarray], *, resamples: int, seed: int, exact: bool = True
) -> list[Sums]:
    """Return, for each units x p array of per-unit figures, their sums over bootstrap
    resamples of its units. Where the units have no more distinct resamples than `resamples`
    or EXACT_LIMIT (10 units or fewer) and `exact`, every distinct resample once, with its
    probability (exact_counts); otherwise `resamples` random draws, those of resampled_sums
    (arrays with the same number of units share them). No resamples, no sums: resamples 0
    asks for none."""
    out: list[Sums | None] = [None] * len(figures)
    drawn = []
    limit = max(resamples, EXACT_LIMIT)
    for i, f in enumerate(figures):
        n = f.shape[0]
        if exact and resamples > 0 and 0 < distinct_resamples(n) <= limit:
            counts, p = _exact_cached(n)
            out[i] = Sums(counts.astype(float) @ f, p)
        else:
            drawn.append(i)
    if drawn:
        sums = resampled_sums([figures[i] for i in drawn], resamples=resamples, seed=seed)
        for i, s in zip(drawn, sums, strict=True):
            out[i] = Sums(s)
    return out  # type: ignore[return-value]


@functools.lru_cache(maxsize=16)
def _exact_cached(n: int) -> tuple[np.ndarray, np.ndarray]:
    counts, p = exact_counts(n)
    counts.flags.writeable = p.flags.writeable = False
    return counts, p


@dataclass(frozen=True)
class Bootstrap:
    """A 95% bootstrap interval with what it rests on: `resamples` (the distinct resamples
    when `exact`), `skipped` (resamples without a figure; for an exact bootstrap, their share
    of the probability in `skipped_share`), `mc_error` (the Monte-Carlo standard error of the
    interval's ends, the larger of the two; 0 for an exact bootstrap) and `note`."""

    ci: Interval | None
    resamples: int
    skipped: int = 0
    skipped_share: float = 0.0
    exact: bool = False
    mc_error: float | None = None
    note: str | None = None


def bootstrap_interval(estimates: np.ndarray, probabilities: np.ndarray | None = None) -> Bootstrap:
    """Return the 95% percentile interval of bootstrap estimates (NaN: no figure in that
    resample, left out). With `probabilities` (an exact bootstrap) the interval is the 2.5%
    and 97.5% points of the weighted distribution (inverted CDF) and carries no Monte-Carlo
    error; otherwise numpy's percentiles and, as their Monte-Carlo error, half the width of
    the order statistics' 95% interval for each quantile divided by 1.96 (distribution-free:
    ranks B p +- 1.96 sqrt(B p (1 - p))). An interval of zero width is not given: every
    resample then gives the same figure, and the note says so."""
    undefined = np.isnan(estimates)
    skipped = int(undefined.sum())
    kept = estimates[~undefined]
    total = estimates.size
    if probabilities is not None:
        weights = probabilities[~undefined]
        share = float(probabilities[undefined].sum())
        if kept.size == 0 or weights.sum() <= 0:
            return Bootstrap(None, total, skipped, share, True, 0.0)
        low, high = np.percentile(
            kept, [2.5, 97.5], weights=weights / weights.sum(), method="inverted_cdf"
        )
        result = Bootstrap((float(low), float(high)), total, skipped, share, True, 0.0)
    else:
        if kept.size == 0:
            return Bootstrap(None, total, skipped, skipped / total if total else 0.0)
        low, high = np.percentile(kept, [2.5, 97.5])
        result = Bootstrap(
            (float(low), float(high)),
            total,
            skipped,
            skipped / total,
            False,
            quantile_mc_error(kept, (0.025, 0.975)),
        )
    if high - low <= 1e-12 * max(1.0, abs(high)):
        return replace(
            result,
            ci=None,
            mc_error=None,
            note=f"Every resample gives {fmt(float(low))}, so the bootstrap gives no interval.",
        )
    return result


def quantile_mc_error(kept: np.ndarray, quantiles: Sequence[float]) -> float:
    """Return the larger Monte-Carlo standard error of the given quantiles of B draws: half
    the spread of the order statistics at ranks B p -+ 1.96 sqrt(B p (1 - p)), over 1.96."""
    ordered = np.sort(kept)
    b = ordered.size
    errors = []
    for p in quantiles:
        half = Z95 * math.sqrt(b * p * (1 - p))
        lo = min(b - 1, max(0, math.floor(b * p - half) - 1))
        hi = min(b - 1, max(0, math.ceil(b * p + half) - 1))
        errors.append((ordered[hi] - ordered[lo]) / (2 * Z95))
    return float(max(errors))


def interval_method(boot: Bootstrap, *, unit: str, units: int) -> str:
    """Say how an interval was drawn: "95% percentile bootstrap over 300 papers (10,000
    resamples; Monte-Carlo error of its ends ±0.004)", or for an exact bootstrap "95% exact
    bootstrap over 6 papers (all 462 distinct resamples)"."""
    if boot.exact:
        return (
            f"95% exact bootstrap over {plural(units, unit)} "
            f"(all {boot.resamples:,} distinct resamples, weighted by their probability)"
        )
    error = "" if boot.mc_error is None else f"; Monte-Carlo error of its ends ±{boot.mc_error:.3f}"
    return (
        f"95% percentile bootstrap over {plural(units, unit)} ({boot.resamples:,} resamples{error})"
    )

"""Correlation tests and intervals whose method fits the number of pairs: one rule, one place.

Every Spearman, Kendall and Pearson p-value and interval in ioleval comes from here (the
review's correlations and criterion difficulty, the analytics' probes and runs), and each
carries the name of its method, so that a page can say which one it is. Pure: numpy and
scipy only.

p-values (two-sided):

- up to EXACT_UP_TO pairs, an exact permutation test for all three coefficients: every one of
  the n! orderings of the second column against the first is enumerated, and p is the share
  whose coefficient is at least as large in absolute value as the observed one. Ties stay
  where they are: the values are permuted, not their ranks, so Spearman's mid-ranks and
  Kendall's tau-b (tied pairs count neither way) are computed on each ordering exactly as on
  the data, and the test is exact given the ties. Spearman's and Kendall's statistics are
  compared as integers (twice the mid-ranks; pair signs), so exact ties between orderings are
  ties; Pearson's within a relative 1e-12. At n = 5 with rho = 1 (no ties), p = 2/120: only
  the observed ordering and its reverse are as extreme.
- above it, the large-sample methods: Spearman's t approximation (n - 2 df); Kendall's exact
  null distribution when neither column has ties and n <= KENDALL_EXACT_UP_TO (scipy's limit
  for it), else the normal approximation with the tie-corrected variance; Pearson's t test
  (n - 2 df, exact under bivariate normality).

Intervals (95% by default) never have zero width: where a method would give one, there is
no interval and a sentence says why (`Bounds.reason`).

- Pearson's r: Fisher's z, tanh(atanh(r) +- z/sqrt(n - 3)), from 4 pairs.
- Spearman's rho and Kendall's tau up to EXACT_UP_TO pairs: Fisher's z with the standard
  error of Bonett and Wright (2000), sqrt((1 + rho^2/2)/(n - 3)), from 4 pairs, and of
  Fieller, Hartley and Pearson (1957), sqrt(0.437/(n - 4)), from 5 pairs (a percentile
  bootstrap of so few pairs has a handful of distinct resamples and collapses onto the
  estimate). Above EXACT_UP_TO the callers draw a percentile bootstrap (`percentile_bounds`).
- A coefficient of exactly +-1 has no Fisher interval (z is infinite there); a bootstrap
  whose resamples all agree has none either.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np
from scipy import stats as sps

EXACT_UP_TO = 10  # exact permutation p-values (and Fisher intervals for ranks) up to this n
KENDALL_EXACT_UP_TO = 33  # scipy's exact null distribution of tau, without ties
LEVEL = 0.95
KINDS = ("spearman", "pearson", "kendall")
NAMES = {"spearman": "Spearman rho", "pearson": "Pearson r", "kendall": "Kendall tau"}
# Permutations are enumerated in blocks: every ordering of the last TAIL positions after
# each ordered choice of the first n - TAIL (90 blocks of 40,320 rows at n = 10).
TAIL = 8
# Kendall's tau from its n (n - 1) / 2 pair signs up to this many pairs (half a million).
INTEGER_TAU_UP_TO = 1000
# Pearson's numerators are floats: an ordering counts as extreme within this relative margin.
RELATIVE_TOLERANCE = 1e-12


@dataclass(frozen=True)
class Test:
    """A coefficient with its two-sided p-value and the method that gave it."""

    statistic: float
    p: float
    method: str


@dataclass(frozen=True)
class Bounds:
    """An interval and its method, or none (low and high None) and why (`why`, `reason`)."""

    low: float | None = None
    high: float | None = None
    method: str | None = None
    name: str = ""  # the coefficient's name, for the sentence: "Spearman rho"
    why: str | None = None  # why there is no interval: "Fisher's interval needs at least 4 pairs"

    @property
    def interval(self) -> tuple[float, float] | None:
        return None if self.low is None or self.high is None else (self.low, self.high)

    @property
    def reason(self) -> str | None:
        """Say why there is no interval in a sentence (None when there is one)."""
        return None if self.why is None else f"No interval for {self.name}: {self.why}."


def reasons(bounds: Iterable[Bounds]) -> list[str]:
    """Say why intervals are missing, one sentence per reason: "No interval for Spearman rho
    or Kendall tau: at exactly +1, Fisher's z is infinite." """
    names: dict[str, list[str]] = {}
    for b in bounds:
        if b.why is not None:
            names.setdefault(b.why, []).append(b.name)
    return [
        f"No interval for {', '.join(named[:-1]) + ' or ' if len(named) > 1 else ''}"
        f"{named[-1]}: {why}."
        for why, named in names.items()
    ]


# --- p-values ---------------------------------------------------------------------------------


def exact_method(n: int) -> str:
    """Name the exact permutation test over n pairs: 'exact permutation, all 120 orderings'."""
    return f"exact permutation, all {math.factorial(n):,} orderings"


def correlation_tests(
    x: Sequence[float], y: Sequence[float], kinds: Sequence[str] = KINDS
) -> dict[str, Test]:
    """Return the coefficients named in `kinds` ('spearman', 'pearson', 'kendall') of paired
    values, each with its two-sided p-value and method (the module docstring gives the rule).

    Needs at least 3 pairs and neither column constant (there is no correlation otherwise)."""
    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    n = len(xs)
    if len(ys) != n or n < 3:
        raise ValueError(f"correlation tests need at least 3 pairs, got {len(xs)} and {len(ys)}")
    if np.ptp(xs) == 0 or np.ptp(ys) == 0:
        raise ValueError("correlation tests need two columns that vary")
    unknown = set(kinds) - set(KINDS)
    if unknown:
        raise ValueError(f"unknown coefficients: {sorted(unknown)}")
    statistics = {
        "spearman": lambda: spearman_rho(xs, ys),
        "pearson": lambda: float(sps.pearsonr(xs, ys).statistic),
        "kendall": lambda: kendall_tau(xs, ys),
    }
    if n <= EXACT_UP_TO:
        p = permutation_p(xs, ys, kinds)
        return {k: Test(statistics[k](), p[k], exact_method(n)) for k in kinds}
    return {k: replace(_large_sample(k, xs, ys), statistic=statistics[k]()) for k in kinds}


def spearman_rho(x: Sequence[float], y: Sequence[float]) -> float:
    """Return Spearman's rho (Pearson's r of the mid-ranks) from integer sums, so that rho is
    exactly +-1 when the rankings agree or are reversed (scipy gives 0.9999999999999999)."""
    a = np.rint(2 * sps.rankdata(x)).astype(np.int64)
    b = np.rint(2 * sps.rankdata(y)).astype(np.int64)
    n = len(a)
    return _ratio(
        n * int(a @ b) - int(a.sum()) * int(b.sum()),
        (n * int(a @ a) - int(a.sum()) ** 2) * (n * int(b @ b) - int(b.sum()) ** 2),
    )


def kendall_tau(x: Sequence[float], y: Sequence[float]) -> float:
    """Return Kendall's tau-b from integer pair counts (exactly +-1 at full agreement) up to
    INTEGER_TAU_UP_TO pairs; above, scipy's (O(n log n); the pairs would not fit in memory)."""
    if len(x) > INTEGER_TAU_UP_TO:
        return float(sps.kendalltau(x, y).statistic)
    first, second = np.triu_indices(len(x), k=1)
    sx = np.sign(np.asarray(x)[second] - np.asarray(x)[first]).astype(np.int64)
    sy = np.sign(np.asarray(y)[second] - np.asarray(y)[first]).astype(np.int64)
    return _ratio(int(sx @ sy), int(np.abs(sx).sum()) * int(np.abs(sy).sum()))


def _ratio(numerator: int, squared_denominator: int) -> float:
    """Return numerator / sqrt(squared_denominator), exactly +-1 when they are equal."""
    if numerator * numerator == squared_denominator:
        return math.copysign(1.0, numerator)
    return numerator / math.sqrt(squared_denominator)


def _large_sample(kind: str, xs: np.ndarray, ys: np.ndarray) -> Test:
    n = len(xs)
    if kind == "spearman":
        r = sps.spearmanr(xs, ys)
        return Test(float(r.statistic), float(r.pvalue), f"t approximation, {n - 2} df")
    if kind == "pearson":
        r = sps.pearsonr(xs, ys)
        return Test(float(r.statistic), float(r.pvalue), f"t test, {n - 2} df (normal pairs)")
    untied = len(np.unique(xs)) == n and len(np.unique(ys)) == n
    if untied and n <= KENDALL_EXACT_UP_TO:
        r = sps.kendalltau(xs, ys, method="exact")
        return Test(float(r.statistic), float(r.pvalue), "exact null distribution (no ties)")
    r = sps.kendalltau(xs, ys, method="asymptotic")
    return Test(float(r.statistic), float(r.pvalue), "normal approximation, tie-corrected")


def permutation_p(x: np.ndarray, y: np.ndarray, kinds: Sequence[str] = KINDS) -> dict[str, float]:
    """Return the exact two-sided permutation p-value of each coefficient in `kinds`: the
    share of the n! orderings of y against x whose coefficient is at least as large in
    absolute value as the observed one (ties kept; see the module docstring)."""
    n = len(x)
    out = {}
    for kind in kinds:
        if kind == "pearson":
            out[kind] = _pearson_p(x, y)
            continue
        if kind == "spearman":
            # the sum of products of twice the mid-ranks, less its mean over the orderings;
            # its denominator is the same for every ordering
            a = np.rint(2 * sps.rankdata(x)).astype(np.int64)
            b = np.rint(2 * sps.rankdata(y)).astype(np.int64)
            observed = abs(int(a @ b) - n * (n + 1) ** 2)
        else:
            # the sum of concordance signs over pairs (tau-b's denominator depends only on
            # the ties, the same for every ordering)
            a, b = _dense(x), _dense(y)
            first, second = np.triu_indices(n, k=1)
            observed = abs(
                int(np.sign(a[second] - a[first]).astype(np.int64) @ np.sign(b[second] - b[first]))
            )
        # The null distribution depends only on the two columns' sorted values (the ties):
        # the orderings of b are all there whatever the order of a.
        values, counts = _null(kind, tuple(sorted(a.tolist())), tuple(sorted(b.tolist())))
        out[kind] = int(counts[values >= observed].sum()) / math.factorial(n)
    return out


def _dense(values: np.ndarray) -> np.ndarray:
    """Return 0-based dense ranks (tied values share one; 1.5, 0.2, 1.5 -> 1, 0, 1)."""
    return np.unique(values, return_inverse=True)[1].astype(np.int8).reshape(-1)


@lru_cache(maxsize=64)
def _null(kind: str, a: tuple[int, ...], b: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Return the distinct absolute statistics of every ordering of b against a, ascending,
    and how many orderings give each (Spearman: a and b twice the mid-ranks; Kendall: dense
    ranks, a ascending)."""
    n = len(a)
    xa, yb = np.array(a, dtype=np.int64), np.array(b)
    found = []
    if kind == "spearman":
        centre = n * (n + 1) ** 2
        for block in orderings(n):
            found.append(np.unique(np.abs(yb[block] @ xa - centre), return_counts=True))
    else:
        # a ascending: pair (i < j) is concordant when b's j-th value is larger, unless a ties
        pairs = [(i, j) for i in range(n) for j in range(i + 1, n) if a[i] != a[j]]
        ranks = yb.astype(np.int8)
        for block in orderings(n):
            columns = ranks[block.T]  # n x orderings: one contiguous row per position
            total = np.zeros(block.shape[0], dtype=np.int16)
            for i, j in pairs:
                total += np.sign(columns[j] - columns[i])
            found.append(np.unique(np.abs(total), return_counts=True))
    values = np.unique(np.concatenate([v for v, _ in found]))
    counts = np.zeros(len(values), dtype=np.int64)
    for v, c in found:
        np.add.at(counts, np.searchsorted(values, v), c)
    return values, counts


def _pearson_p(x: np.ndarray, y: np.ndarray) -> float:
    """Return the exact permutation p-value of Pearson's r (its numerator, within a relative
    RELATIVE_TOLERANCE of the observed one: floats)."""
    xc, yc = x - x.mean(), y - y.mean()
    observed = abs(float(yc @ xc)) - RELATIVE_TOLERANCE * math.sqrt(float(xc @ xc) * float(yc @ yc))
    count = sum(int((np.abs(yc[block] @ xc) >= observed).sum()) for block in orderings(len(x)))
    return count / math.factorial(len(x))


def orderings(n: int) -> Iterator[np.ndarray]:
    """Yield every permutation of 0..n-1 once, as rows of blocks (n! rows in all)."""
    tail = min(n, TAIL)
    ends = _permutations(tail)
    for head in itertools.permutations(range(n), n - tail):
        rest = np.array(sorted(set(range(n)) - set(head)), dtype=np.intp)
        block = np.empty((len(ends), n), dtype=np.intp)
        block[:, : n - tail] = head
        block[:, n - tail :] = rest[ends]
        yield block


@lru_cache(maxsize=TAIL)
def _permutations(m: int) -> np.ndarray:
    """Return every permutation of 0..m-1 as the rows of an m! x m array."""
    out = np.array(list(itertools.permutations(range(m))), dtype=np.intp).reshape(-1, m)
    out.flags.writeable = False
    return out


# --- intervals --------------------------------------------------------------------------------


def fisher_method(kind: str) -> str:
    """Name the Fisher interval of a coefficient, with its standard error."""
    return {
        "pearson": "Fisher z",
        "spearman": "Fisher z, Bonett-Wright SE",
        "kendall": "Fisher z, Fieller SE",
    }[kind]


def fisher_interval(kind: str, estimate: float, n: int, *, level: float = LEVEL) -> Bounds:
    """Return the Fisher z interval of a coefficient over n pairs (see the module docstring),
    or none with the reason: too few pairs, or a coefficient of exactly +-1."""
    least = 5 if kind == "kendall" else 4
    name = NAMES[kind]
    if n < least:
        return Bounds(name=name, why=f"Fisher's interval needs at least {least} pairs")
    if abs(estimate) >= 1:
        return Bounds(name=name, why=f"at exactly {estimate:+.0f}, Fisher's z is infinite")
    if kind == "pearson":
        se = 1 / math.sqrt(n - 3)
    elif kind == "spearman":
        se = math.sqrt((1 + estimate**2 / 2) / (n - 3))
    else:
        se = math.sqrt(0.437 / (n - 4))
    z = math.atanh(estimate)
    half = float(sps.norm.ppf(0.5 + level / 2)) * se
    return bounds(math.tanh(z - half), math.tanh(z + half), method=fisher_method(kind), name=name)


def percentile_bounds(
    estimates: np.ndarray, *, kind: str, method: str, level: float = LEVEL
) -> Bounds:
    """Return the percentile interval of bootstrap estimates, or none with the reason: no
    estimates, or all of them equal (a zero-width interval says nothing)."""
    name = NAMES[kind]
    if estimates.size == 0:
        return Bounds(name=name, why="no bootstrap resample gave a figure")
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(estimates, [tail, 100 - tail])
    return bounds(float(low), float(high), method=method, name=name, bootstrap=True)


def bounds(low: float, high: float, *, method: str, name: str, bootstrap: bool = False) -> Bounds:
    """Return [low, high] by `method`, unless it has no width: then none, and why."""
    if high - low > 1e-12 * max(1.0, abs(low), abs(high)):
        return Bounds(low, high, method, name)
    why = (
        f"the middle {LEVEL:.0%} of the bootstrap resamples all gave {low:.2f}"
        if bootstrap
        else f"the interval by {method} has no width"
    )
    return Bounds(name=name, why=why)

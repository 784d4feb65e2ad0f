"""Exact permutation p-values and Fisher intervals (ioleval.inference) against hand figures,
brute-force enumeration written here, and scipy's own permutation test."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats as sps

from ioleval.inference import (
    EXACT_UP_TO,
    Bounds,
    bounds,
    correlation_tests,
    fisher_interval,
    kendall_tau,
    orderings,
    percentile_bounds,
    reasons,
    spearman_rho,
)

Z = 1.959963984540054  # the normal's 97.5% quantile


def brute_force_p(x, y, coefficient) -> float:
    """Return the share of orderings of y whose |coefficient| is at least the observed one,
    every ordering computed by scipy (slow, independent of the module)."""
    observed = abs(coefficient(x, y))
    hits = total = 0
    for order in itertools.permutations(range(len(y))):
        total += 1
        hits += abs(coefficient(x, [y[i] for i in order])) >= observed - 1e-12
    return hits / total


def spearman(x, y):
    return sps.spearmanr(x, y).statistic


def kendall(x, y):
    return sps.kendalltau(x, y).statistic


def pearson(x, y):
    return sps.pearsonr(x, y).statistic


# --- exact p-values -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "expected"),
    [(4, 2 / 24), (5, 2 / 120), (7, 2 / 5040)],
)
def test_perfect_agreement_has_p_two_over_n_factorial(n, expected):
    # only the observed ordering and its reverse are as extreme: p = 2 / n!
    x = list(range(n))
    y = [v**2 + 1 for v in x]  # same order, not a line
    got = correlation_tests(x, y)
    assert got["spearman"].statistic == pytest.approx(1.0)
    assert got["spearman"].p == pytest.approx(expected, rel=1e-12)
    assert got["kendall"].p == pytest.approx(expected, rel=1e-12)
    assert got["spearman"].method == f"exact permutation, all {math.factorial(n):,} orderings"
    # scipy's approximation gives far smaller p-values there (the 0.0 at n = 5)
    assert sps.spearmanr(x, y).pvalue < expected / 10


def test_paper_setting_n5_is_two_over_120():
    got = correlation_tests([0.1, 0.3, 0.5, 0.52, 0.71], [2.5, 40, 55.5, 61, 79.5])
    assert got["spearman"].p == pytest.approx(0.016667, abs=1e-6)
    assert got["kendall"].p == pytest.approx(2 / 120)


@pytest.mark.parametrize("seed", range(6))
def test_exact_p_values_are_brute_force_enumeration_with_ties(seed):
    rng = np.random.default_rng(seed)
    n = 5 if seed % 2 else 6
    x = rng.integers(0, 4, size=n).astype(float)  # few values: ties on both sides
    y = np.round(x + rng.normal(0, 1.5, size=n))
    assert np.ptp(x) > 0 and np.ptp(y) > 0
    assert len(set(x)) < n  # ties
    got = correlation_tests(x, y)
    for kind, coefficient in [("spearman", spearman), ("kendall", kendall), ("pearson", pearson)]:
        assert got[kind].p == pytest.approx(brute_force_p(x, list(y), coefficient), abs=1e-12)
        assert got[kind].statistic == pytest.approx(coefficient(x, y), abs=1e-12)


def test_exact_p_values_are_scipys_permutation_test_at_n7():
    rng = np.random.default_rng(4)
    x = rng.normal(size=7)
    y = np.round(x + rng.normal(size=7))
    assert len(set(y)) < 7  # ties in y
    got = correlation_tests(x, y)
    for kind, coefficient in [("spearman", spearman), ("kendall", kendall), ("pearson", pearson)]:
        expected = sps.permutation_test(
            (y,),
            lambda v, c=coefficient: abs(c(x, v)),
            permutation_type="pairings",
            n_resamples=np.inf,
            alternative="greater",
        )
        assert got[kind].p == pytest.approx(expected.pvalue, rel=1e-12)


def test_kendall_exact_without_ties_is_scipys_exact():
    rng = np.random.default_rng(8)
    x, y = rng.normal(size=9), rng.normal(size=9)
    got = correlation_tests(x, y, ["kendall"])
    assert got["kendall"].p == pytest.approx(sps.kendalltau(x, y, method="exact").pvalue)


def test_every_ordering_once():
    rows = np.concatenate(list(orderings(9)))
    assert rows.shape == (math.factorial(9), 9)
    assert len({tuple(r) for r in rows}) == math.factorial(9)


# --- large samples ------------------------------------------------------------------------------


def test_above_ten_pairs_the_large_sample_methods_name_themselves():
    rng = np.random.default_rng(1)
    x = rng.normal(size=EXACT_UP_TO + 2)
    y = x + rng.normal(size=EXACT_UP_TO + 2)
    got = correlation_tests(x, y)
    assert got["spearman"].p == pytest.approx(sps.spearmanr(x, y).pvalue)
    assert got["spearman"].method == "t approximation, 10 df"
    assert got["pearson"].p == pytest.approx(sps.pearsonr(x, y).pvalue)
    assert got["pearson"].method == "t test, 10 df (normal pairs)"
    assert got["kendall"].p == pytest.approx(sps.kendalltau(x, y, method="exact").pvalue)
    assert got["kendall"].method == "exact null distribution (no ties)"
    tied = correlation_tests(np.round(x), y, ["kendall"])["kendall"]
    assert tied.p == pytest.approx(sps.kendalltau(np.round(x), y, method="asymptotic").pvalue)
    assert tied.method == "normal approximation, tie-corrected"


def test_statistics_are_scipys_and_exactly_one_at_full_agreement():
    rng = np.random.default_rng(3)
    for n in (3, 7, 40, 1200):  # 1200: Kendall's tau from scipy (too many pairs to list)
        x = np.round(rng.normal(size=n) * 3)
        y = np.round(x + rng.normal(size=n) * 3)
        assert spearman_rho(x, y) == pytest.approx(sps.spearmanr(x, y).statistic, abs=1e-12)
        assert kendall_tau(x, y) == pytest.approx(sps.kendalltau(x, y).statistic, abs=1e-12)
    x = [0.1, 0.3, 0.5, 0.52, 0.71]
    y = [2.5, 40, 55.5, 61, 79.5]
    assert sps.spearmanr(x, y).statistic != 1.0  # 0.9999999999999999
    assert spearman_rho(x, y) == 1.0 and kendall_tau(x, y) == 1.0
    assert spearman_rho(x, y[::-1]) == -1.0 and kendall_tau(x, y[::-1]) == -1.0


def test_constant_or_short_columns_are_refused():
    with pytest.raises(ValueError):
        correlation_tests([1, 1, 1], [1, 2, 3])
    with pytest.raises(ValueError):
        correlation_tests([1, 2], [1, 2])


# --- intervals --------------------------------------------------------------------------------


def test_fisher_interval_of_pearson_is_the_hand_formula():
    r, n = 0.994, 5
    got = fisher_interval("pearson", r, n)
    half = Z / math.sqrt(n - 3)
    assert got.interval == pytest.approx(
        (math.tanh(math.atanh(r) - half), math.tanh(math.atanh(r) + half)), abs=1e-12
    )
    # by hand: atanh(0.994) = 2.9031, half width 1.96 / sqrt(2) = 1.3859,
    # tanh(1.5172) = 0.9082, tanh(4.2890) = 0.9996
    assert got.interval == pytest.approx((0.9082, 0.9996), abs=1e-4)
    assert got.method == "Fisher z"


def test_fisher_interval_of_ranks_uses_their_standard_errors():
    rho, tau, n = 0.6, 0.4, 9
    se_rho = math.sqrt((1 + rho**2 / 2) / (n - 3))  # Bonett and Wright (2000)
    se_tau = math.sqrt(0.437 / (n - 4))  # Fieller, Hartley and Pearson (1957)
    got = fisher_interval("spearman", rho, n)
    assert got.interval == pytest.approx(
        (math.tanh(math.atanh(rho) - Z * se_rho), math.tanh(math.atanh(rho) + Z * se_rho))
    )
    assert got.method == "Fisher z, Bonett-Wright SE"
    got = fisher_interval("kendall", tau, n)
    assert got.interval == pytest.approx(
        (math.tanh(math.atanh(tau) - Z * se_tau), math.tanh(math.atanh(tau) + Z * se_tau))
    )
    assert got.method == "Fisher z, Fieller SE"


def test_no_fisher_interval_at_one_or_with_too_few_pairs():
    got = fisher_interval("spearman", 1.0, 5)
    assert got.interval is None
    assert got.reason == "No interval for Spearman rho: at exactly +1, Fisher's z is infinite."
    assert fisher_interval("pearson", -1.0, 7).reason.startswith("No interval for Pearson r")
    assert fisher_interval("pearson", 0.5, 3).reason == (
        "No interval for Pearson r: Fisher's interval needs at least 4 pairs."
    )
    assert fisher_interval("kendall", 0.5, 4).interval is None
    assert fisher_interval("kendall", 0.5, 5).interval is not None


def test_a_degenerate_bootstrap_gives_no_interval_and_says_why():
    estimates = np.array([1.0] * 980 + [0.9] * 20)  # the middle 95% all 1
    got = percentile_bounds(estimates, kind="spearman", method="bootstrap")
    assert got.interval is None
    assert got.reason == (
        "No interval for Spearman rho: the middle 95% of the bootstrap resamples all gave 1.00."
    )
    spread = percentile_bounds(np.linspace(0, 1, 1001), kind="kendall", method="bootstrap")
    assert spread.interval == pytest.approx((0.025, 0.975))
    assert spread.method == "bootstrap"
    empty = percentile_bounds(np.array([]), kind="kendall", method="bootstrap")
    assert empty.interval is None and "no bootstrap resample" in empty.reason


# --- refusals, boundaries, and what the sentences name -----------------------------------------


def test_refusals_say_what_is_wrong():
    with pytest.raises(ValueError, match=r"^correlation tests need at least 3 pairs, got 2 and 2$"):
        correlation_tests([1, 2], [1, 2])
    with pytest.raises(ValueError, match=r"^correlation tests need two columns that vary$"):
        correlation_tests([1, 1, 1], [1, 2, 3])
    with pytest.raises(ValueError, match=r"^unknown coefficients: \['rho', 'tau'\]$"):
        correlation_tests([1, 2, 3], [1, 3, 2], ("tau", "spearman", "rho"))


def test_ten_pairs_are_still_exact():
    x = [0.1 * i + math.sin(i) for i in range(10)]
    got = correlation_tests(x, list(range(10)), ("spearman",))["spearman"]
    assert got.method == "exact permutation, all 3,628,800 orderings"
    assert got.p == pytest.approx(brute_force_p_spearman_10(x))


def brute_force_p_spearman_10(x) -> float:
    """Spearman's exact p over the 10! orderings of 0..9 against x: rho depends only on the
    sum of rank products, so count the orderings by that sum (a dynamic programme over
    positions and used values would do; here numpy over all permutations in chunks)."""
    ranks = sps.rankdata(x).astype(np.int64)  # x has no ties
    # twice (sum of rank products - its mean n (n + 1)^2 / 4 = 302.5), in integers
    observed = abs(2 * int(ranks @ np.arange(1, 11)) - 605)
    hits = 0
    perms = np.array(list(itertools.permutations(range(1, 9))), dtype=np.int64)  # 8! rows
    for first, second in itertools.permutations(range(1, 11), 2):
        rest = np.array([v for v in range(1, 11) if v not in (first, second)], dtype=np.int64)
        tail = rest[perms - 1] @ ranks[2:]
        total = first * ranks[0] + second * ranks[1] + tail
        hits += int((np.abs(2 * total - 605) >= observed).sum())
    return hits / math.factorial(10)


def test_above_ten_pairs_rho_and_tau_are_exactly_one_at_full_agreement():
    # 29 pairs rising together: scipy gives 0.9999999999999998 for both; the integer counts
    # give exactly 1.
    x = [0.1 * i for i in range(29)]
    y = [math.exp(0.3 * i) for i in range(29)]
    assert sps.spearmanr(x, y).statistic != 1.0 and sps.kendalltau(x, y).statistic != 1.0
    got = correlation_tests(x, y, ("spearman", "kendall"))
    assert (got["spearman"].statistic, got["kendall"].statistic) == (1.0, 1.0)


def test_kendall_is_exact_up_to_33_untied_pairs():
    rng = np.random.default_rng(33)
    x, y = rng.permutation(33).astype(float), rng.permutation(33).astype(float)
    got = correlation_tests(x, y, ("kendall",))["kendall"]
    assert got.method == "exact null distribution (no ties)"
    assert got.p == pytest.approx(sps.kendalltau(x, y, method="exact").pvalue)


def exact_pearson_p(xs: list[str], ys: list[str]) -> Fraction:
    """Pearson's exact permutation p in rational arithmetic on the decimals as written: no
    rounding anywhere, so orderings tie exactly when they tie."""
    x, y = [Fraction(s) for s in xs], [Fraction(s) for s in ys]
    mx, my = sum(x) / len(x), sum(y) / len(y)
    xc, yc = [a - mx for a in x], [b - my for b in y]
    observed = abs(sum(a * b for a, b in zip(xc, yc, strict=True)))
    hits = sum(
        abs(sum(a * b for a, b in zip(xc, order, strict=True))) >= observed
        for order in itertools.permutations(yc)
    )
    return Fraction(hits, math.factorial(len(x)))


@pytest.mark.parametrize(
    ("xs", "ys", "expected"),
    [
        # Ties that rounding hides: scipy's permutation test gives 2/3 here.
        (["1000.1", "1000.9", "1000.3", "1000.4", "1000.8"], ["40", "50", "0", "80", "50"], "7/10"),
        (["3", "0", "0", "8", "9", "6"], ["49", "35", "63", "56", "0", "63"], "91/180"),
        (["10000.03", "10000.18", "10000.17", "10000.47"], ["0", "50", "20", "30"], None),
    ],
)
def test_exact_pearson_p_counts_the_orderings_that_tie_in_exact_arithmetic(xs, ys, expected):
    exact = exact_pearson_p(xs, ys)
    if expected is not None:
        assert exact == Fraction(expected)
    got = correlation_tests([float(v) for v in xs], [float(v) for v in ys], ("pearson",))
    assert got["pearson"].p == pytest.approx(float(exact), abs=1e-12)


def test_reasons_name_every_coefficient_that_shares_one():
    why = "at exactly +1, Fisher's z is infinite"
    missing = [Bounds(name=n, why=why) for n in ("Spearman rho", "Kendall tau", "Pearson r")]
    assert reasons([*missing, Bounds(0.1, 0.2, "Fisher z", "Pearson r")]) == [
        "No interval for Spearman rho, Kendall tau or Pearson r: at exactly +1, Fisher's z is "
        "infinite."
    ]


def test_intervals_keep_their_names_and_say_why_they_are_missing():
    assert fisher_interval("pearson", 0.5, 10).name == "Pearson r"
    # So close to 1 that tanh gives 1 at both ends: no width.
    assert fisher_interval("pearson", 1 - 1e-15, 10).reason == (
        "No interval for Pearson r: the interval by Fisher z has no width."
    )
    assert percentile_bounds(np.array([]), kind="kendall", method="bootstrap").reason == (
        "No interval for Kendall tau: no bootstrap resample gave a figure."
    )


@pytest.mark.parametrize(
    ("low", "high", "given"),
    [
        (0.5, 0.5, False),
        (0.0, 1e-12, False),  # no wider than 1e-12 of a figure below 1
        (0.0, 1e-13, False),
        (0.5, 0.5 + 1.5e-12, True),
        (1000.0, 1000.0 + 1e-10, False),  # 1e-12 relative: 1e-9 around 1000
    ],
)
def test_an_interval_needs_a_width_above_a_relative_tolerance(low, high, given):
    got = bounds(low, high, method="Fisher z", name="Pearson r")
    if given:
        assert got == Bounds(low, high, "Fisher z", "Pearson r")
    else:
        assert got == Bounds(name="Pearson r", why="the interval by Fisher z has no width")


# --- the IOL-AI paper's five-system table -------------------------------------------------------


def test_golden_five_systems_rho_one_and_r_0994():
    # Five systems in the same order under both, Pearson r = 0.994 as the paper prints it
    # (IOL-AI: automatic metrics against the jury, rho = 1.00, r = 0.99).
    automatic = [10.0, 20.0, 30.0, 40.0, 50.0]
    jury = [22.0, 29.0, 41.0, 52.0, 66.0]
    r = sps.pearsonr(automatic, jury).statistic
    assert round(r, 3) == 0.994
    got = correlation_tests(automatic, jury)
    assert got["spearman"].statistic == 1.0
    assert got["spearman"].p == pytest.approx(2 / 120)  # exact: 0.0167, not 0.0
    assert got["spearman"].method == "exact permutation, all 120 orderings"
    assert got["pearson"].statistic == pytest.approx(r)
    interval = fisher_interval("pearson", got["pearson"].statistic, 5)
    half = Z / math.sqrt(2)
    assert interval.interval == pytest.approx(
        (math.tanh(math.atanh(r) - half), math.tanh(math.atanh(r) + half)), abs=1e-12
    )
    assert interval.interval == pytest.approx((0.914, 0.9996), abs=1e-3)
    # rho = 1: no interval, and the reason
    assert fisher_interval("spearman", 1.0, 5).interval is None


def test_kendall_is_exactly_one_at_full_agreement_with_ties_up_to_1000_pairs():
    # 1,000 marks on a 0-6 scale (many ties) against a rescaling of themselves: tau-b = 1,
    # which scipy gives as 0.9999999999999998 here; from the integer pair counts it is 1.
    rng = np.random.default_rng(0)
    for _ in range(3):
        x = rng.integers(0, 7, 1000).astype(float)
    assert sps.kendalltau(x, 2 * x + 1).statistic != 1.0
    assert kendall_tau(x, 2 * x + 1) == 1.0

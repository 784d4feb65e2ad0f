"""Correlations against scipy, their bootstrap intervals, ranges, ranks, criterion difficulty."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats as sps

from grading.review.stats import (
    Columns,
    competition_ranks,
    correlate,
    correlations,
    criterion_difficulty,
    spread,
)
from grading.review.stats.correlation import _Pairs

SYSTEMS = ("system", "systems")
NAMES = ("automatic scores", "jury totals")


# --- figures against scipy --------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
def test_figures_and_p_values_are_scipys(seed):
    rng = np.random.default_rng(seed)
    x = np.round(rng.uniform(0, 20, size=12) * 2) / 2  # half points: ties happen
    y = np.round(x + rng.normal(0, 4, size=12))
    got = correlate(x, y, resamples=0)
    assert got.n == 12
    for figure, p_value, expected in [
        (got.spearman, got.spearman_p, sps.spearmanr(x, y)),
        (got.pearson, got.pearson_p, sps.pearsonr(x, y)),
        (got.kendall, got.kendall_p, sps.kendalltau(x, y)),
    ]:
        assert figure == pytest.approx(expected.statistic, abs=1e-12)
        assert p_value == pytest.approx(expected.pvalue, rel=1e-12, abs=1e-300)


def test_paper_like_five_systems_give_exact_p_and_fisher_interval():
    auto = [0.71, 0.52, 0.50, 0.31, 0.10]
    jury = [79.5, 61.0, 55.5, 40.0, 2.5]
    got = correlate(auto, jury, names=NAMES, items=SYSTEMS)
    assert got.n == 5
    assert got.spearman == 1.0 and got.kendall == 1.0
    # exact: only this ordering and its reverse are as extreme, 2 of 5! = 120
    assert got.spearman_p == pytest.approx(2 / 120) and got.kendall_p == pytest.approx(2 / 120)
    assert sps.spearmanr(auto, jury).pvalue < 1e-20  # what the t approximation said
    assert got.spearman_p_method == "exact permutation, all 120 orderings"
    assert got.pearson_p_method == got.kendall_p_method == got.spearman_p_method
    # Pearson: Fisher's z, by hand
    r = sps.pearsonr(auto, jury).statistic
    half = 1.959963984540054 / math.sqrt(5 - 3)
    assert got.pearson_ci == pytest.approx(
        (math.tanh(math.atanh(r) - half), math.tanh(math.atanh(r) + half)), abs=1e-12
    )
    assert got.pearson_ci_method == "Fisher z"
    # rho = tau = 1: no interval rather than "1.00 to 1.00", and the note says why
    assert got.spearman_ci is None and got.kendall_ci is None
    assert got.spearman_ci_method is None
    assert got.note == (
        "No interval for Spearman rho or Kendall tau: at exactly +1, Fisher's z is infinite."
    )
    assert got.resamples == 0  # no bootstrap of five pairs


# The IOL-AI paper's table: automatic metrics rank its five systems exactly as the jury does,
# rho = 1.00, r = 0.99. Five (automatic, jury) pairs in one order with r = 0.994.
GOLDEN_AUTO = [10.0, 20.0, 30.0, 40.0, 50.0]
GOLDEN_JURY = [22.0, 29.0, 41.0, 52.0, 66.0]


def test_golden_paper_table_five_systems():
    got = correlate(GOLDEN_AUTO, GOLDEN_JURY, names=NAMES, items=SYSTEMS)
    assert got.n == 5
    assert got.spearman == 1.0
    assert got.spearman_p == pytest.approx(2 / 120)  # 0.0167, exact; scipy's t: 1.4e-24
    assert got.spearman_p_method == "exact permutation, all 120 orderings"
    assert round(got.pearson, 3) == 0.994
    r = sps.pearsonr(GOLDEN_AUTO, GOLDEN_JURY).statistic
    half = 1.959963984540054 / math.sqrt(5 - 3)  # Fisher: z = atanh(r), SE 1/sqrt(n - 3)
    assert got.pearson_ci == pytest.approx(
        (math.tanh(math.atanh(r) - half), math.tanh(math.atanh(r) + half)), abs=1e-12
    )
    assert got.pearson_ci == pytest.approx((0.914, 0.9996), abs=1e-3)
    assert got.pearson_ci_method == "Fisher z"
    assert got.spearman_ci is None  # rather than "1.00 to 1.00"


@pytest.mark.parametrize(("n", "p"), [(4, 2 / 24), (5, 2 / 120), (7, 2 / 5040)])
def test_small_samples_get_exact_p_values(n, p):
    x = np.arange(n, dtype=float)
    got = correlate(x, x**3 + x, resamples=0)  # the same order, not a line
    assert got.spearman == 1.0
    assert got.spearman_p == pytest.approx(p, rel=1e-12)
    assert got.kendall_p == pytest.approx(p, rel=1e-12)


def test_small_sample_with_ties_is_scipys_exact_permutation_test():
    x = np.array([1.0, 2, 2, 3, 5, 6])
    y = np.array([2.0, 1, 3, 3, 5, 4])
    got = correlate(x, y, resamples=0)
    for figure, p_value, statistic in [
        (got.spearman, got.spearman_p, lambda v: sps.spearmanr(x, v).statistic),
        (got.kendall, got.kendall_p, lambda v: sps.kendalltau(x, v).statistic),
        (got.pearson, got.pearson_p, lambda v: sps.pearsonr(x, v).statistic),
    ]:
        expected = sps.permutation_test(
            (y,),
            lambda v, s=statistic: abs(s(v)),
            permutation_type="pairings",
            n_resamples=np.inf,
            alternative="greater",
        )
        assert figure == pytest.approx(statistic(y), abs=1e-12)
        assert p_value == pytest.approx(expected.pvalue, rel=1e-12)
    # rank intervals at this n: Fisher's z with Bonett-Wright's and Fieller's errors
    rho, tau = got.spearman, got.kendall
    z = 1.959963984540054
    se_rho, se_tau = math.sqrt((1 + rho**2 / 2) / 3), math.sqrt(0.437 / 2)
    assert got.spearman_ci == pytest.approx(
        (math.tanh(math.atanh(rho) - z * se_rho), math.tanh(math.atanh(rho) + z * se_rho))
    )
    assert got.kendall_ci == pytest.approx(
        (math.tanh(math.atanh(tau) - z * se_tau), math.tanh(math.atanh(tau) + z * se_tau))
    )
    assert got.spearman_ci_method == "Fisher z, Bonett-Wright SE"
    assert got.kendall_ci_method == "Fisher z, Fieller SE"


def test_a_degenerate_bootstrap_gives_no_interval_and_says_why():
    x = np.arange(12, dtype=float)
    got = correlate(x, np.exp(x / 3), names=NAMES, items=SYSTEMS, resamples=2000)
    assert got.spearman == 1.0 and got.resamples == 2000
    # every resample keeps the order: a zero-width interval, so none
    assert got.spearman_ci is None and got.kendall_ci is None
    assert got.spearman_p_method == "t approximation, 10 df"
    assert got.note == (
        "No interval for Spearman rho or Kendall tau: the middle 95% of the bootstrap "
        "resamples all gave 1.00."
    )
    assert got.pearson_ci is not None and got.pearson_ci[0] < got.pearson < got.pearson_ci[1]


def test_decimals_are_accepted():
    got = correlate([Decimal("1.5"), Decimal("2"), Decimal("4")], [1, 3, 2], resamples=0)
    assert got.pearson == pytest.approx(sps.pearsonr([1.5, 2, 4], [1, 3, 2]).statistic)


# --- degenerate cases -------------------------------------------------------------------------


def test_missing_pairs_are_dropped_and_counted():
    got = correlate(
        [1, 2, None, 4, 5, float("nan")],
        [2, 1, 3, 4, None, 6],
        names=NAMES,
        items=SYSTEMS,
        resamples=0,
    )
    assert got.n == 3
    assert got.dropped == 3
    assert got.spearman == pytest.approx(sps.spearmanr([1, 2, 4], [2, 1, 4]).statistic)
    assert got.note == (
        "3 systems without both figures left out. "
        "No interval for Spearman rho or Pearson r: Fisher's interval needs at least 4 pairs. "
        "No interval for Kendall tau: Fisher's interval needs at least 5 pairs."
    )


@pytest.mark.parametrize(
    ("x", "y", "note"),
    [
        ([], [], "No systems have both figures; a correlation needs at least 3."),
        ([1], [2], "Only 1 system has both figures; a correlation needs at least 3."),
        (
            [1, 2, None],
            [1, 2, 3],
            "1 system without both figures left out. "
            "Only 2 systems have both figures; a correlation needs at least 3.",
        ),
    ],
)
def test_fewer_than_three_pairs_give_a_sentence(x, y, note):
    got = correlate(x, y, names=NAMES, items=SYSTEMS)
    assert got.spearman is None and got.pearson is None and got.kendall is None
    assert got.spearman_ci is None and got.pearson_p is None
    assert got.note == note


def test_constant_column_gives_a_sentence():
    got = correlate([0.5, 0.6, 0.7, 0.8], [40, 40, 40, 40], names=NAMES)
    assert got.n == 4
    assert got.spearman is None and got.pearson is None and got.kendall is None
    assert got.note == "The jury totals are all 40.0, so they cannot be correlated with anything."


def test_both_columns_constant_say_both():
    got = correlate([1, 1, 1], [2, 2, 2], names=NAMES)
    assert got.note == (
        "The automatic scores are all 1.0, so they cannot be correlated with anything. "
        "The jury totals are all 2.0, so they cannot be correlated with anything."
    )


def test_ties_are_noted_and_counted():
    got = correlate([1, 2, 2, 3, 4], [10, 20, 30, 30, 30], names=NAMES, resamples=0)
    assert got.tied == (2, 3)
    assert got.note == (
        "The automatic scores have 2 tied values; Spearman and Kendall allow for ties. "
        "The jury totals have 3 tied values; Spearman and Kendall allow for ties."
    )
    assert got.kendall == pytest.approx(sps.kendalltau([1, 2, 2, 3, 4], [10, 20, 30, 30, 30])[0])


def test_unequal_lengths_are_a_programming_error():
    with pytest.raises(ValueError, match="paired"):
        correlate([1, 2, 3], [1, 2])


# --- bootstrap --------------------------------------------------------------------------------


def test_each_resample_figure_is_scipys_on_the_resampled_pairs():
    rng = np.random.default_rng(7)
    x = np.round(rng.normal(size=9) * 2) / 2
    y = np.round(x + rng.normal(size=9))
    draws = rng.integers(0, 9, size=(300, 9))
    weights = np.stack([np.bincount(row, minlength=9) for row in draws]).astype(float)
    ok, spearman, kendall = _Pairs(x, y).figures(weights)
    expected = [
        (sps.spearmanr(x[r], y[r])[0], sps.kendalltau(x[r], y[r])[0])
        for r, good in zip(draws, ok, strict=True)
        if good
    ]
    constant = [np.ptp(x[r]) == 0 or np.ptp(y[r]) == 0 for r in draws]
    assert list(~ok) == constant
    np.testing.assert_allclose(np.column_stack([spearman, kendall]), expected, atol=1e-12)


def test_bootstrap_is_deterministic_for_a_seed():
    x, y = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5], [2, 7, 1, 8, 2, 8, 1, 8, 2, 8, 4]
    first = correlate(x, y, seed=11)
    assert correlate(x, y, seed=11) == first
    other = correlate(x, y, seed=12)
    assert other.spearman == first.spearman
    assert other.spearman_ci != first.spearman_ci
    assert first.spearman_ci_method == "percentile bootstrap of the pairs, 10,000 resamples"


def test_clear_correlation_interval_contains_the_estimate_and_excludes_zero():
    rng = np.random.default_rng(3)
    x = rng.uniform(0, 100, size=30)
    y = 0.8 * x + rng.normal(0, 10, size=30)
    got = correlate(x, y)
    for estimate, (low, high) in [
        (got.spearman, got.spearman_ci),
        (got.pearson, got.pearson_ci),
        (got.kendall, got.kendall_ci),
    ]:
        assert 0 < low <= estimate <= high <= 1
    assert got.skipped == 0
    assert got.resamples == 10_000
    assert got.pearson_ci_method == "Fisher z"
    assert got.kendall_ci_method == "percentile bootstrap of the pairs, 10,000 resamples"


def test_no_resamples_no_bootstrap_interval():
    x = np.arange(12.0)
    got = correlate(x, [1, 3, 2, 4, 6, 5, 8, 7, 9, 12, 10, 11], resamples=0)
    assert got.spearman_ci is None and got.kendall_ci is None
    assert got.spearman is not None
    assert got.pearson_ci is not None  # Fisher's needs no resamples
    # up to ten pairs the rank intervals are Fisher's, resamples or not
    small = correlate([1, 2, 3, 4, 5], [1, 3, 2, 4, 5], resamples=0)
    assert small.spearman_ci is not None and small.kendall_ci is not None


def test_many_constant_resamples_are_said():
    got = correlate([1] * 10 + [2], range(11), names=NAMES)
    # x is constant whenever point 11 is not drawn: (10/11)^11 of them
    assert got.skipped == pytest.approx(10_000 * (10 / 11) ** 11, rel=0.1)
    assert f"{got.skipped:,} of 10,000 bootstrap resamples had a constant column" in got.note


# --- spread and ranks -------------------------------------------------------------------------


def test_spread_is_max_minus_min_of_present_values():
    assert spread([2.5, 79.5, None, 40]) == 77.0
    assert spread([Decimal("60.5"), Decimal("0")]) == 60.5
    assert spread([3]) is None
    assert spread([None, float("nan"), 1]) is None
    assert spread([]) is None


def test_competition_ranks_share_the_best_rank():
    assert competition_ranks([10, 8, 8, 5]) == [1, 2, 2, 4]
    assert competition_ranks([5, 8, 10, 8]) == [4, 2, 1, 2]
    assert competition_ranks([7, None, 7]) == [1, None, 1]
    assert competition_ranks([]) == []


# --- criterion difficulty ---------------------------------------------------------------------


def test_criterion_difficulty_on_codes_in_common():
    model = {"1a": 0.9, "1b": 0.2, "2a": 0.5, "2b": 0.8, "3": 0.1, "models_only": 0.5}
    human = {"1a": 0.7, "1b": 0.6, "2a": 0.5, "2b": 0.3, "3": 0.2, "humans_only": 0.4}
    got = criterion_difficulty(model, human, resamples=200)
    assert got.codes == ("1a", "1b", "2a", "2b", "3")
    assert got.n == 5
    codes = got.codes
    x, y = [model[c] for c in codes], [human[c] for c in codes]
    assert got.spearman == pytest.approx(sps.spearmanr(x, y).statistic)
    exact = sps.permutation_test(
        (y,),
        lambda v: abs(sps.spearmanr(x, v).statistic),
        permutation_type="pairings",
        n_resamples=np.inf,
        alternative="greater",
    )
    assert got.spearman_p == pytest.approx(exact.pvalue)  # 42 of 120 orderings: 0.35
    assert got.spearman_p_method == "exact permutation, all 120 orderings"
    assert got.spearman_ci is not None
    assert got.spearman_ci_method == "Fisher z, Bonett-Wright SE"
    # 1b: humans got 0.6, models 0.2 -> harder for models; 2b the reverse
    assert [g.code for g in got.harder_for_models] == ["1b"]
    assert got.harder_for_models[0].difference == pytest.approx(0.4)
    assert [g.code for g in got.harder_for_humans] == ["2b"]
    assert got.margin == 0.25
    assert got.note is None


def test_harder_lists_are_sorted_by_gap_and_the_margin_is_strict():
    model = {"a": 0.1, "b": 0.0, "c": 0.5, "d": 1.0, "e": 0.9}
    human = {"a": 0.5, "b": 0.9, "c": 0.75, "d": 0.6, "e": 0.2}
    got = criterion_difficulty(model, human, resamples=0)
    assert [g.code for g in got.harder_for_models] == ["b", "a"]  # c is exactly 0.25 apart
    assert [g.code for g in got.harder_for_humans] == ["e", "d"]


@pytest.mark.parametrize(
    ("model", "human", "note"),
    [
        (
            {"1a": 0.5},
            {"2a": 0.5},
            "No rubric codes in common between the systems' and the contestants' points; "
            "a correlation needs at least 3.",
        ),
        (
            {"1a": 0.5, "1b": 0.1},
            {"1a": 0.6, "1b": 0.2},
            "Only 2 rubric codes in common between the systems' and the contestants' points; "
            "a correlation needs at least 3.",
        ),
    ],
)
def test_criterion_difficulty_with_too_few_codes(model, human, note):
    got = criterion_difficulty(model, human)
    assert got.spearman is None and got.spearman_p is None
    assert got.note == note


def test_criterion_difficulty_ignores_missing_fractions():
    got = criterion_difficulty(
        {"a": 0.1, "b": None, "c": 0.5, "d": 0.7}, {"a": 0.2, "b": 0.3, "c": 0.4, "d": 0.9}
    )
    assert got.codes == ("a", "c", "d")
    assert not math.isnan(got.spearman)


def test_criterion_difficulty_compares_fractions_exactly():
    # Each criterion's shares on three papers (points / maximum), and their means: a and b
    # are both 7/30, c and d both 2/5, but summed as floats they differ.
    papers = {
        "a": ["0.1", "0.2", "0.4"],
        "b": ["0.1", "0.3", "0.3"],
        "c": ["0.1", "0.4", "0.7"],
        "d": ["0.2", "0.4", "0.6"],
        "e": ["0.9", "0.9", "0.6"],
        "f": ["0", "0", "0.3"],
    }
    exact = {c: sum(Fraction(v) for v in vs) / 3 for c, vs in papers.items()}
    floats = {c: sum(float(v) for v in vs) / 3 for c, vs in papers.items()}
    assert exact["a"] == exact["b"] == Fraction(7, 30) and exact["c"] == exact["d"]
    assert floats["a"] != floats["b"] and floats["c"] != floats["d"]  # the old ties lost
    human = {
        "a": Fraction(1, 2),
        "b": Fraction(3, 10),
        "c": Fraction(3, 5),
        "d": Fraction(1, 5),
        "e": Fraction(4, 5),
        "f": Fraction(1, 10),
    }
    got = criterion_difficulty(exact, human, resamples=0)
    # by hand: models' ranks f 1, a = b 2.5, c = d 4.5, e 6; contestants' in a..f order
    # 4, 3, 5, 2, 6, 1
    by_hand = sps.spearmanr([2.5, 2.5, 4.5, 4.5, 6, 1], [4, 3, 5, 2, 6, 1]).statistic
    assert got.spearman == pytest.approx(by_hand, abs=1e-12)
    codes = got.codes
    on_fractions = sps.spearmanr(
        [float(exact[c]) for c in codes], [float(human[c]) for c in codes]
    ).statistic
    assert got.spearman == pytest.approx(on_fractions, abs=1e-12)
    assert (
        got.note == "The models' fractions have 4 tied values; Spearman and Kendall allow for ties."
    )
    # the float means give another rho, and no ties
    before = criterion_difficulty(floats, human, resamples=0)
    assert before.spearman != pytest.approx(by_hand)


def test_criterion_difficulty_margin_is_exact():
    # g: the models got 3/10, the contestants 11/20: exactly a quarter apart, not more
    model = {"g": Fraction(3, 10), "h": Fraction(1, 10), "i": Fraction(1, 2)}
    human = {"g": Fraction(11, 20), "h": Fraction(2, 5), "i": Decimal("0.4")}
    got = criterion_difficulty(model, human, resamples=0)
    assert [g.code for g in got.harder_for_models] == ["h"]  # 3/10 apart
    assert got.harder_for_models[0].difference == pytest.approx(0.3)
    assert 0.55 - 0.3 > 0.25  # what the floats said of g


def test_criterion_difficulty_keeps_the_order_of_fractions_floats_cannot_tell_apart():
    tiny, tinier = Fraction(1, 10**20), Fraction(1, 10**20 + 1)
    assert float(tiny) == float(tinier) and tinier < tiny
    got = criterion_difficulty(
        {"a": tiny, "b": tinier, "c": Fraction(1, 2)}, {"a": 0.1, "b": 0.2, "c": 0.3}, resamples=0
    )
    # models' order b < a < c, contestants' a < b < c: ranks (2, 1, 3) against (1, 2, 3)
    assert got.spearman == pytest.approx(sps.spearmanr([2, 1, 3], [1, 2, 3]).statistic)
    assert got.note is None or "tied" not in got.note


@pytest.mark.parametrize("ties", [False, True])
def test_resample_figures_are_scipys_at_dashboard_like_size(ties):
    # 60 points: the float32 Kendall product and the ranks from cumulative draws, with and
    # without tied values, against scipy on the resampled pairs themselves.
    rng = np.random.default_rng(17)
    x = rng.uniform(0, 100, size=60)
    y = x + rng.normal(0, 25, size=60)
    if ties:
        x, y = np.round(x / 10), np.round(y / 20)
    draws = rng.integers(0, 60, size=(200, 60))
    weights = np.stack([np.bincount(row, minlength=60) for row in draws]).astype(float)
    ok, spearman, kendall = _Pairs(x, y).figures(weights)
    assert ok.all()
    expected = [(sps.spearmanr(x[r], y[r])[0], sps.kendalltau(x[r], y[r])[0]) for r in draws]
    np.testing.assert_allclose(np.column_stack([spearman, kendall]), expected, atol=1e-12)


def test_correlations_equal_one_call_each():
    rng = np.random.default_rng(2)
    x = rng.uniform(0, 100, size=30)
    columns = [
        Columns(x, x + rng.normal(0, 20, size=30), names=NAMES),
        Columns(x, np.round(x / 25), names=NAMES),  # as many pairs: shared draws
        Columns(x[:12], -x[:12] + rng.normal(0, 5, size=12)),
        Columns([1, 1, 1], [1, 2, 3]),  # constant column: no figures
        Columns([1, None], [2, 3], items=("system", "systems")),
    ]
    got = correlations(columns, resamples=400, seed=9)
    assert got == [
        correlate(c.x, c.y, names=c.names, items=c.items, resamples=400, seed=9) for c in columns
    ]
    assert got[0].spearman_ci and got[2].kendall_ci and got[3].spearman is None


# --- what the parameters reach, the coefficients asked for, edges -------------------------------


def _twelve(seed=1):
    rng = np.random.default_rng(seed)
    x = rng.uniform(0, 1, size=12)
    return x, x + rng.normal(0, 0.3, size=12)


def test_the_defaults_are_10000_resamples_with_seed_2026():
    x, y = _twelve()
    got = correlate(x, y)
    assert got == correlate(x, y, resamples=10_000, seed=2026)
    assert got.resamples == 10_000
    assert got.spearman_ci_method == "percentile bootstrap of the pairs, 10,000 resamples"
    assert got != correlate(x, y, resamples=10_000, seed=2027)
    assert correlations([Columns(x, y)]) == [got]


def test_only_the_coefficients_asked_for_are_given():
    x, y = _twelve()
    spearman = correlate(x, y, kinds=("spearman",))
    assert spearman.pearson is None and spearman.kendall is None and spearman.pearson_ci is None
    assert spearman.spearman_ci is not None and spearman.resamples == 10_000
    kendall = correlate(x, y, kinds=("kendall",))
    assert kendall.spearman is None and kendall.kendall_ci is not None
    # Pearson alone has Fisher's interval: nothing to draw.
    pearson = correlate(x, y, kinds=("pearson",))
    assert pearson.resamples == 0 and pearson.spearman is None and pearson.pearson_ci is not None


def test_ten_pairs_get_fisher_intervals_and_no_bootstrap():
    x, y = _twelve()
    got = correlate(x[:10], y[:10])
    assert got.resamples == 0
    assert got.spearman_ci_method == "Fisher z, Bonett-Wright SE"
    assert got.kendall_ci_method == "Fisher z, Fieller SE"


def test_one_resample_is_drawn_and_gives_no_interval():
    x, y = _twelve()
    got = correlate(x, y, resamples=1)
    assert got.resamples == 1 and got.spearman_ci is None and got.kendall_ci is None
    assert "the middle 95% of the bootstrap resamples all gave" in got.note


def test_left_out_pairs_are_counted_with_too_few_and_with_a_constant_column():
    few = correlate([1, None, 2], [1, 2, 3], names=NAMES, items=SYSTEMS)
    assert (few.n, few.dropped) == (2, 1)
    flat = correlate([1, None, 2, 3, 4], [5, 5, 5, 5, 5], names=NAMES, items=SYSTEMS)
    assert (flat.n, flat.dropped) == (4, 1) and flat.spearman is None
    assert flat.note == (
        "1 system without both figures left out. The jury totals are all 5.0, so they cannot "
        "be correlated with anything."
    )


def test_constant_resamples_are_counted_over_every_block(monkeypatch):
    # 2,000 pairs, one x different from the others: a resample misses it with probability
    # (1 - 1/2000)^2000, about 37%. 300 resamples of 2,000 pairs come in blocks of 125 rows;
    # counted in one block, the skipped resamples are the same.
    import grading.review.stats._common as common

    x = np.zeros(2000)
    x[0] = 1.0
    y = np.arange(2000.0)
    blocks = correlate(x, y, resamples=300, kinds=("kendall",))
    monkeypatch.setattr(common, "BLOCK_CELLS", 10**9)
    whole = correlate(x, y, resamples=300, kinds=("kendall",))
    assert blocks.skipped == whole.skipped
    assert 0.25 * 300 < whole.skipped < 0.5 * 300


def test_criterion_difficulty_defaults_and_the_bootstrap_it_asks_for():
    rng = np.random.default_rng(4)
    codes = [f"C{i:02d}" for i in range(12)]
    model = {c: round(float(v), 3) for c, v in zip(codes, rng.uniform(0, 1, 12), strict=True)}
    human = {c: round(float(v), 3) for c, v in zip(codes, rng.uniform(0, 1, 12), strict=True)}
    got = criterion_difficulty(model, human)
    assert got == criterion_difficulty(model, human, resamples=10_000, seed=2026)
    assert got.spearman_ci_method == "percentile bootstrap of the criteria, 10,000 resamples"
    assert got.spearman_ci == criterion_difficulty(model, human).spearman_ci  # seeded
    other = criterion_difficulty(model, human, resamples=500, seed=7)
    assert other.spearman_ci_method == "percentile bootstrap of the criteria, 500 resamples"
    direct = correlate([model[c] for c in codes], [human[c] for c in codes], resamples=500, seed=7)
    assert other.spearman_ci == direct.spearman_ci
    assert [(g.code, g.model, g.human) for g in got.harder_for_models] == [
        (c, model[c], human[c])
        for c in sorted(codes, key=lambda c: -(Fraction(human[c]) - Fraction(model[c])))
        if Fraction(human[c]) - Fraction(model[c]) > Fraction("0.25")
    ]


def test_criterion_difficulty_notes_only_spearman_and_names_its_columns():
    # Five criteria whose fractions rise in line: every coefficient is +1, and only
    # Spearman's missing interval is said.
    model = {f"C{i}": Fraction(i, 10) for i in range(1, 6)}
    human = {f"C{i}": Fraction(2 * i, 10) for i in range(1, 6)}
    got = criterion_difficulty(model, human)
    assert got.spearman == 1.0
    assert got.note == "No interval for Spearman rho: at exactly +1, Fisher's z is infinite."
    flat = criterion_difficulty(model, dict.fromkeys(model, Fraction(1, 2)))
    assert flat.note == (
        "The contestants' fractions are all 0.5, so they cannot be correlated with anything."
    )
    tied = criterion_difficulty({**model, "C1": Fraction(2, 10)}, human)
    assert tied.note.startswith(
        "The models' fractions have 2 tied values; Spearman and Kendall allow for ties."
    )


def test_a_gap_of_exactly_the_margin_is_harder_for_neither_side():
    model = {"A": Fraction(3, 4), "B": Fraction(1, 4), "C": Fraction(1, 2)}
    human = {"A": Fraction(1, 2), "B": Fraction(1, 2), "C": Fraction(1, 2)}
    got = criterion_difficulty(model, human, resamples=0)
    assert got.harder_for_humans == () and got.harder_for_models == ()
    # A at 0.8 against 0.5: 0.3 more than the margin.
    shifted = criterion_difficulty({**model, "A": Fraction(4, 5)}, human, resamples=0)
    assert [(g.code, g.model, g.human) for g in shifted.harder_for_humans] == [("A", 0.8, 0.5)]
    assert shifted.harder_for_humans[0].difference == pytest.approx(-0.3)

"""Juror agreement: alpha against hand computation, Krippendorff's example and the krippendorff
package; ICC(A,k) and ICC(A,1) against hand computation, a least-squares ANOVA and Shrout &
Fleiss; intervals that resample papers (exact with few, Monte-Carlo error stated otherwise);
discrepant cells."""

from __future__ import annotations

import itertools
import math
from dataclasses import replace
from decimal import Decimal

import krippendorff
import numpy as np
import pytest
from scipy import stats as scipy_stats

from grading.review.stats import (
    DiscrepancyRate,
    Ratings,
    Reliability,
    coincidence_matrix,
    discrepancy_rate,
    icc,
    icc_2k,
    krippendorff_alpha_interval,
    reliabilities,
)
from grading.review.stats._common import (
    bootstrap_interval,
    distinct_resamples,
    exact_counts,
    quantile_mc_error,
)
from grading.review.stats.agreement import _alpha_weighted, _icc_weighted

N = None

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section E: 4 observers,
# 12 units, missing values; interval alpha = 0.849. One row per unit here.
KRIPPENDORFF_2011 = [
    [1, 1, N, 1],
    [2, 2, 3, 2],
    [3, 3, 3, 3],
    [3, 3, 3, 3],
    [2, 2, 2, 2],
    [1, 2, 3, 4],
    [4, 4, 4, 4],
    [1, 1, 2, 1],
    [2, 2, 2, 2],
    [N, 5, 5, 5],
    [N, N, 1, 1],
    [N, N, 3, N],
]

# Shrout & Fleiss (1979), Table 2: 6 targets rated by 4 judges; ICC(2,4) = .62.
SHROUT_FLEISS = [
    [9, 2, 5, 8],
    [6, 1, 3, 2],
    [8, 4, 6, 8],
    [7, 1, 2, 6],
    [10, 5, 6, 9],
    [6, 2, 4, 7],
]


def package_alpha(units) -> float:
    """Return the krippendorff package's interval alpha (it wants raters x units, NaN missing)."""
    width = max(len(u) for u in units)
    data = np.full((len(units), width), np.nan)
    for i, unit in enumerate(units):
        for j, v in enumerate(unit):
            if v is not None:
                data[i, j] = v
    return krippendorff.alpha(reliability_data=data.T, level_of_measurement="interval")


# --- Krippendorff's alpha ---------------------------------------------------------------------


def test_coincidence_matrix_by_hand():
    # unit 1 (m = 3) adds 1/2 per ordered pair: (0,0) twice, (0,1) twice, (1,0) twice;
    # unit 2 (m = 2) adds (1,1) twice
    values, o = coincidence_matrix([[0, 0, 1], [1, N, 1], [5]])
    assert list(values) == [0, 1]
    np.testing.assert_allclose(o, [[1, 1], [1, 2]])


@pytest.mark.parametrize(
    ("units", "alpha"),
    [
        # n_c = 1, 1, 2; sum o d^2 = 2; sum n_c n_k d^2 = 2 (1 + 8 + 2) = 22; 1 - 3 * 2 / 22
        ([[1, 2], [3, 3]], 8 / 11),
        # o = [[1, 1], [1, 2]], n_c = 2, 3: 1 - 4 * 2 / (2 * 6) = 1/3
        ([[0, 0, 1], [1, 1]], 1 / 3),
        # perfect agreement
        ([[0, 0], [2, 2], [5, 5]], 1.0),
    ],
)
def test_alpha_by_hand(units, alpha):
    got = krippendorff_alpha_interval(units, resamples=0)
    assert got.value == pytest.approx(alpha, abs=1e-12)
    assert got.note is None


def test_alpha_of_krippendorffs_published_example():
    got = krippendorff_alpha_interval(KRIPPENDORFF_2011)
    assert round(got.value, 3) == 0.849
    assert got.units == 11
    assert got.left_out == 1  # unit 12 has one value
    assert got.note == "1 cell with fewer than two marks left out."


@pytest.mark.parametrize("seed", range(20))
def test_alpha_matches_the_krippendorff_package(seed):
    rng = np.random.default_rng(seed)
    units_n, raters = rng.integers(3, 40), rng.integers(2, 6)
    truth = rng.integers(0, 21, size=units_n) / 2
    marks = np.clip(truth[:, None] + rng.normal(0, 2, size=(units_n, raters)), 0, 10)
    marks = np.round(marks * 2) / 2
    units = [[None if rng.random() < 0.3 else float(v) for v in row] for row in marks]
    # The seeds are fixed: every draw holds pairable cells, so the comparison always runs.
    assert any(sum(v is not None for v in u) >= 2 for u in units)
    got = krippendorff_alpha_interval(units, resamples=0)
    assert got.value == pytest.approx(package_alpha(units), abs=1e-9)


def test_alpha_weighted_sums_equal_the_coincidence_matrix_per_resample():
    rng = np.random.default_rng(5)
    units = [list(rng.integers(0, 5, size=rng.integers(2, 5)) / 2) for _ in range(15)]
    alpha = _alpha_weighted(units)
    assert alpha(np.ones((1, 15)))[0] == pytest.approx(
        krippendorff_alpha_interval(units, resamples=0).value, abs=1e-12
    )
    for _ in range(30):
        draw = rng.integers(0, 15, size=15)
        weights = np.bincount(draw, minlength=15)[None, :].astype(float)
        resampled = [units[i] for i in draw]
        expected = krippendorff_alpha_interval(resampled, resamples=0).value
        got = alpha(weights)[0]
        if expected is None:
            assert np.isnan(got)
        else:
            assert got == pytest.approx(expected, abs=1e-9)


def test_alpha_interval_is_deterministic_and_brackets_the_estimate():
    first = krippendorff_alpha_interval(KRIPPENDORFF_2011, seed=1)
    assert krippendorff_alpha_interval(KRIPPENDORFF_2011, seed=1) == first
    assert krippendorff_alpha_interval(KRIPPENDORFF_2011, seed=2).ci != first.ci
    low, high = first.ci
    assert low <= first.value <= high <= 1


@pytest.mark.parametrize(
    ("units", "note"),
    [
        ([], "No cell has marks from two jurors yet, so agreement cannot be measured."),
        (
            [[3, N], [N, N]],
            "2 cells with fewer than two marks left out. "
            "No cell has marks from two jurors yet, so agreement cannot be measured.",
        ),
        (
            [[2, 2], [2, 2, 2], [7]],
            "1 cell with fewer than two marks left out. "
            "Every mark is 2.0: with no variation, Krippendorff's alpha is undefined.",
        ),
    ],
)
def test_alpha_degenerate_cases_give_a_sentence(units, note):
    got = krippendorff_alpha_interval(units)
    assert got.value is None and got.ci is None
    assert got.note == note


# --- ICC(2,k) ---------------------------------------------------------------------------------


def reference_icc_2k(matrix) -> float:
    """Compute ICC(2,k) straight from the two-way ANOVA table (means, not sums)."""
    x = np.asarray(matrix, dtype=float)
    n, k = x.shape
    grand = x.mean()
    ssr = k * ((x.mean(axis=1) - grand) ** 2).sum()
    ssc = n * ((x.mean(axis=0) - grand) ** 2).sum()
    sse = ((x - grand) ** 2).sum() - ssr - ssc
    msr, msc, mse = ssr / (n - 1), ssc / (k - 1), sse / ((n - 1) * (k - 1))
    return (msr - mse) / (msr + (msc - mse) / n)


def test_icc_by_hand():
    # grand 2.75; MSR = 6.25, MSC = 2.25, MSE = 0.25: (6.25 - 0.25) / (6.25 + 2 / 2) = 24 / 29
    got = icc_2k([[1, 2], [3, 5]], resamples=0)
    assert got.value == pytest.approx(24 / 29, abs=1e-12)
    assert got.units == 2 and got.note is None


def test_icc_of_shrout_and_fleiss_table_2():
    got = icc_2k(SHROUT_FLEISS)
    assert round(got.value, 2) == 0.62
    assert got.value == pytest.approx(reference_icc_2k(SHROUT_FLEISS), abs=1e-12)
    low, high = got.ci
    assert low <= got.value <= high


@pytest.mark.parametrize("seed", range(5))
def test_icc_matches_the_anova_table_on_random_matrices(seed):
    rng = np.random.default_rng(seed)
    x = np.round(rng.uniform(0, 10, size=(rng.integers(2, 30), rng.integers(2, 5))) * 2) / 2
    assert icc_2k(x.tolist(), resamples=0).value == pytest.approx(reference_icc_2k(x), abs=1e-9)


def test_icc_weighted_sums_equal_the_anova_table_per_resample():
    rng = np.random.default_rng(9)
    x = rng.integers(0, 10, size=(12, 3)).astype(float)
    weighted = _icc_weighted(x)
    for _ in range(30):
        draw = rng.integers(0, 12, size=12)
        weights = np.bincount(draw, minlength=12)[None, :].astype(float)
        average, single = weighted(weights)[0]
        assert average == pytest.approx(reference_icc_2k(x[draw]), abs=1e-9)
        assert single == pytest.approx(reference_icc_a1(x[draw]), abs=1e-9)


def test_icc_leaves_out_incomplete_rows_and_says_so():
    got = icc_2k([[1, 2], [3, 5], [4, None], [Decimal("2.5"), Decimal("3")]], resamples=0)
    assert got.value == pytest.approx(reference_icc_2k([[1, 2], [3, 5], [2.5, 3]]))
    assert got.units == 3 and got.left_out == 1
    assert got.note == "1 cell without a mark from every juror left out."


@pytest.mark.parametrize(
    ("matrix", "note"),
    [
        ([], "ICC needs at least 2 cells marked by the same 2 or more jurors; there are 0 cells and 0 jurors."),
        ([[1, 2]], "ICC needs at least 2 cells marked by the same 2 or more jurors; there is 1 cell and 2 jurors."),
        ([[1], [2], [3]], "ICC needs at least 2 cells marked by the same 2 or more jurors; there are 3 cells and 1 juror."),
        ([[4, 4], [4, 4]], "Every mark is 4.0: with no variation, ICC is undefined."),
    ],
)  # fmt: skip
def test_icc_degenerate_cases_give_a_sentence(matrix, note):
    got = icc_2k(matrix)
    assert got.value is None and got.ci is None
    assert got.note == note


def test_icc_rows_of_different_lengths_are_a_programming_error():
    with pytest.raises(ValueError, match="one length"):
        icc_2k([[1, 2], [1, 2, 3]])


# --- ICC(A,1): one juror's mark -----------------------------------------------------------------


def anova_by_least_squares(matrix) -> tuple[float, float, float]:
    """Return MSR, MSC, MSE of a rows x raters matrix from least-squares fits with dummy
    columns (numpy.linalg.lstsq), not from the closed-form sums the module uses."""
    x = np.asarray(matrix, dtype=float)
    n, k = x.shape
    y = x.ravel()
    rows = np.kron(np.eye(n), np.ones((k, 1)))  # one dummy per row
    cols = np.kron(np.ones((n, 1)), np.eye(k))  # one per rater

    def rss(design):
        fit = np.linalg.lstsq(design, y, rcond=None)[0]
        return float(((y - design @ fit) ** 2).sum())

    sse = rss(np.hstack([rows, cols]))
    ssr = rss(cols) - sse  # what the rows explain beyond the raters
    ssc = rss(rows) - sse  # what the raters explain beyond the rows
    return ssr / (n - 1), ssc / (k - 1), sse / ((n - 1) * (k - 1))


def reference_icc_a1(matrix) -> float:
    """ICC(A,1) (McGraw & Wong 1996, case 2A; Shrout & Fleiss's ICC(2,1)) from the mean squares."""
    x = np.asarray(matrix, dtype=float)
    n, k = x.shape
    msr, msc, mse = anova_by_least_squares(x)
    return (msr - mse) / (msr + (k - 1) * mse + k * (msc - mse) / n)


def test_icc_a1_by_hand():
    # MSR = 6.25, MSC = 2.25, MSE = 0.25, n = k = 2: 6 / (6.25 + 0.25 + 2 * 2 / 2) = 12 / 17
    got = icc([[1, 2], [3, 5]], resamples=0)
    assert got.single.value == pytest.approx(12 / 17, abs=1e-12)
    assert got.average.value == pytest.approx(24 / 29, abs=1e-12)


def test_icc_a1_and_a_k_of_shrout_and_fleiss_table_2():
    # Shrout & Fleiss (1979), Table 4: ICC(2,1) = .29, ICC(2,4) = .62.
    got = icc(SHROUT_FLEISS, resamples=0)
    assert round(got.single.value, 2) == 0.29
    assert round(got.average.value, 2) == 0.62
    msr, msc, mse = anova_by_least_squares(SHROUT_FLEISS)
    # the mean squares of their Table 3: BMS 11.24, JMS 32.49, EMS 1.02
    assert (round(msr, 2), round(msc, 2), round(mse, 2)) == (11.24, 32.49, 1.02)
    assert got.single.value == pytest.approx(reference_icc_a1(SHROUT_FLEISS), abs=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_icc_a1_matches_the_least_squares_anova_on_random_matrices(seed):
    rng = np.random.default_rng(seed)
    x = np.round(rng.uniform(0, 10, size=(rng.integers(3, 30), rng.integers(2, 5))) * 2) / 2
    got = icc(x.tolist(), resamples=0)
    assert got.single.value == pytest.approx(reference_icc_a1(x), abs=1e-9)
    assert got.average.value == pytest.approx(reference_icc_2k(x), abs=1e-9)


# --- intervals that resample papers -------------------------------------------------------------


def _paper_cells(seed: int, papers: int, per_paper: int):
    """Cells of `papers` papers, `per_paper` criteria each, two jurors; the paper's quality is
    shared by its cells, so cells of a paper are alike (clustered)."""
    rng = np.random.default_rng(seed)
    cells, labels = [], []
    for p in range(papers):
        quality = rng.uniform(0, 4)
        for _ in range(per_paper):
            truth = quality + rng.normal(0, 0.5)
            cells.append([float(np.round(truth + rng.normal(0, 0.7))) for _ in range(2)])
            labels.append(f"paper{p}")
    return cells, labels


def _package_alpha_or_nan(units) -> float:
    pairable = [u for u in units if sum(v is not None for v in u) >= 2]
    if len({v for u in pairable for v in u}) < 2:
        return np.nan
    return package_alpha(units)


def test_alpha_interval_resamples_papers_with_all_their_cells():
    cells, labels = _paper_cells(3, papers=15, per_paper=3)
    got = krippendorff_alpha_interval(cells, papers=labels, resamples=300, seed=7)
    assert (got.unit, got.clusters, got.units, got.exact) == ("paper", 15, 45, False)
    assert reliabilities(alphas=[Ratings(cells, labels)], resamples=300, seed=7)[0] == [got]
    # By hand: draw 15 papers with replacement, 300 times (the module's own draws: one block
    # of numpy's integers), put each drawn paper's three cells in, alpha by the package.
    draws = np.random.default_rng(7).integers(0, 15, size=(300, 15))
    by_paper = [cells[3 * p : 3 * p + 3] for p in range(15)]
    naive = np.array(
        [_package_alpha_or_nan([c for p in row for c in by_paper[p]]) for row in draws]
    )
    low, high = np.percentile(naive[~np.isnan(naive)], [2.5, 97.5])
    assert got.ci == pytest.approx((low, high), abs=1e-9)
    # Resampling cells instead (the old unit) gives another, narrower interval here.
    cellwise = krippendorff_alpha_interval(cells, resamples=300, seed=7)
    assert cellwise.unit == "cell" and cellwise.clusters == 45
    assert cellwise.ci != pytest.approx(got.ci, abs=1e-3)


def test_icc_intervals_resample_papers_with_all_their_rows():
    cells, labels = _paper_cells(4, papers=12, per_paper=2)
    got = icc(cells, papers=labels, resamples=200, seed=5)
    draws = np.random.default_rng(5).integers(0, 12, size=(200, 12))
    x = np.array(cells)
    for figure, reference in ((got.average, reference_icc_2k), (got.single, reference_icc_a1)):
        naive = np.array(
            [reference(np.vstack([x[2 * p : 2 * p + 2] for p in row])) for row in draws]
        )
        low, high = np.percentile(naive, [2.5, 97.5])
        assert figure.ci == pytest.approx((low, high), abs=1e-9)
        assert (figure.unit, figure.clusters) == ("paper", 12)


def test_few_papers_get_the_exact_bootstrap_distribution():
    # 5 papers: every one of the 5^5 = 3,125 equally likely ordered draws, by enumeration.
    cells = [[1, 2], [2, 2], [0, 1], [1, 1], [3, 3], [2, 4], [0, 0], [1, 0], [4, 3], [2, 2]]
    labels = ["a", "a", "b", "b", "c", "c", "d", "d", "e", "e"]
    got = krippendorff_alpha_interval(cells, papers=labels, resamples=10_000)
    assert got.exact and got.mc_error == 0 and got.resamples == distinct_resamples(5) == 126
    by_paper = [cells[2 * p : 2 * p + 2] for p in range(5)]
    draws = list(itertools.product(range(5), repeat=5))
    values = [_package_alpha_or_nan([c for p in d for c in by_paper[p]]) for d in draws]
    kept = sorted(v for v in values if not np.isnan(v))
    # inverted CDF: the smallest value whose cumulative share reaches 2.5% (97.5%)
    low = kept[math.ceil(0.025 * len(kept)) - 1]
    high = kept[math.ceil(0.975 * len(kept)) - 1]
    assert got.ci == pytest.approx((low, high), abs=1e-9)
    # the distinct resamples without variation (e.g. paper d five times: every mark 0 or 1...)
    undefined = {tuple(sorted(d)) for d, v in zip(draws, values, strict=True) if np.isnan(v)}
    assert got.skipped == len(undefined)
    assert got.method.startswith("95% exact bootstrap over 5 papers (all 126 distinct resamples")


def test_fewer_than_five_papers_get_no_interval_and_a_sentence():
    cells = [[1, 2], [2, 2], [0, 1], [1, 1], [3, 3], [2, 4], [0, 0], [1, 0]]
    got = krippendorff_alpha_interval(cells, papers=list("aabbccdd"), resamples=10_000)
    assert got.value is not None and got.ci is None and got.method is None
    assert got.note == "No interval: 4 papers are too few for a bootstrap, which needs at least 5."
    both = icc(cells, papers=list("aabbccdd"), resamples=10_000)
    assert both.average.ci is None and "4 papers are too few" in both.single.note


def test_exact_counts_are_the_multinomial_distribution():
    counts, p = exact_counts(3)
    assert len(counts) == distinct_resamples(3) == 10
    assert (counts.sum(axis=1) == 3).all() and p.sum() == pytest.approx(1)
    # (1, 1, 1) has probability 3! / 3^3 = 6/27; (3, 0, 0) 1/27
    assert p[(counts == 1).all(axis=1)][0] == pytest.approx(6 / 27)
    assert p[(counts[:, 0] == 3)][0] == pytest.approx(1 / 27)
    assert distinct_resamples(8) == 6435 and distinct_resamples(9) == 24310


def test_a_handful_of_cells_no_longer_carries_monte_carlo_error():
    # Five cells: before, 2,000 random resamples moved the interval's ends from seed to seed;
    # now every seed gives the same, exact interval.
    cells = [[1, 2], [3, 3], [0, 1], [2, 2], [4, 2]]
    ends = {krippendorff_alpha_interval(cells, resamples=2_000, seed=s).ci for s in range(5)}
    assert len(ends) == 1


def test_up_to_ten_papers_the_bootstrap_is_exact_whatever_the_resamples():
    cells = [[v, v + (v % 3 == 0)] for v in range(10)]
    got = krippendorff_alpha_interval(cells, resamples=2_000)
    assert got.exact and got.resamples == distinct_resamples(10) == 92_378
    more = [[v, v + (v % 3 == 0)] for v in range(11)]
    assert not krippendorff_alpha_interval(more, resamples=2_000).exact


def test_more_resamples_where_the_monte_carlo_error_is_large():
    cells, labels = _paper_cells(0, papers=12, per_paper=2)
    coarse = krippendorff_alpha_interval(cells, papers=labels, resamples=200, seed=1)
    assert coarse.mc_error > 0.005  # 200 resamples of 12 papers: too coarse
    (fine,), _ = reliabilities(
        alphas=[Ratings(cells, labels)], resamples=200, seed=1, mc_target=0.005
    )
    # 200, then 1,000, 5,000 and 25,000 resamples (errors 0.070, 0.020, 0.009, 0.004)
    assert fine.mc_error <= 0.005 < coarse.mc_error and fine.resamples == 25_000
    # the same figure as asking for that many resamples at once
    assert fine == krippendorff_alpha_interval(
        cells, papers=labels, resamples=fine.resamples, seed=1
    )


def test_quantile_mc_error_is_the_standard_error_of_a_sample_quantile():
    # For B normal draws the 2.5% quantile's standard error is sqrt(p (1 - p) / B) / phi(z).
    draws = np.random.default_rng(0).normal(size=10_000)
    theory = math.sqrt(0.025 * 0.975 / 10_000) / scipy_stats.norm.pdf(scipy_stats.norm.ppf(0.025))
    assert quantile_mc_error(draws, (0.025, 0.975)) == pytest.approx(theory, rel=0.25)


def test_the_stated_monte_carlo_error_matches_the_spread_across_seeds():
    cells, labels = _paper_cells(11, papers=30, per_paper=2)
    runs = [
        krippendorff_alpha_interval(cells, papers=labels, resamples=1_000, seed=s)
        for s in range(40)
    ]
    spread = max(np.std([r.ci[0] for r in runs]), np.std([r.ci[1] for r in runs]))
    stated = np.mean([r.mc_error for r in runs])
    assert 0.5 * spread < stated < 2 * spread
    assert "Monte-Carlo error of its ends" in runs[0].method


def test_a_zero_width_interval_is_not_given():
    cells = [[v, v] for v in range(9)]  # perfect agreement in every resample
    got = krippendorff_alpha_interval(cells, resamples=500)
    assert got.value == 1.0 and got.ci is None and got.method is None
    assert "Every resample gives 1.0, so the bootstrap gives no interval." in got.note
    boot = bootstrap_interval(np.array([0.5, 0.5, np.nan]))
    assert boot.ci is None and boot.skipped == 1


# --- discrepant cells -------------------------------------------------------------------------


def test_discrepancy_rate_counts_cells_beyond_the_tolerance():
    cells = [
        [Decimal("2"), Decimal("2")],
        [Decimal("2"), Decimal("2.5")],  # 0.5 apart: discrepant at tolerance 0, not at 0.5
        [Decimal("1"), Decimal("3"), None],
        [Decimal("4"), None],  # one mark: not compared
        [],
    ]
    strict = discrepancy_rate(cells, tolerance=Decimal("0"))
    assert (strict.discrepant, strict.compared, strict.rate) == (2, 3, 2 / 3)
    lenient = discrepancy_rate(cells, tolerance=Decimal("0.5"))
    assert (lenient.discrepant, lenient.compared) == (1, 3)
    assert lenient.note is None


def test_discrepancy_rate_without_comparable_cells():
    got = discrepancy_rate([[1.0], [None, 2.0]], tolerance=0)
    assert got.rate is None and got.compared == 0
    assert got.note == "No cell has submitted marks from two jurors yet."


# --- shared draws -----------------------------------------------------------------------------


def test_reliabilities_equal_one_call_each():
    rng = np.random.default_rng(21)
    alphas = [
        [list(rng.integers(0, 7, size=rng.integers(2, 4)) / 2) for _ in range(40)],
        [list(rng.integers(0, 3, size=2)) for _ in range(40)],  # as many cells: shared draws
        [list(rng.integers(0, 9, size=3)) for _ in range(25)],
        [[2, 2], [2, 2]],  # no variation: no interval
        [[1, N]],  # nothing pairable
    ]
    iccs = [
        rng.integers(0, 6, size=(40, 2)).tolist(),
        rng.integers(0, 6, size=(17, 3)).tolist(),
        [[4, 4], [4, 4]],
    ]
    got_alphas, got_iccs = reliabilities(alphas=alphas, iccs=iccs, resamples=500, seed=4)
    singles = [krippendorff_alpha_interval(u, resamples=500, seed=4) for u in alphas]
    singles += [icc_2k(m, resamples=500, seed=4) for m in iccs]
    singles += [icc(m, resamples=500, seed=4).single for m in iccs]
    got_iccs = [i.average for i in got_iccs] + [i.single for i in got_iccs]
    for got, single in zip(got_alphas + got_iccs, singles, strict=True):
        # one matrix product for all adds in another order: equal to the last bits
        assert replace(got, ci=None, mc_error=None) == replace(single, ci=None, mc_error=None)
        assert got.mc_error == pytest.approx(single.mc_error, abs=1e-12)
        assert got.ci == (None if single.ci is None else pytest.approx(single.ci, abs=1e-12))
    assert got_alphas[0].ci and got_alphas[1].ci and got_iccs[0].ci
    assert got_alphas[3].ci is None and got_alphas[4].value is None and got_iccs[2].ci is None


def test_interval_is_the_percentiles_of_alpha_on_each_drawn_resample():
    # The weighted sums stand for the resampled cells themselves: same draws, same figures.
    rng = np.random.default_rng(8)
    units = [list(rng.integers(0, 5, size=rng.integers(2, 4)) / 2) for _ in range(12)]
    draws = np.random.default_rng(3).integers(0, 12, size=(200, 12))
    naive = [
        krippendorff_alpha_interval([units[i] for i in row], resamples=0).value for row in draws
    ]
    naive = np.array([np.nan if v is None else v for v in naive])
    got = krippendorff_alpha_interval(units, resamples=200, seed=3)
    kept = naive[~np.isnan(naive)]
    assert got.skipped == int(np.isnan(naive).sum())
    low, high = np.percentile(kept, [2.5, 97.5])
    assert got.ci == pytest.approx((low, high), abs=1e-12)


# --- shapes, defaults and edges the figures rest on ---------------------------------------------


def test_icc_on_a_scale_of_one_by_hand():
    # Marks as shares of a maximum (mean squares below 1). Row means 0.15, 0.45, 0.85, juror
    # means 0.5 and 0.4667, grand 0.4833: MSR = 37/150, MSC = 1/600, MSE = 1/150, so
    # ICC(A,k) = (36/150) / (37/150 - 1/600) = 48/49 and ICC(A,1) = (36/150) / (38/150 -
    # 2/600) = 24/25.
    matrix = [[0.1, 0.2], [0.5, 0.4], [0.9, 0.8]]
    msr, msc, mse = anova_by_least_squares(matrix)
    assert (msr, msc, mse) == pytest.approx((37 / 150, 1 / 600, 1 / 150))
    got = icc(matrix, resamples=0)
    assert got.average.value == pytest.approx(48 / 49) and got.single.value == pytest.approx(
        24 / 25
    )
    assert (got.average.unit, got.average.units, got.average.clusters) == ("cell", 3, 3)


def test_icc_without_a_positive_denominator_says_why():
    # Rows and jurors with equal means and all variation in their interaction: MSR = MSC = 0,
    # MSE = 0.5, so ICC(A,k)'s denominator 0 + (0 - 0.5) / 3 is negative (ICC(A,1)'s is
    # 0.5 - 1/3 > 0): no ICC, and the marks do vary.
    got = icc([[0, 1], [1, 0], [0.5, 0.5]], resamples=0)
    expected = Reliability(
        None,
        None,
        3,
        note="ICC cannot be computed: the cells differ less than the jurors disagree.",
        clusters=3,
    )
    assert got.average == got.single == expected


def test_alpha_and_icc_without_figures_keep_their_counts_and_unit():
    nothing = krippendorff_alpha_interval([[1], [None, 2]], papers=["p", "q"])
    assert nothing == Reliability(
        None,
        None,
        0,
        2,
        note="2 cells with fewer than two marks left out. No cell has marks from two jurors "
        "yet, so agreement cannot be measured.",
        unit="paper",
    )
    flat = krippendorff_alpha_interval([[1, 1], [1, 1], [1]], papers=["p", "q", "r"])
    assert flat == Reliability(
        None,
        None,
        2,
        1,
        note="1 cell with fewer than two marks left out. Every mark is 1.0: with no variation, "
        "Krippendorff's alpha is undefined.",
        unit="paper",
        clusters=2,
    )
    one = icc([[1, 2], [3, None]], papers=["p", "q"])
    assert one.average == Reliability(
        None,
        None,
        1,
        1,
        note="1 cell without a mark from every juror left out. ICC needs at least 2 cells "
        "marked by the same 2 or more jurors; there is 1 cell and 2 jurors.",
        unit="paper",
        clusters=1,
    )


def _many_cells(n=14, seed=3):
    rng = np.random.default_rng(seed)
    return [list(rng.integers(0, 5, size=2) / 2) for _ in range(n)]


def test_the_defaults_are_10000_resamples_with_seed_2026():
    cells = _many_cells()  # 14 cells: drawn, not enumerated
    alpha = krippendorff_alpha_interval(cells)
    assert alpha == krippendorff_alpha_interval(cells, resamples=10_000, seed=2026)
    assert alpha.resamples == 10_000 and not alpha.exact
    assert alpha != krippendorff_alpha_interval(cells, resamples=10_000, seed=2027)
    both = icc(cells)
    assert both == icc(cells, resamples=10_000, seed=2026)
    assert both != icc(cells, resamples=10_000, seed=2027)
    assert icc_2k(cells) == both.average
    assert icc_2k(cells, resamples=300, seed=5) == icc(cells, resamples=300, seed=5).average
    assert reliabilities(alphas=[cells], iccs=[cells]) == ([alpha], [both])
    assert reliabilities(alphas=[cells], iccs=[cells], seed=2027) != ([alpha], [both])


def test_more_resamples_stop_at_100000_by_default():
    cells = _many_cells(12)
    (alpha,), _ = reliabilities(alphas=[cells], resamples=10_000, mc_target=1e-9)
    assert alpha.resamples == 100_000


@pytest.mark.timeout(60)
def test_more_resamples_stop_at_the_most_asked_even_above_the_error_asked():
    cells = _many_cells(12)
    (alpha,), _ = reliabilities(alphas=[cells], resamples=200, mc_target=1e-9, max_resamples=200)
    assert alpha.resamples == 200 and alpha.mc_error > 1e-9


def test_one_resample_asked_enumerates_five_papers_and_notes_fewer():
    five = krippendorff_alpha_interval([[0, 1], [1, 1], [2, 3], [3, 3], [4, 2]], resamples=1)
    assert five.exact and five.ci is not None and five.resamples == distinct_resamples(5)
    three = krippendorff_alpha_interval([[0, 1], [1, 1], [2, 3]], resamples=1)
    assert three.ci is None
    assert three.note == "No interval: 3 cells are too few for a bootstrap, which needs at least 5."


def test_a_note_when_over_five_percent_of_resamples_had_no_variation():
    from grading.review.stats._common import Bootstrap
    from grading.review.stats.agreement import _with_interval

    base = Reliability(0.5, None, 20, clusters=20)
    at_five = _with_interval(base, Bootstrap((0.1, 0.9), 10_000, 500, 0.05, mc_error=0.01))
    assert at_five.note is None and at_five.skipped == 500 and at_five.ci == (0.1, 0.9)
    over = _with_interval(base, Bootstrap((0.1, 0.9), 10_000, 1_000, 0.1, mc_error=0.01))
    assert over.note == (
        "10% of the bootstrap's resamples had no variation and were left out of the interval."
    )
    assert (over.skipped, over.resamples, over.mc_error) == (1_000, 10_000, 0.01)


def test_the_interval_does_not_depend_on_where_the_scale_starts():
    # Marks near 10 million: the resampled sums of squares are centred, so no digits cancel.
    cells = _many_cells(8)
    shifted = [[v + 1e7 for v in cell] for cell in cells]
    alpha, moved = (krippendorff_alpha_interval(c, resamples=0) for c in (cells, shifted))
    assert moved.value == pytest.approx(alpha.value, abs=1e-9)
    a, b = krippendorff_alpha_interval(cells), krippendorff_alpha_interval(shifted)
    assert b.ci == pytest.approx(a.ci, abs=1e-6)
    i, j = icc(cells), icc(shifted)
    assert j.average.ci == pytest.approx(i.average.ci, abs=1e-6)
    assert j.single.ci == pytest.approx(i.single.ci, abs=1e-6)


def test_a_cell_with_one_mark_first_does_not_stop_the_count():
    got = discrepancy_rate([[1.0], [1.0, 2.0], [3.0, 3.0]], tolerance=0)
    assert (got.rate, got.discrepant, got.compared) == (0.5, 1, 2)
    assert discrepancy_rate([], tolerance=0) == DiscrepancyRate(
        None, 0, 0, "No cell has submitted marks from two jurors yet."
    )

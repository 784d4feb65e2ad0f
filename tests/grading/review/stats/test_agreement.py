"""Juror agreement: alpha against hand computation, Krippendorff's example and the krippendorff
package; ICC(2,k) against hand computation and Shrout & Fleiss; deviations; discrepant cells."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import krippendorff
import numpy as np
import pytest

from grading.review.stats import (
    RaterDeviation,
    coincidence_matrix,
    deviation_sentence,
    discrepancy_rate,
    icc_2k,
    krippendorff_alpha_interval,
    rater_deviation,
    reliabilities,
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
    icc = _icc_weighted(x)
    for _ in range(30):
        draw = rng.integers(0, 12, size=12)
        weights = np.bincount(draw, minlength=12)[None, :].astype(float)
        assert icc(weights)[0] == pytest.approx(reference_icc_2k(x[draw]), abs=1e-9)


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


# --- each juror against the agreed marks --------------------------------------------------------


def test_rater_deviation_by_hand():
    agreed = {"p1/a": 2.0, "p1/b": 1.0, "p2/a": 3.0, "p2/b": None}
    marks = {
        "ana": {"p1/a": 3.0, "p1/b": 2.0, "p2/a": 3.5, "p2/b": 1.0},  # +1, +1, +0.5; p2/b open
        "ben": {"p1/a": 1.0, "p1/b": Decimal("0.5")},  # -1, -0.5
        "cy": {"p3/a": 4.0},  # nothing agreed
    }
    ana, ben, cy = rater_deviation(marks, agreed)
    assert ana == RaterDeviation("ana", pytest.approx(2.5 / 3), pytest.approx(2.5 / 3), 3)
    assert ben == RaterDeviation("ben", -0.75, 0.75, 2)
    assert cy == RaterDeviation("cy", None, None, 0)


@pytest.mark.parametrize(
    ("deviation", "sentence"),
    [
        (
            RaterDeviation("a", 0.8, 0.9, 40),
            "marks 0.8 points above the agreed marks on average (n = 40): "
            "more lenient than the jury",
        ),
        (
            RaterDeviation("a", -1.25, 1.25, 12),
            "marks 1.25 points below the agreed marks on average (n = 12): "
            "more severe than the jury",
        ),
        (
            RaterDeviation("a", 0.1, 0.3, 40),
            "marks in line with the agreed marks (+0.1 points on average, n = 40)",
        ),
        (
            RaterDeviation("a", -0.25, 0.3, 40),
            "marks in line with the agreed marks (-0.25 points on average, n = 40)",
        ),
        (
            RaterDeviation("a", 2.0, 2.0, 3),
            "marks 2.0 points above the agreed marks on average (n = 3): "
            "more lenient than the jury; only 3 cells, too few to judge",
        ),
        (RaterDeviation("a", None, None, 0), "has no marks on cells with an agreed mark yet"),
    ],
)
def test_deviation_sentences(deviation, sentence):
    assert deviation.sentence == sentence
    assert deviation_sentence(deviation) == sentence


def test_deviation_margin_can_be_chosen():
    deviation = RaterDeviation("a", 0.3, 0.3, 20)
    assert deviation_sentence(deviation, margin=0.5).startswith("marks in line")


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
    for got, single in zip(got_alphas + got_iccs, singles, strict=True):
        # one matrix product for all adds in another order: equal to the last bits
        assert replace(got, ci=None) == replace(single, ci=None)
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

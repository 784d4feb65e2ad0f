"""The statistics' shared helpers: how figures and notes are written, percentile intervals,
the bootstrap's sums and intervals and their Monte-Carlo error, against hand computation and
numpy."""

from __future__ import annotations

import math

import numpy as np
import pytest

from grading.review.stats._common import (
    Bootstrap,
    bootstrap_interval,
    bootstrap_note,
    bootstrap_sums,
    distinct_resamples,
    exact_counts,
    fmt,
    interval_method,
    quantile_mc_error,
    too_few_note,
)

Z95 = 1.959963984540054


def test_figures_get_one_decimal_when_exact_else_two():
    assert [fmt(v) for v in (0.5, 3.0, 0.25, 0.125, -1.75)] == [
        "0.5",
        "3.0",
        "0.25",
        "0.12",
        "-1.75",
    ]


def test_a_note_when_more_than_five_percent_of_resamples_gave_no_figure():
    assert bootstrap_note(1, 10_000, "had one value") is None
    assert bootstrap_note(500, 10_000, "had one value") is None  # exactly 5%: not over
    assert bootstrap_note(501, 10_000, "had one value") == (
        "501 of 10,000 bootstrap resamples had one value and were left out of the interval."
    )
    assert bootstrap_note(3, 0, "had one value") is None


def test_distinct_resamples_of_n_units():
    # Multisets of n draws from n units: C(2n - 1, n).
    assert [distinct_resamples(n) for n in range(6)] == [0, 1, 3, 10, 35, 126]


def test_too_few_units_in_a_sentence():
    assert too_few_note(1, "paper") == (
        "No interval: 1 paper is too few for a bootstrap, which needs at least 5."
    )
    assert too_few_note(2, "paper") == (
        "No interval: 2 papers are too few for a bootstrap, which needs at least 5."
    )


def test_bootstrap_sums_enumerate_whenever_the_distinct_resamples_fit():
    figures = np.array([[1.0], [2.0], [4.0]])
    # One resample asked, yet 3 units have 10 distinct resamples: all 10, with probabilities.
    (one,) = bootstrap_sums([figures], resamples=1, seed=1)
    assert one.exact and one.sums.shape == (10, 1)
    assert one.probabilities.sum() == pytest.approx(1.0)
    # The mean of the resampled sums is n x the mean figure: 3 x 7/3 = 7.
    assert float(one.probabilities @ one.sums[:, 0]) == pytest.approx(7.0)
    # One unit: one distinct resample, certain.
    (single,) = bootstrap_sums([np.array([[5.0]])], resamples=10, seed=1)
    assert (
        single.exact and single.sums.tolist() == [[5.0]] and single.probabilities.tolist() == [1.0]
    )
    # No unit: nothing to enumerate; the draws are empty sums.
    (none,) = bootstrap_sums([np.zeros((0, 1))], resamples=4, seed=1)
    assert not none.exact and none.sums.tolist() == [[0.0]] * 4


def test_bootstrap_sums_enumerate_up_to_as_many_distinct_resamples_as_asked():
    # 11 units have C(21, 11) = 352,716 distinct resamples, above the 100,000 enumerated
    # anyway: asked for exactly that many, they are enumerated; for one fewer, drawn.
    figures = np.arange(11.0).reshape(11, 1)
    assert distinct_resamples(11) == math.comb(21, 11) == 352_716
    (exact,) = bootstrap_sums([figures], resamples=352_716, seed=1)
    assert exact.exact and exact.sums.shape == (352_716, 1)
    (drawn,) = bootstrap_sums([figures], resamples=352_715, seed=1)
    assert not drawn.exact and drawn.sums.shape == (352_715, 1)


def test_an_exact_bootstrap_without_any_figure_has_no_interval():
    estimates = np.array([np.nan, np.nan])
    assert bootstrap_interval(estimates, np.array([0.25, 0.75])) == Bootstrap(
        None, 2, 2, 1.0, True, 0.0
    )
    # Figures only where the probability is 0: still none.
    zero = bootstrap_interval(np.array([np.nan, 0.4]), np.array([1.0, 0.0]))
    assert zero == Bootstrap(None, 2, 1, 1.0, True, 0.0)


def test_a_drawn_bootstrap_without_any_figure_has_no_interval():
    assert bootstrap_interval(np.array([np.nan] * 4)) == Bootstrap(None, 4, 4, 1.0)
    assert bootstrap_interval(np.array([])) == Bootstrap(None, 0, 0, 0.0)


def test_a_drawn_bootstrap_states_the_share_it_left_out():
    estimates = np.array([np.nan] + [float(v) for v in range(99)])
    boot = bootstrap_interval(estimates)
    assert (boot.resamples, boot.skipped, boot.skipped_share) == (100, 1, 0.01)
    assert boot.ci == pytest.approx(tuple(np.percentile(np.arange(99.0), [2.5, 97.5])))


def test_an_exact_bootstrap_is_the_weighted_inverted_cdf():
    # Values 0, 1, 2 with probabilities 0.02, 0.5, 0.48: the 2.5% point is 1 (0.02 < 0.025),
    # the 97.5% point 2.
    boot = bootstrap_interval(np.array([0.0, 1.0, 2.0]), np.array([0.02, 0.5, 0.48]))
    assert boot.ci == (1.0, 2.0) and boot.exact and boot.mc_error == 0.0


@pytest.mark.parametrize(
    ("values", "width"),
    [
        # Half the resamples at 0, half at 1e-12: the interval (0, 1e-12) is zero width within
        # 1e-12 of a figure below 1 (not given) ...
        ([0.0] * 50 + [1e-12] * 50, None),
        # ... (0, 1.5e-12) is not (given) ...
        ([0.0] * 50 + [1.5e-12] * 50, 1.5e-12),
        # ... and around 1000 the tolerance is relative: 1e-10 is zero width (1e-9 allowed).
        ([1000.0] * 50 + [1000.0 + 1e-10] * 50, None),
    ],
)
def test_a_zero_width_interval_is_not_given_within_a_relative_tolerance(values, width):
    boot = bootstrap_interval(np.array(values))
    if width is None:
        assert boot.ci is None and boot.mc_error is None
        assert boot.note is not None and boot.note.startswith("Every resample gives ")
    else:
        assert boot.ci[1] - boot.ci[0] == pytest.approx(width)
        assert boot.note is None


def _mc_by_hand(ordered, p):
    """Half the spread of the order statistics at ranks B p -+ 1.96 sqrt(B p (1 - p)), over
    1.96 (ranks from 1, clipped to the sample)."""
    b = len(ordered)
    half = Z95 * math.sqrt(b * p * (1 - p))
    lo = min(b, max(1, math.floor(b * p - half)))
    hi = min(b, max(1, math.ceil(b * p + half)))
    return (ordered[hi - 1] - ordered[lo - 1]) / (2 * Z95)


@pytest.mark.parametrize("p", [0.025, 0.975])
def test_the_monte_carlo_error_of_each_quantile_by_hand(p):
    # Values spread unevenly (squares), so each quantile's error is its own.
    ordered = np.arange(100.0) ** 2
    # p = 0.025: ranks 2.5 -+ 3.06 give 1 and 6 (values 0 and 25): 25 / 3.92 = 6.378.
    # p = 0.975: ranks 94 and 100 (values 93^2 and 99^2): 1152 / 3.92 = 293.9.
    expected = {0.025: 25 / (2 * Z95), 0.975: (99**2 - 93**2) / (2 * Z95)}[p]
    assert _mc_by_hand(ordered, p) == pytest.approx(expected)
    assert quantile_mc_error(ordered, (p,)) == pytest.approx(expected)
    assert quantile_mc_error(ordered, (0.025, 0.975)) == pytest.approx(293.9, abs=0.1)


def test_the_monte_carlo_error_of_two_draws():
    # B = 2, p = 0.025: ranks 0.05 -+ 0.43 clip to the first draw on both sides: no spread.
    assert quantile_mc_error(np.array([1.0, 5.0]), (0.025,)) == 0.0


def test_the_method_of_an_interval_in_full():
    drawn = Bootstrap((0.1, 0.2), 10_000, mc_error=0.0042)
    assert interval_method(drawn, unit="paper", units=12) == (
        "95% percentile bootstrap over 12 papers (10,000 resamples; Monte-Carlo error of its "
        "ends ±0.004)"
    )
    bare = Bootstrap((0.1, 0.2), 10_000, mc_error=None)
    assert interval_method(bare, unit="paper", units=1) == (
        "95% percentile bootstrap over 1 paper (10,000 resamples)"
    )
    exact = Bootstrap((0.1, 0.2), 462, exact=True, mc_error=0.0)
    assert interval_method(exact, unit="paper", units=6) == (
        "95% exact bootstrap over 6 papers (all 462 distinct resamples, weighted by their "
        "probability)"
    )


def test_an_exact_bootstrap_with_one_figure_says_every_resample_gives_it():
    # Half the probability without a figure, the other half all 0.4: no interval, and why.
    boot = bootstrap_interval(np.array([np.nan, 0.4]), np.array([0.5, 0.5]))
    assert boot == Bootstrap(
        None,
        2,
        1,
        0.5,
        True,
        None,
        "Every resample gives 0.4, so the bootstrap gives no interval.",
    )


def test_the_exact_bootstrap_of_one_unit_is_certain():
    counts, p = exact_counts(1)
    assert counts.tolist() == [[1]] and p.tolist() == [1.0]
    # Two units: (2, 0), (1, 1), (0, 2) with probabilities 1/4, 1/2, 1/4.
    counts, p = exact_counts(2)
    assert sorted(zip(map(tuple, counts.tolist()), p.tolist(), strict=True)) == [
        ((0, 2), pytest.approx(0.25)),
        ((1, 1), pytest.approx(0.5)),
        ((2, 0), pytest.approx(0.25)),
    ]

"""Holm's adjustment (ioleval.multiplicity) against a hand computation and its definition."""

from __future__ import annotations

import numpy as np
import pytest

from ioleval.multiplicity import describe, family_size, flagged, holm


def test_holm_by_hand():
    # Sorted: 0.005, 0.01, 0.03, 0.04 (m = 4): 4 x 0.005 = 0.02, 3 x 0.01 = 0.03,
    # 2 x 0.03 = 0.06, max(0.06, 1 x 0.04) = 0.06; back in the input order.
    adjusted = holm([0.01, 0.04, 0.03, 0.005])
    assert adjusted == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert flagged(adjusted) == [True, False, False, True]
    # Unadjusted, all four would be flagged at 0.05.
    assert flagged([0.01, 0.04, 0.03, 0.005]) == [True] * 4


def test_a_missing_test_is_not_in_the_family_and_adjustment_caps_at_one():
    # m = 2: 2 x 0.01 = 0.02, max(0.02, 1 x 0.5) = 0.5; 3 x 0.4 would exceed 1.
    assert holm([None, 0.01, 0.5]) == pytest.approx([None, 0.02, 0.5])
    assert holm([0.4, 0.9, 0.5]) == pytest.approx([1.0, 1.0, 1.0])
    assert flagged([None, 0.02]) == [False, True]
    assert family_size([None, 0.02, 0.3]) == 2
    assert "family of 2 tests" in describe([None, 0.02, 0.3])
    assert holm([]) == [] and holm([None]) == [None]


def test_ties_get_one_adjusted_value_whatever_their_order():
    # m = 3, all 0.02: 3 x 0.02 = 0.06 for each.
    assert holm([0.02, 0.02, 0.02]) == pytest.approx([0.06, 0.06, 0.06])
    assert holm([0.03, 0.01, 0.01]) == pytest.approx([0.03, 0.03, 0.03])


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan"), float("inf")])
def test_a_p_value_outside_0_1_is_refused(bad):
    with pytest.raises(ValueError, match="p-value 1"):
        holm([0.1, bad])


def _step_down_rejections(pvalues: list[float], alpha: float) -> set[int]:
    """Holm's procedure as defined: walk the sorted p-values, reject while
    p(i) <= alpha / (m - i + 1), stop at the first that is not."""
    order = sorted(range(len(pvalues)), key=lambda i: pvalues[i])
    m = len(pvalues)
    rejected = set()
    for rank, i in enumerate(order):
        if pvalues[i] > alpha / (m - rank):
            break
        rejected.add(i)
    return rejected


@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.1, 0.2])
def test_flags_are_the_step_down_procedure_at_every_level(alpha):
    rng = np.random.default_rng(7)
    for _ in range(300):
        m = int(rng.integers(1, 25))
        # A mixture of small and uniform p-values, rounded so that ties occur.
        p = np.where(rng.random(m) < 0.4, rng.random(m) * 0.02, rng.random(m)).round(3)
        values = [float(x) for x in p]
        adjusted = holm(values)
        chosen = {i for i, f in enumerate(flagged(adjusted, alpha=alpha)) if f}
        assert chosen == _step_down_rejections(values, alpha)
        # Never below the raw p-value, never above Bonferroni's m x p.
        for raw, adj in zip(values, adjusted, strict=True):
            assert raw - 1e-12 <= adj <= min(1.0, m * raw) + 1e-12

"""Placement among the contestants and medals from the thresholds."""

from __future__ import annotations

from decimal import Decimal

import pytest

from grading.review.stats import MEDALS, Placement, medal, placement

THRESHOLDS = {"gold": 70.0, "silver": 55.0, "bronze": 40.0, "honourable_mention": 30.0}


def test_placement_counts_strictly_higher_and_strictly_lower():
    contestants = [90, 80, 79.5, 79.5, 70, 60, None]
    got = placement(79.5, contestants)
    # two higher -> 3rd; two of six lower -> 33.3%
    assert got == Placement(6, 3, pytest.approx(100 * 2 / 6))


def test_placement_above_and_below_everyone():
    assert placement(100, [10, 20]) == Placement(2, 1, 100.0)
    assert placement(0, [10, 20]) == Placement(2, 3, 0.0)
    assert placement(Decimal("15"), [Decimal("10"), Decimal("20")]) == Placement(2, 2, 50.0)


def test_placement_without_contestants_or_total_says_so():
    assert placement(50, []) == Placement(0, None, None, "No contestant totals have been imported.")
    assert placement(None, [1, 2]) == Placement(2, None, None, "There is no total to place yet.")


@pytest.mark.parametrize(
    ("total", "expected"),
    [
        (79.5, "gold"),
        (70.0, "gold"),  # reaching the threshold is enough
        (69.5, "silver"),
        (40, "bronze"),
        (Decimal("30"), "honourable_mention"),
        (29.5, None),
        (None, None),
    ],
)
def test_medal_is_the_best_threshold_reached(total, expected):
    assert medal(total, THRESHOLDS) == expected


def test_medal_skips_thresholds_not_set():
    thresholds = {"gold": Decimal("70"), "silver": Decimal("55"), "bronze": None}
    assert medal(45, thresholds) is None
    assert medal(56, thresholds) == "silver"
    assert medal(56, {}) is None
    assert MEDALS[0] == "gold"


def test_placements_count_strictly_higher_and_lower_totals():
    """Against the definition, counted one by one: rank 1 + strictly higher, percentile the
    share strictly lower (ties at the total are neither)."""
    import random

    from grading.review.stats import placements

    rng = random.Random(7)
    contestants = [rng.choice([None, *range(0, 40)]) for _ in range(120)]
    known = [float(c) for c in contestants if c is not None]
    totals = [-1, 0, 12, 12.5, 39, 40, *rng.sample(range(0, 40), 10)]
    for total, place in zip(totals, placements(totals, contestants), strict=True):
        higher = sum(1 for c in known if c > total)
        lower = sum(1 for c in known if c < total)
        assert (place.n, place.equivalent_rank) == (len(known), 1 + higher)
        assert place.percentile == 100 * lower / len(known)
    [missing] = placements([None], contestants)
    assert missing.equivalent_rank is None and missing.note
    [none] = placements([3], [])
    assert none.n == 0 and none.note == "No contestant totals have been imported."

"""The suggestion rule: golden values, no database."""

from __future__ import annotations

from decimal import Decimal

import pytest

from grading.suggestions import item_flags, suggested_points

D = Decimal


@pytest.mark.parametrize(
    ("maximum", "step", "flags", "expected"),
    [
        (D(3), D("0.5"), [True, True, True], D("3.00")),
        (D(2), D("0.5"), [True, False, False], D("0.50")),  # 0.667 -> 0.5
        (D(2), D("0.5"), [True, True, False], D("1.00")),  # 1.333 -> 1
        (D(3), D(1), [True, True, False], D("2.00")),  # exactly 2: no float 1.9999
        (D(5), D(1), [True, False, False, False, False, False, False], D("0.00")),  # 0.71 -> 0
        (D(2), D("0.25"), [True, False, True, True, False, False], D("1.00")),
        (D(4), D("0.5"), [False, False, False, False], D("0.00")),  # none matched
        (D(1), D("0.5"), [True], D("1.00")),
    ],
)
def test_share_rounds_down_to_the_step(maximum, step, flags, expected):
    got = suggested_points(rule="share", maximum=maximum, step=step, flags=flags)
    assert got == expected
    assert str(got) == str(expected)


@pytest.mark.parametrize(
    ("per_item", "flags", "expected"),
    [
        (D("0.5"), [True, True, False, True], D("1.50")),
        (D(1), [True, True, True, True], D("3.00")),  # capped at the maximum
        (D("0.5"), [False, False], D("0.00")),  # zero matched
        (D("0.75"), [True, True, False], D("1.50")),  # 1.5 is on the 0.5 step
        (D("0.75"), [True, False], D("0.50")),  # 0.75 rounds down to the step
    ],
)
def test_per_item_is_capped_at_the_maximum(per_item, flags, expected):
    got = suggested_points(
        rule="per_item", maximum=D(3), step=D("0.5"), flags=flags, points_per_item=per_item
    )
    assert got == expected


def test_none_and_no_items_suggest_nothing():
    assert suggested_points(rule="none", maximum=D(3), step=D(1), flags=[True]) is None
    assert suggested_points(rule="share", maximum=D(3), step=D(1), flags=[]) is None
    assert suggested_points(rule="per_item", maximum=D(3), step=D(1), flags=[True]) is None


def test_unknown_rule_is_an_error():
    with pytest.raises(ValueError, match="unknown"):
        suggested_points(rule="all", maximum=D(3), step=D(1), flags=[True])


def test_item_flags_pick_items_from_one():
    assert item_flags([1, 3], [True, False, True]) == [True, True]
    assert item_flags([2, 5], [True, False, True]) == [False, False]

"""Consensus as pure computation: pending, agreed, discrepant, decided; rounding to the step."""

from __future__ import annotations

from decimal import Decimal

import pytest

from grading.consensus import (
    AGREED,
    DECIDED,
    DISCREPANT,
    PENDING,
    CellState,
    agreed_value,
    cell_state,
)

D = Decimal


def state(submitted, *, expected=2, decision=None, tolerance="0", step="0.5") -> CellState:
    return cell_state(
        submitted={j: (None if v is None else D(v)) for j, v in submitted.items()},
        expected=expected,
        decision=None if decision is None else D(decision),
        tolerance=D(tolerance),
        step=D(step),
    )


# --- pending ---------------------------------------------------------------------------------


def test_nobody_submitted_is_pending():
    cell = state({})
    assert cell == CellState(PENDING, None, None)
    assert not cell.resolved


def test_one_of_two_jurors_submitted_is_pending_even_with_a_mark():
    cell = state({1: "2"}, expected=2)
    assert cell.status == PENDING
    assert cell.final is None
    assert cell.spread == D("0")


def test_two_of_three_agreeing_jurors_is_still_pending():
    cell = state({1: "1.5", 2: "1.5"}, expected=3)
    assert cell.status == PENDING
    assert cell.final is None


def test_pending_cell_reports_the_spread_so_far():
    cell = state({1: "2", 2: "2"}, expected=3)
    assert cell.status == PENDING
    assert cell.spread == D("0")


def test_marks_already_too_far_apart_are_discrepant_before_the_last_juror():
    cell = state({1: "2", 2: "0.5"}, expected=3)
    assert cell.status == DISCREPANT
    assert cell.spread == D("1.5")
    assert state({1: "2", 2: "1.5"}, expected=3, tolerance="0.5").status == PENDING


def test_only_blank_marks_are_pending():
    cell = state({1: None, 2: None}, expected=2)
    assert cell.status == PENDING
    assert cell.spread is None


# --- agreed ----------------------------------------------------------------------------------


def test_equal_marks_agree_on_that_mark():
    cell = state({1: "1.5", 2: "1.5"})
    assert cell == CellState(AGREED, D("1.5"), D("0"))
    assert cell.resolved


def test_a_single_juror_paper_is_agreed_on_its_mark():
    cell = state({7: "2"}, expected=1)
    assert cell.status == AGREED
    assert cell.final == D("2")
    assert cell.spread == D("0")


def test_zero_marks_agree_on_zero():
    cell = state({1: "0", 2: "0"})
    assert cell.status == AGREED
    assert cell.final == D("0")


def test_agreement_within_tolerance_takes_the_rounded_mean():
    cell = state({1: "1.5", 2: "2"}, tolerance="0.5", step="0.5")
    assert cell.status == AGREED
    assert cell.final == D("2.0")
    assert cell.spread == D("0.5")


def test_more_jurors_than_expected_still_agree():
    cell = state({1: "1", 2: "1", 3: "1"}, expected=2)
    assert cell.status == AGREED
    assert cell.final == D("1")


# --- discrepant --------------------------------------------------------------------------------


def test_different_marks_with_zero_tolerance_are_discrepant():
    cell = state({1: "2", 2: "1.5"})
    assert cell == CellState(DISCREPANT, None, D("0.5"))
    assert not cell.resolved


def test_spread_equal_to_tolerance_is_agreed_and_just_above_is_discrepant():
    assert state({1: "1", 2: "2"}, tolerance="1").status == AGREED
    assert state({1: "1", 2: "2"}, tolerance="0.99").status == DISCREPANT
    assert state({1: "1", 2: "2.5"}, tolerance="1").status == DISCREPANT


def test_spread_is_max_minus_min_over_all_jurors():
    cell = state({1: "1", 2: "3", 3: "2"}, expected=3, step="1")
    assert cell.status == DISCREPANT
    assert cell.spread == D("2")


def test_three_jurors_within_tolerance_agree_on_their_rounded_mean():
    # mean 4/3 = 1.33..., in steps of 0.5: 2.67 steps -> 3 steps -> 1.5
    cell = state({1: "1", 2: "1", 3: "2"}, expected=3, tolerance="1", step="0.5")
    assert cell.status == AGREED
    assert cell.final == D("1.5")


# --- decided ---------------------------------------------------------------------------------


def test_decision_settles_a_discrepancy():
    cell = state({1: "2", 2: "0"}, decision="1")
    assert cell == CellState(DECIDED, D("1"), D("2"))
    assert cell.resolved


def test_decision_of_zero_counts_as_a_decision():
    cell = state({1: "2", 2: "0"}, decision="0")
    assert cell.status == DECIDED
    assert cell.final == D("0")


def test_decision_settles_a_cell_nobody_has_submitted():
    cell = state({}, expected=2, decision="1.5")
    assert cell.status == DECIDED
    assert cell.final == D("1.5")
    assert cell.spread is None


def test_decision_overrides_agreeing_marks():
    cell = state({1: "2", 2: "2"}, decision="1.5")
    assert cell.status == DECIDED
    assert cell.final == D("1.5")


# --- agreed_value ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("marks", "step", "expected"),
    [
        (["1.5", "2.0"], "0.5", "2.0"),  # 1.75 = 3.5 steps -> 4 steps (half up)
        (["1", "2"], "1", "2"),  # 1.5 -> 2 (half up, not to even)
        (["2", "3"], "1", "3"),  # 2.5 -> 3 (half up; banker's rounding would give 2)
        (["0", "1"], "1", "1"),  # 0.5 -> 1
        (["1", "2"], "0.5", "1.5"),  # exact
        (["0.5", "1.0"], "0.5", "1.0"),  # 0.75 = 1.5 steps -> 2 steps
        (["0", "0.5"], "0.5", "0.5"),  # 0.25 = 0.5 steps -> 1 step
        (["2", "2.25"], "0.25", "2.25"),  # 2.125 = 8.5 steps -> 9 steps
        (["1", "1", "2"], "0.5", "1.5"),  # 1.33 -> 1.5
        (["1", "2", "2"], "0.5", "1.5"),  # 1.67 = 3.33 steps -> 3 steps
        (["3"], "0.5", "3"),
        (["0", "0"], "0.5", "0"),
    ],
)
def test_agreed_value_is_the_mean_rounded_half_up_to_the_step(marks, step, expected):
    value = agreed_value([D(m) for m in marks], D(step))
    assert value == D(expected)
    assert value % D(step) == 0


def test_agreed_value_never_leaves_the_range_of_the_marks():
    for a in range(0, 7):
        for b in range(a, 7):
            marks = [D(a) / 2, D(b) / 2]
            value = agreed_value(marks, D("0.5"))
            assert min(marks) <= value <= max(marks), marks

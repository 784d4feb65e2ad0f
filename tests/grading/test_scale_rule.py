"""The jury's scale, its one rule (grading.scale): where it comes from, what it says, which
thresholds fit it, and what a change of rubrics or scale does to them. No database."""

from __future__ import annotations

from decimal import Decimal as D

import pytest

from grading.errors import GradingError
from grading.scale import JuryScale, scale_moves, scale_points_check, thresholds_check

FIVE_OF_15 = tuple((n, D(15)) for n in range(1, 6))  # docs/run-a-real-jury.md's rubrics: 75 in all


def ladder(gold, silver, bronze=None, mention=None) -> dict:
    values = {"gold": gold, "silver": silver, "bronze": bronze, "honourable_mention": mention}
    return {k: None if v is None else D(str(v)) for k, v in values.items()}


def scale(set_points=None, problems=FIVE_OF_15, **thresholds) -> JuryScale:
    given = ladder(**thresholds) if thresholds else ladder(None, None)
    return JuryScale(
        set_points=None if set_points is None else D(str(set_points)),
        problems=problems,
        thresholds=tuple(given.items()),
    )


def test_the_scale_is_the_sum_of_the_rubrics_unless_an_organizer_sets_it():
    assert (scale().points, scale().explicit, scale().text) == (
        D(75),
        False,
        "75 (the sum of the rubrics' maxima)",
    )
    assert (scale(100).points, scale(100).explicit, scale(100).text) == (
        D(100),
        True,
        "100 (set by an organizer)",
    )


def test_a_problem_without_a_rubric_adds_nothing_and_is_named():
    partial = scale(problems=((1, D(15)), (2, None), (3, D("12.5")), (4, None)))
    assert partial.points == D("27.5") and partial.missing == (2, 4)
    assert partial.warnings == (
        "Problems 2, 4 have no rubric yet: the scale, the sum of the rubrics' maxima, grows "
        "when they get one.",
    )


def test_without_rubric_or_organizer_there_is_no_scale():
    none = scale(problems=((1, None),))
    assert none.points is None
    assert none.text == "not set yet (no problem has a rubric and no organizer set it)"
    assert none.warnings[0].startswith("The jury has no scale yet: import the rubrics")


def test_an_organizers_scale_that_differs_from_the_rubrics_is_said():
    assert scale(100).warnings == (
        "The rubrics add up to 75 points but the scale, set by an organizer, is 100: no total "
        "can reach it; set it to the rubrics' sum (competition page or set_scale "
        "--from-rubrics) unless that is meant.",
    )
    assert "totals can exceed it" in scale(60).warnings[0]
    assert scale(75).warnings == ()


def test_a_threshold_above_the_scale_is_not_applied_and_says_how_to_fix_it():
    s = scale(gold=80, silver=60, bronze=40)
    assert s.above == (("gold", D(80)),)
    assert s.applied() == {
        "gold": None,
        "silver": D(60),
        "bronze": D(40),
        "honourable_mention": None,
    }
    assert s.warnings == (
        "The gold threshold 80 is above the jury's scale, 75 (the sum of the rubrics' maxima): "
        "no gold is given until you set the thresholds again (competition page or "
        "set_thresholds) or set the scale (competition page or set_scale).",
    )
    assert s.not_applied == ("gold",)
    assert s.thresholds_text == (
        "gold 80 (not applied), silver 60, bronze 40, honourable mention —"
    )


def test_thresholds_within_the_scale_pass():
    thresholds_check(scale(), ladder(75, 60, 45, "0"))
    thresholds_check(scale(100), ladder(100, "99.99"))


@pytest.mark.parametrize(
    ("jury", "given", "message", "field"),
    [
        pytest.param(
            scale(),
            ladder(80, 60),
            "gold threshold 80 is outside 0..75, the jury's scale (the sum of the rubrics' maxima)",
            "gold",
            id="80-of-75-from-rubrics",
        ),
        pytest.param(
            scale(60),
            ladder(50, 40, 61),
            "bronze threshold 61 is outside 0..60, the jury's scale (set by an organizer)",
            "bronze",
            id="above-an-organizers-scale",
        ),
        pytest.param(
            scale(),
            ladder(60, -1),
            "silver threshold -1 is outside 0..75, the jury's scale (the sum of the rubrics' "
            "maxima)",
            "silver",
            id="negative",
        ),
        pytest.param(
            scale(),
            ladder(50, 60),
            "silver threshold 60 is above gold threshold 50",
            "silver",
            id="not-descending",
        ),
        pytest.param(
            scale(),
            ladder("12.345", 10),
            "gold threshold 12.345 has more than 2 decimals",
            "gold",
            id="three-decimals",
        ),
        pytest.param(
            scale(),
            ladder(None, 10),
            "the gold threshold is required",
            "gold",
            id="no-gold",
        ),
    ],
)
def test_thresholds_that_leave_the_scale_are_refused_naming_it(jury, given, message, field):
    with pytest.raises(GradingError) as caught:
        thresholds_check(jury, given)
    assert (caught.value.message, caught.value.field) == (message, field)


def test_thresholds_without_a_scale_are_refused_with_the_fix():
    with pytest.raises(GradingError, match="has no scale to fit: The jury has no scale yet"):
        thresholds_check(scale(problems=((1, None),)), ladder(20, 10))


@pytest.mark.parametrize("points", ["0", "-5", "100000", "NaN", "Infinity", "1.005"])
def test_a_scale_is_positive_points(points):
    with pytest.raises(GradingError) as caught:
        scale_points_check(D(points))
    assert caught.value.field == "points"


def test_rubrics_that_shrink_the_scale_name_the_thresholds_left_above_it():
    before = scale(problems=FIVE_OF_15[:4] + ((5, D(20)),), gold=78, silver=60)
    after = scale(gold=78, silver=60)
    assert scale_moves(before, after) == [
        "the jury's scale moves from 80 to 75 (the sum of the rubrics' maxima)",
        "the gold threshold 78 is then above the scale: no gold is given until you set the "
        "thresholds again (competition page or set_thresholds) or set the scale (competition "
        "page or set_scale)",
        "the thresholds silver 60 stay as they were set: check them against the new scale",
    ]
    assert (
        scale_moves(after, before)[1] == "the gold threshold 78 fits the scale again and is applied"
    )


def test_rubrics_under_an_organizers_scale_leave_it_and_say_so():
    before = scale(100, gold=80, silver=60)
    after = scale(100, problems=FIVE_OF_15[:4] + ((5, D(20)),), gold=80, silver=60)
    assert scale_moves(before, after) == [
        "the rubrics' total moves from 75 to 80; the jury's scale stays 100 (set by an organizer)"
    ]


def test_first_rubrics_give_the_scale():
    before = scale(problems=((1, None), (2, None)))
    after = scale(problems=((1, D(15)), (2, None)))
    assert scale_moves(before, after) == [
        "the jury's scale becomes 15 (the sum of the rubrics' maxima)"
    ]
    assert scale_moves(after, after) == []

"""The explanation screen: missing, empty, duplicated across tasks, templated."""

from __future__ import annotations

import pytest

from grading.review.stats import explanation_screen
from grading.review.stats.explanations import is_blank, is_templated, normalize


def test_screen_sorts_each_problem_into_its_kind():
    got = explanation_screen(
        [
            "The suffix -ka marks the plural.",  # 0: fine
            None,  # 1: missing
            "   ",  # 2: empty
            "I used the examples.",  # 3: duplicated with 4
            "I  used the EXAMPLES",  # 4: same text once normalized
            "See above. See above. See above.",  # 5: templated
            "—",  # 6: empty (no letter or digit)
        ]
    )
    assert got.n == 7
    assert got.missing == (1,)
    assert got.empty == (2, 6)
    assert got.duplicated == (3, 4)
    assert got.templated == (5,)
    assert got.flagged == (1, 2, 3, 4, 5, 6)
    assert got.share("missing") == pytest.approx(1 / 7)
    assert got.share("flagged") == pytest.approx(6 / 7)


def test_a_text_can_be_both_duplicated_and_templated():
    text = "Same rule. Same rule."
    got = explanation_screen([text, text, "Other."])
    assert got.duplicated == (0, 1)
    assert got.templated == (0, 1)
    assert got.flagged == (0, 1)


def test_no_explanations_no_shares():
    got = explanation_screen([])
    assert got.n == 0
    assert got.share("missing") is None


@pytest.mark.parametrize(
    ("text", "templated"),
    [
        ("The verb agrees with the subject.", False),  # one sentence
        ("Rule A. Rule A.", True),
        ("Rule A.\nRule A.\nRule B.", True),  # 2 of 3 sentences the same
        ("Rule A. Rule A. Rule B. Rule C.", False),  # 2 of 4: not most
        ("Rule A! rule a? Rule B.", True),  # compared after normalizing
        ("First the stem. Then the suffix. Then the tone.", False),
    ],
)
def test_templated_rule(text, templated):
    assert is_templated(text) is templated


def test_normalize_and_blank():
    assert normalize("  Hello,\n  WORLD!  ") == "hello, world"
    assert normalize("ﬁne") == "fine"  # NFKC
    assert is_blank(" ... - ")
    assert not is_blank("0")

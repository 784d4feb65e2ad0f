"""The scoring rule as pure functions: normalisation, parsing, EM, chrF, aggregation."""

from __future__ import annotations

import math

import pytest

from puzzles.metrics import (
    aggregate,
    chrf_iol,
    chrf_sacrebleu,
    exact_match,
    normalize,
    parse_prediction,
    score_items,
)

# --- normalize --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("e\u0301te\u0301", "\u00e9t\u00e9"),  # NFC composes e + combining acute
        ("it\u2019s", "it's"),
        ("\u2018tovak\u2019", "tovak"),  # curly quotes become ' and then surround the item
        ('"in my tree"', "in my tree"),
        ("'  dogs '", "dogs"),
        ("  \"'x'\"  ", "'x'"),  # only one pair of surrounding quotes is dropped
        ("\"x'", "\"x'"),  # different quote characters are kept
        ('"', '"'),  # a lone quote is not a pair
        ('""', ""),
        ("  The   Dog\n\tRuns ", "the dog runs"),
        ("I saw...", "i saw"),
        ("a. b.", "a. b"),
        (" x . ", "x"),
        ('"I saw."', "i saw"),  # quotes go first, then the full stop
        ('"I saw".', '"i saw"'),  # the full stop hides the closing quote from quote removal
        ("", ""),
        ("   ", ""),
    ],
)
def test_normalize(text, expected):
    assert normalize(text) == expected


# --- parse_prediction -------------------------------------------------------------------


@pytest.mark.parametrize("text", [None, "", "   ", " \n\t\n "])
def test_parse_blank_prediction_gives_empty_items(text):
    parsed = parse_prediction(text, 3)
    assert parsed.items == ["", "", ""]
    assert parsed.empty is True
    assert parsed.clean_json_list is False
    assert parsed.n_items_parsed == 0
    assert parsed.item_count_matches is False


def test_parse_json_list_with_null_and_numbers():
    parsed = parse_prediction('  [" a ", null, 3, 4.5]  ', 4)
    assert parsed.items == ["a", "", "3", "4.5"]
    assert parsed.clean_json_list is True
    assert parsed.empty is False
    assert parsed.n_items_parsed == 4
    assert parsed.item_count_matches is True


def test_parse_empty_json_list_is_clean_but_parses_no_items():
    parsed = parse_prediction("[]", 2)
    assert parsed.items == ["", ""]
    assert parsed.clean_json_list is True
    assert parsed.empty is False
    assert parsed.n_items_parsed == 0


@pytest.mark.parametrize(
    ("text", "items"),
    [
        ('{"answers": ["a"]}', ['{"answers": ["a"]}']),
        ('"tovak"', ['"tovak"']),
        ("42", ["42"]),
        ("[tovak, mirelu]", ["[tovak, mirelu]"]),  # not JSON: one line
    ],
)
def test_parse_non_list_json_is_split_into_lines(text, items):
    parsed = parse_prediction(text, 1)
    assert parsed.items == items
    assert parsed.clean_json_list is False
    assert parsed.n_items_parsed == 1


def test_parse_numbered_lines():
    parsed = parse_prediction("1. dog\n2) cat\n\n3.house\n10)   tree  \n", 4)
    assert parsed.items == ["dog", "cat", "house", "tree"]
    assert parsed.n_items_parsed == 4
    assert parsed.clean_json_list is False
    assert parsed.item_count_matches is True


def test_parse_plain_lines_drop_blank_lines():
    parsed = parse_prediction("dog\n\n   \ncat", 2)
    assert parsed.items == ["dog", "cat"]
    assert parsed.n_items_parsed == 2


def test_parse_pads_short_predictions():
    parsed = parse_prediction('["a"]', 3)
    assert parsed.items == ["a", "", ""]
    assert parsed.n_items_parsed == 1
    assert parsed.item_count_matches is False


def test_parse_cuts_long_predictions():
    parsed = parse_prediction("1. a\n2. b\n3. c", 2)
    assert parsed.items == ["a", "b"]
    assert parsed.n_items_parsed == 3
    assert parsed.item_count_matches is False


def test_parse_flags():
    assert parse_prediction('["a", "b"]', 2).flags() == {
        "empty": False,
        "clean_json_list": True,
        "n_items_parsed": 2,
        "item_count_matches": True,
    }
    assert parse_prediction("a", 2).flags() == {
        "empty": False,
        "clean_json_list": False,
        "n_items_parsed": 1,
        "item_count_matches": False,
    }


# --- exact_match ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("prediction", "gold", "expected"),
    [
        (" Dogs. ", "dogs", 1.0),
        ("\u2018in my tree\u2019", "In my tree", 1.0),
        ("dog", "dogs", 0.0),
        ("", "", 0.0),  # an empty gold never matches
        ("x", "", 0.0),
        ("", "   ", 0.0),
        ("...", ".", 0.0),  # both normalise to "" and the gold is empty
    ],
)
def test_exact_match(prediction, gold, expected):
    assert exact_match(prediction, gold) == expected


# --- chrF -------------------------------------------------------------------------------


def test_chrf_iol_identical_is_one():
    assert chrf_iol("kiriham sul", "kiriham sul") == 1.0


def test_chrf_iol_ignores_spaces():
    assert chrf_iol("kiriham ba", "kirihamba") == 1.0


def test_chrf_iol_disjoint_is_zero():
    assert chrf_iol("abc", "xyz") == 0.0


def test_chrf_iol_empty_strings():
    assert chrf_iol("", "") == 1.0
    assert chrf_iol("   ", " ") == 1.0  # spaces are deleted first
    assert chrf_iol("", "abc") == 0.0
    assert chrf_iol("abc", "") == 0.0


def test_chrf_iol_hand_computed_short_hypothesis():
    # hyp "ab": 1-grams a b, 2-grams ab; ref "abc": a b c / ab bc / abc.
    # P = mean(2/2, 1/1) = 1 (no 3-grams in the hypothesis, so no precision term);
    # R = mean(2/3, 1/2, 0/1) = 7/18; F = 5 P R / (4 P + R) = 35/79.
    assert chrf_iol("ab", "abc") == pytest.approx(35 / 79, abs=1e-12)


def test_chrf_iol_hand_computed_one_letter_off():
    # P = R = mean(5/6, 4/5, 3/4, 2/3, 1/2, 0/1), so F = P.
    expected = (5 / 6 + 4 / 5 + 3 / 4 + 2 / 3 + 1 / 2 + 0) / 6
    assert chrf_iol("abcdeg", "abcdef") == pytest.approx(expected, abs=1e-12)


def test_chrf_iol_counts_ngrams_as_multisets():
    # hyp "aa": 1-grams a a, 2-gram aa; ref "a": 1-gram a. One 1-gram match.
    # P = mean(1/2, 0/1) = 1/4; R = mean(1/1) = 1; F = 5 * 1/4 / (4 * 1/4 + 1) = 5/8.
    assert chrf_iol("aa", "a") == pytest.approx(5 / 8, abs=1e-12)


def test_chrf_sacrebleu_differs_from_iol():
    assert chrf_sacrebleu("ab", "abc") != pytest.approx(chrf_iol("ab", "abc"), abs=1e-3)
    assert chrf_sacrebleu("dog", "dogs") != pytest.approx(chrf_iol("dog", "dogs"), abs=1e-3)


def test_chrf_sacrebleu_bounds_and_empty_rule():
    assert chrf_sacrebleu("kiriham sul", "kiriham sul") == pytest.approx(1.0)
    assert chrf_sacrebleu("", "") == 1.0
    assert chrf_sacrebleu("", "abc") == 0.0
    assert chrf_sacrebleu("abc", " ") == 0.0
    assert 0.0 <= chrf_sacrebleu("tovak", "mirelu") <= 1.0


# --- score_items ------------------------------------------------------------------------


def test_score_items_single_answers():
    row = score_items(["Dogs.", "house", ""], [["dogs"], ["your house"], ["in my tree"]])
    assert row.item_em == [1.0, 0.0, 0.0]
    assert row.item_chrf[0] == 1.0
    assert row.item_chrf[1] == round(chrf_iol("house", "your house"), 6)
    assert row.item_chrf[2] == 0.0
    assert row.em == pytest.approx(1 / 3)
    assert row.chrf == pytest.approx(sum(row.item_chrf) / 3, abs=1e-6)


def test_score_items_missing_items_count_as_empty():
    row = score_items(["dogs"], [["dogs"], ["house"]])
    assert row.item_em == [1.0, 0.0]
    assert row.item_chrf == [1.0, 0.0]
    assert row.em == 0.5


@pytest.mark.parametrize(
    "alternatives", [["he ate", "she ate"], ["she ate", "he ate"]], ids=["second", "first"]
)
def test_score_items_alternatives_exact_match_takes_max(alternatives):
    row = score_items(["She ate."], [alternatives])
    assert row.item_em == [1.0]
    assert row.item_chrf == [1.0]


@pytest.mark.parametrize(
    "alternatives", [["xyz", "abcdef"], ["abcdef", "xyz"]], ids=["best-last", "best-first"]
)
def test_score_items_alternatives_chrf_takes_max_without_exact_match(alternatives):
    row = score_items(["abcdeg"], [alternatives])
    assert row.item_em == [0.0]
    assert row.item_chrf == [round(chrf_iol("abcdeg", "abcdef"), 6)]


def test_score_items_alternatives_max_taken_separately():
    # Item 1 matches its first alternative exactly; item 2 matches none, and its chrF is the
    # best over its alternatives even though the EM maximum (0) comes from every one of them.
    key = [["ab", "abcdef"], ["zzz", "abcdef"]]
    row = score_items(["ab", "abcdeg"], key)
    assert row.item_em == [1.0, 0.0]
    assert row.item_chrf == [1.0, round(chrf_iol("abcdeg", "abcdef"), 6)]
    assert row.em == 0.5


def test_score_items_sacrebleu_metric_keeps_exact_match():
    iol = score_items(["dog"], [["dogs"]], "iol2026")
    sb = score_items(["dog"], [["dogs"]], "sacrebleu")
    assert iol.item_em == sb.item_em == [0.0]
    assert sb.item_chrf == [round(chrf_sacrebleu("dog", "dogs"), 6)]
    assert sb.chrf != pytest.approx(iol.chrf, abs=1e-3)


def test_score_items_empty_key():
    row = score_items(["x"], [])
    assert (row.em, row.chrf, row.item_em, row.item_chrf) == (0.0, 0.0, [], [])


# --- aggregate --------------------------------------------------------------------------


def test_aggregate_weighted_means_and_geometric_mean():
    result = aggregate([(2, 1.0, 0.5), (1, 0.0, 0.2)])
    assert result.exact_match == 0.6667
    assert result.chrf == 0.4
    # The score is the geometric mean of the unrounded means.
    assert result.score == round(math.sqrt((2 / 3) * 0.4), 4) == 0.5164
    assert result.n_rows == 2
    assert result.as_tuple() == (0.5164, 0.6667, 0.4)


def test_aggregate_zero_weight_rows_do_not_count():
    result = aggregate([(1, 1.0, 1.0), (0, 0.0, 0.0)])
    assert (result.exact_match, result.chrf, result.score) == (1.0, 1.0, 1.0)
    assert result.n_rows == 2


def test_aggregate_rounds_to_four_decimals():
    result = aggregate([(1, 1.0, 0.123456), (1, 0.0, 0.0), (1, 0.0, 0.0)])
    assert result.exact_match == 0.3333
    assert result.chrf == 0.0412
    assert result.score == round(math.sqrt((1 / 3) * (0.123456 / 3)), 4)


@pytest.mark.parametrize("rows", [[], [(0, 1.0, 1.0), (0, 0.5, 0.5)]], ids=["none", "zero"])
def test_aggregate_without_weight_is_zero(rows):
    result = aggregate(rows)
    assert (result.exact_match, result.chrf, result.score) == (0.0, 0.0, 0.0)
    assert result.n_rows == len(rows)

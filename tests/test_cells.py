"""ioleval.cells: the cells every importer reads one way, each refusal naming file, line and
field and quoting a long cell cut short; ioleval.wording.plural."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from ioleval.cells import MAX_INT, boolean, moment, natural, number, shown
from ioleval.errors import ImportFailure
from ioleval.wording import plural

WHERE = {"file": "runs.csv", "line": 4}


def _refusal(read, *args, **kwargs) -> str:
    with pytest.raises(ImportFailure) as caught:
        read(*args, **kwargs, **WHERE)
    return str(caught.value)


def test_a_refusal_quotes_a_long_cell_cut_short():
    assert shown("  12345  ") == "12345"
    assert shown("x" * 30) == "x" * 20 + "…"
    assert shown("abcdef", 3) == "abc…" and shown(None) == ""
    message = _refusal(number, "9" * 400 + "x", field="public")
    assert message == f"runs.csv, line 4, field 'public': '{'9' * 20}…' is not a number"


def test_numbers_are_finite_and_empty_is_none():
    assert number(" 0.25 ", field="f") == 0.25 and number("", field="f") is None
    for bad in ("nan", "inf", "-Infinity", "1e999", "a"):
        assert "is not a number" in _refusal(number, bad, field="f")


def test_whole_numbers_are_ascii_digits_up_to_the_databases_limit():
    assert natural(str(MAX_INT), field="run", what="a run index") == MAX_INT
    for bad in ("²", "-1", str(MAX_INT + 1), "1" * 5000, ""):
        message = _refusal(natural, bad, field="run", what="a run index")
        assert f"is not a run index (a whole number from 0 to {MAX_INT})" in message


def test_booleans_and_what_an_empty_cell_means():
    assert [boolean(t, field="f") for t in ("1", "TRUE", " yes ")] == [True] * 3
    assert [boolean(t, field="f") for t in ("0", "False", "no")] == [False] * 3
    assert boolean(" ", field="selected", empty=False) is False
    assert "field 'correct': '' is not a boolean" in _refusal(boolean, "", field="correct")
    assert "'maybe' is not a boolean (use 1/0" in _refusal(boolean, "maybe", field="f")


def test_dates_and_times_are_iso_8601_in_utc_without_a_zone():
    assert moment("2026-03-01T14:05:00Z", field="t") == datetime(2026, 3, 1, 14, 5, tzinfo=UTC)
    assert moment("2026-03-01 14:05", field="t").tzinfo is UTC
    assert "is not an ISO 8601 date and time" in _refusal(moment, "01/03/2026", field="t")


def test_plural():
    assert plural(1, "cell") == "1 cell" and plural(0, "cell") == "0 cells"
    assert plural(2, "criterion", "criteria") == "2 criteria"

"""Reading CSV with line numbers: blank lines, duplicated columns, short and long rows."""

from __future__ import annotations

import io

import pytest

from puzzles.errors import ImportFailure
from puzzles.tabular import csv_rows


def rows(text: str, required=("a", "b"), optional=()):
    return list(csv_rows(io.StringIO(text), file="t.csv", required=required, optional=optional))


def failure(text: str, **kwargs) -> ImportFailure:
    with pytest.raises(ImportFailure) as caught:
        rows(text, **kwargs)
    return caught.value


def test_rows_are_named_by_their_line_even_after_blank_lines():
    text = "a,b\n1,2\n\n\n3,4\n,,\n5,6\n"
    assert rows(text) == [
        (2, {"a": "1", "b": "2"}),
        (5, {"a": "3", "b": "4"}),
        (7, {"a": "5", "b": "6"}),
    ]


def test_an_error_after_blank_lines_names_the_right_line():
    error = failure("a,b\n1,2\n\n\n3\n")
    assert (error.line, error.field, error.message) == (5, "b", "the row is too short")


def test_a_multi_line_field_names_the_line_its_row_starts_on():
    assert [line for line, _ in rows('a,b\n1,"x\ny"\n2,3\n')] == [2, 4]


def test_blank_lines_before_the_header_are_skipped():
    assert rows("\n\na,b\n1,2\n") == [(4, {"a": "1", "b": "2"})]


def test_a_duplicated_column_is_refused():
    error = failure("a,b,b\n1,2,3\n")
    assert (error.line, error.field) == (1, "b")
    assert "appears twice" in error.message


@pytest.mark.parametrize("text", ["", "\n\n", ",,\n"])
def test_an_empty_file_says_so(text):
    assert "the file is empty" in failure(text).message


def test_extra_fields_and_missing_columns_are_named():
    error = failure("a,b\n1,2,3\n")
    assert (error.line, error.field) == (2, "(extra after b)")
    error = failure("a,c\n1,2\n")
    assert (error.line, error.field) == (1, "b")


def test_optional_columns_of_a_short_row_are_none():
    assert rows("a,b,c\n1,2\n", optional=("c",)) == [(2, {"a": "1", "b": "2", "c": None})]

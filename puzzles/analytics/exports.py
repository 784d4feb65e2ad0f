"""The analytics' tables as CSV and XLSX (text cells neutralized: ioleval.spreadsheet)."""

from __future__ import annotations

from ioleval.spreadsheet import csv_text, xlsx_bytes


def table_file(header: list[str], rows: list[list[object]], fmt: str, *, title: str):
    """Return the table as CSV text (fmt "csv") or XLSX bytes (fmt "xlsx")."""
    if fmt == "xlsx":
        return xlsx_bytes(header, rows, title=title, freeze_panes="B2")
    return csv_text(header, rows)

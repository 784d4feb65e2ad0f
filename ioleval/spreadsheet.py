"""CSV and XLSX files that carry untrusted text without letting a spreadsheet run it.

A cell whose text starts with `=`, `+`, `-`, `@`, a tab or a carriage return is read as a
formula by spreadsheet programs (OWASP's "CSV injection"). Every export of the app writes
its tables through this module:

- CSV: every text cell is quoted (numbers are not), and a text cell that starts with a
  trigger character, or with single quotes followed by one, gets one more `'` in front.
  `csv_cell_read` takes exactly that quote off again, so a file imports back to the text
  that was exported, a text that really starts with `'=` included.
- XLSX: text is stored as text (never as a formula or an error value) and its cell is
  marked quote-prefixed, so that editing it in a spreadsheet keeps it text; numbers stay
  numbers. Characters that XML cannot carry become U+FFFD instead of failing the export.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Sequence

from openpyxl import Workbook
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
# Text the CSV export prefixes: a trigger, after any number of single quotes.
_PREFIXED = re.compile(r"'*[=+\-@\t\r]")


def formula_like(text: str) -> bool:
    """Return whether a spreadsheet would read the text as a formula."""
    return text.startswith(FORMULA_TRIGGERS)


def csv_cell(value: object) -> object:
    """Return the value as the CSV export writes it: text neutralized, numbers untouched."""
    if isinstance(value, str) and _PREFIXED.match(value):
        return "'" + value
    return value


def csv_cell_read(text: str) -> str:
    """Undo csv_cell: drop the one quote it puts before (quotes and) a trigger character."""
    if text.startswith("'") and _PREFIXED.match(text, 1):
        return text[1:]
    return text


def csv_text(
    header: Sequence[object], rows: Iterable[Sequence[object]], *, lineterminator: str = "\r\n"
) -> str:
    """Render a table as CSV with every text cell quoted and neutralized, numbers bare."""
    buffer = io.StringIO()
    # Quoting all text also keeps a `;` inside a cell from splitting it where a
    # spreadsheet's list separator is `;`.
    writer = csv.writer(buffer, quoting=csv.QUOTE_NONNUMERIC, lineterminator=lineterminator)
    writer.writerow([csv_cell(v) for v in header])
    writer.writerows([csv_cell(v) for v in row] for row in rows)
    return buffer.getvalue()


def xlsx_bytes(
    header: Sequence[object],
    rows: Iterable[Sequence[object]],
    *,
    title: str,
    freeze_panes: str | None = None,
) -> bytes:
    """Render a table as a one-sheet XLSX workbook whose text cells are never formulas."""
    workbook = Workbook()
    sheet = workbook.active
    sheet.title = title[:31]
    for row in (header, *rows):
        sheet.append([_xlsx_value(v) for v in row])
    for cells in sheet.iter_rows():
        for cell in cells:
            if isinstance(cell.value, str):
                # openpyxl makes "=..." a formula and "#N/A" an error value: keep both text.
                cell.data_type = "s"
                if formula_like(cell.value):
                    cell.quotePrefix = True
    if freeze_panes:
        sheet.freeze_panes = freeze_panes
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


def _xlsx_value(value: object) -> object:
    if isinstance(value, str):
        return ILLEGAL_CHARACTERS_RE.sub("\ufffd", value)
    return value

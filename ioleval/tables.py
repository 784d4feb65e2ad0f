"""Tables as downloads: one response for every CSV or XLSX export, one path converter.

A page's export is a header and rows; `table_response` writes them in the format its URL
asks for, through `ioleval.spreadsheet` (text never a formula). The URLs name the format
with the `fmt` converter (`leaderboard.<fmt:fmt>`), registered once at start-up
(`ioleval.apps.IolevalConfig.ready`): any other extension is no URL of ours, a 404 before
any view runs, so no view checks the format itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.http import Http404, HttpResponse

from .http import XLSX, attachment
from .spreadsheet import csv_text, xlsx_bytes

CSV = "text/csv; charset=utf-8"
FORMATS = {"csv": CSV, "xlsx": XLSX}


class TableFormatConverter:
    """The format of a table download in its URL: csv or xlsx."""

    regex = "|".join(FORMATS)

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


def table_response(
    header: Sequence[object],
    rows: Iterable[Sequence[object]],
    fmt: str,
    *,
    name: str,
    title: str,
    freeze_panes: str | None = "B2",
) -> HttpResponse:
    """Return the table as a download named `name`.<fmt>: CSV text, or an XLSX workbook of
    one sheet titled `title` with its header (and, by default, first column) frozen.

    Another format is a 404 (the converter refuses it first; this is for a caller whose
    format does not come from a URL)."""
    if fmt not in FORMATS:
        raise Http404(f"formats: {', '.join(FORMATS)}")
    if fmt == "xlsx":
        content: bytes | str = xlsx_bytes(header, rows, title=title, freeze_panes=freeze_panes)
    else:
        content = csv_text(header, rows)
    return attachment(content, f"{name}.{fmt}", FORMATS[fmt])

"""Reading tabular input with line numbers: CSV rows, text files, JSON files.

Every error is an ImportFailure naming the file, the line a row starts on and the field.
"""

from __future__ import annotations

import csv
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TextIO

from .errors import ImportFailure
from .untrusted import json_parse

# Problem data and model explanations easily exceed csv's default 128 KiB field limit.
csv.field_size_limit(sys.maxsize)

# The cells pandas.read_csv reads as missing by default (pandas' STR_NA_VALUES, pandas 2 and
# 3). The IOL-AI 2026 scorer read submissions with read_csv and turned missing cells into
# "", so a cell that is exactly one of these (quoted or not; no whitespace around it) was an
# empty prediction or explanation. A test holds the list equal to the installed pandas'.
PANDAS_NA_VALUES = frozenset(
    {
        "",
        "#N/A",
        "#N/A N/A",
        "#NA",
        "-1.#IND",
        "-1.#QNAN",
        "-NaN",
        "-nan",
        "1.#IND",
        "1.#QNAN",
        "<NA>",
        "N/A",
        "NA",
        "NULL",
        "NaN",
        "None",
        "n/a",
        "nan",
        "null",
    }
)


def pandas_reads_missing(value: str | None) -> bool:
    """Return whether pandas.read_csv, with its defaults, reads this cell as missing."""
    return value is None or value in PANDAS_NA_VALUES


def csv_rows(
    stream: TextIO,
    *,
    file: str,
    required: tuple[str, ...],
    optional: tuple[str, ...] = (),
    header_check: Callable[[list[str], int], None] | None = None,
) -> Iterator[tuple[int, dict[str, str | None]]]:
    """Yield (line number, row) of a CSV, checking its header names the required columns.

    Blank lines (and rows of empty fields, as spreadsheets save them) are skipped but still
    counted, so a row is named by the line it starts on; a short row has None for the
    columns it lacks. `header_check(header, line)` may refuse a header (a file whose
    columns choose its form) by raising ImportFailure.
    """
    reader = csv.reader(stream, strict=True)
    start = 1
    try:
        header = next((r for r in reader if any(v.strip() for v in r)), None)
        if header is None:
            raise ImportFailure("the file is empty; expected a CSV header", file=file, line=1)
        header_line = reader.line_num
        header = [h.strip() for h in header]
        named = [h for h in header if h]
        twice = sorted({h for h in named if named.count(h) > 1})
        if twice:
            raise ImportFailure(
                f"column {twice[0]} appears twice in the header",
                file=file,
                line=header_line,
                field=twice[0],
            )
        missing = [c for c in required if c not in header]
        if missing:
            raise ImportFailure(
                f"missing column(s) {', '.join(missing)}; the header has {', '.join(named)}"
                f" (expected {', '.join(required + optional)})",
                file=file,
                line=header_line,
                field=missing[0],
            )
        if header_check is not None:
            header_check(header, header_line)
        # A quoted field may span lines: a row is named by the line it starts on.
        start = reader.line_num + 1
        for values in reader:
            if not any(v.strip() for v in values):
                start = reader.line_num + 1
                continue
            if len(values) > len(header):
                raise ImportFailure(
                    f"{len(values)} fields where the header has {len(header)}",
                    file=file,
                    line=start,
                    field=f"(extra after {header[-1]})",
                )
            row: dict[str, str | None] = dict.fromkeys(header)
            row.update(zip(header, values, strict=False))  # a short row keeps None
            nul = next((c for c, v in row.items() if v and "\x00" in v), None)
            if nul is not None:  # no text column (PostgreSQL's least of all) takes it
                raise ImportFailure("a NUL character", file=file, line=start, field=nul)
            absent = next((c for c in required if row[c] is None), None)
            if absent is not None:
                raise ImportFailure("the row is too short", file=file, line=start, field=absent)
            yield start, row
            start = reader.line_num + 1
    except csv.Error as exc:
        raise ImportFailure(
            f"malformed CSV in the row starting here ({exc})", file=file, line=start
        ) from None
    except UnicodeDecodeError:
        raise ImportFailure("not UTF-8 text", file=file, line=start) from None


def open_text(path: Path) -> TextIO:
    if not path.is_file():
        raise ImportFailure("no such file", file=str(path))
    return path.open(encoding="utf-8-sig", newline="")


def read_json(path: Path) -> object:
    try:
        with open_text(path) as handle:
            text = handle.read()
    except UnicodeDecodeError:
        raise ImportFailure("not UTF-8 text", file=str(path)) from None
    return json_parse(text, file=str(path))

"""Files imported within a web request: decoded one way, and past a size, refused before
they are read.

Every upload is UTF-8 text, a byte-order mark (as spreadsheets save CSV) dropped. A reader
that goes row by row (CSV, JSONL) takes `upload_stream` and names the line of a byte that is
not UTF-8 itself; a reader of the whole text (JSON, an accounts CSV) takes `upload_text` or
`text_decode`, which name the file and the line of the first such byte.

One rule for every import page whose file can be large (marks, system outputs, the IOL-AI
zip, runs and their outputs, probes, technique tags, automatic scores, contestants): a file
of more than IOLEVAL_WEB_IMPORT_MAX_ROWS rows, or IOLEVAL_WEB_IMPORT_MAX_BYTES bytes, is
refused with the management command that imports it, which has no time limit. A request
that imported it would outlast the web worker's timeout and end in a bare error
(benchmarks/HISTORY.md, marks_import.py: 10,290 marks).

Rows are what the import reads: a CSV's records (its header included; the line breaks of a
quoted field stay inside its record, as model explanations have many), a JSONL's lines; a
zip is limited by its bytes alone.
"""

from __future__ import annotations

import csv
import io
from typing import TextIO

from django import forms
from django.conf import settings
from django.core.files.uploadedfile import UploadedFile

from .errors import AppError, ImportFailure

CSV = "csv"
JSONL = "jsonl"
ZIP = "zip"
ENCODING = "utf-8-sig"  # UTF-8; a byte-order mark at the start is dropped


def upload_stream(upload: UploadedFile) -> TextIO:
    """Return the upload as text for a reader that goes row by row; line ends are left to
    the csv module (a quoted field keeps its own)."""
    return io.TextIOWrapper(upload.file, encoding=ENCODING, newline="")


def text_decode(data: bytes, *, file: str, error: type[AppError] = ImportFailure) -> str:
    """Return the bytes as text, or raise `error` ("not UTF-8 text") naming the file and the
    line of the first byte that is not UTF-8."""
    try:
        return data.decode(ENCODING)
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise error("not UTF-8 text", file=file, line=line) from None


def upload_text(upload: UploadedFile, *, error: type[AppError] = ImportFailure) -> str:
    """Return the whole upload as text (text_decode), its errors naming the upload."""
    return text_decode(upload.read(), file=upload.name or "upload", error=error)


def upload_size_check(upload: UploadedFile, *, command: str, kind: str | None) -> None:
    """Raise ValidationError for a file too large to import in a request, naming the command.

    `kind` says how its rows are counted (CSV, JSONL; ZIP: bytes only; None: not here, the
    form calls upload_rows_check once it knows the format). Counting stops past the limit;
    the file is left at its start for the import."""
    max_bytes = settings.IOLEVAL_WEB_IMPORT_MAX_BYTES
    if upload.size > max_bytes:
        raise forms.ValidationError(
            f"{upload.name} has {upload.size:,} bytes; a page imports up to {max_bytes:,} "
            f"(IOLEVAL_WEB_IMPORT_MAX_BYTES): {_use(command)}",
            code="too_large",
        )
    if kind in (CSV, JSONL):
        upload_rows_check(upload, command=command, kind=kind)


def upload_rows_check(upload: UploadedFile, *, command: str, kind: str) -> None:
    """Raise ValidationError for a CSV of more records, or a JSONL of more lines, than a page
    imports, naming the command; leave the file at its start."""
    max_rows = settings.IOLEVAL_WEB_IMPORT_MAX_ROWS
    counted = _records(upload, max_rows) if kind == CSV else _lines(upload, max_rows)
    upload.seek(0)
    if counted > max_rows:
        what = "rows" if kind == CSV else "lines"
        raise forms.ValidationError(
            f"{upload.name} has more than {max_rows:,} {what}; a page imports up to "
            f"{max_rows:,} (IOLEVAL_WEB_IMPORT_MAX_ROWS): {_use(command)}",
            code="too_large",
        )


def _use(command: str) -> str:
    return f"import it with `python manage.py {command}`, which has no time limit"


def _records(upload: UploadedFile, limit: int) -> int:
    """Count the CSV's records (blank lines aside), decoded as the imports decode it, up to
    one past limit."""
    upload.seek(0)
    stream = io.TextIOWrapper(upload.file, encoding=ENCODING, errors="replace", newline="")
    counted = 0
    try:
        for record in csv.reader(stream):
            counted += 1 if record else 0
            if counted > limit:
                break
    except csv.Error:  # a field past csv's size limit: the import says where, bounded by bytes
        pass
    finally:
        stream.detach()  # the upload stays open for the import
    return counted


def _lines(upload: UploadedFile, limit: int) -> int:
    """Count the file's line breaks, up to past limit."""
    upload.seek(0)
    counted = 0
    for chunk in upload.chunks():
        counted += chunk.count(b"\n")
        if counted > limit:
            break
    return counted


class ImportFileField(forms.FileField):
    """A file to import: refused past the web's size limits, with the command to use.

    `kind` (CSV, JSONL or ZIP) says how its rows are counted; None when another field of
    the form decides the format: the form's clean() then calls `rows_check`."""

    def __init__(self, *, command: str, kind: str | None, **kwargs) -> None:
        self.command = command
        self.kind = kind
        super().__init__(**kwargs)

    def clean(self, data, initial=None):
        upload = super().clean(data, initial)
        if upload:
            upload_size_check(upload, command=self.command, kind=self.kind)
        return upload

    def rows_check(self, upload: UploadedFile, *, kind: str) -> None:
        """Count the rows of an upload of this field whose format the form has decided."""
        upload_rows_check(upload, command=self.command, kind=kind)

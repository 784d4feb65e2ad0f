"""Files imported within a web request: past a size, refused before they are read.

One rule for every import page whose file can be large (marks, system outputs, the IOL-AI
zip, runs and their outputs, probes, technique tags, automatic scores, contestants): a file
of more than IOLEVAL_WEB_IMPORT_MAX_ROWS lines, or IOLEVAL_WEB_IMPORT_MAX_BYTES bytes, is
refused with the management command that imports it, which has no time limit. A request
that imported it would outlast the web worker's timeout and end in a bare error
(benchmarks/README.md, marks_import.py: 10,290 marks).
"""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.core.files.uploadedfile import UploadedFile


def upload_size_check(upload: UploadedFile, *, command: str, lines: bool = True) -> None:
    """Raise ValidationError for a file too large to import in a request, naming the command.

    Lines are counted as newlines (a CSV's header and a last line without one aside), and
    counting stops at the limit; the file is left at its start for the import."""
    max_bytes = settings.IOLEVAL_WEB_IMPORT_MAX_BYTES
    max_lines = settings.IOLEVAL_WEB_IMPORT_MAX_ROWS
    use = f"import it with `python manage.py {command}`, which has no time limit"
    if upload.size > max_bytes:
        raise forms.ValidationError(
            f"{upload.name} has {upload.size:,} bytes; a page imports up to {max_bytes:,} "
            f"(IOLEVAL_WEB_IMPORT_MAX_BYTES): {use}",
            code="too_large",
        )
    if not lines:
        return
    counted = 0
    for chunk in upload.chunks():
        counted += chunk.count(b"\n")
        if counted > max_lines:
            upload.seek(0)
            raise forms.ValidationError(
                f"{upload.name} has more than {max_lines:,} lines; a page imports up to "
                f"{max_lines:,} (IOLEVAL_WEB_IMPORT_MAX_ROWS): {use}",
                code="too_large",
            )
    upload.seek(0)


class ImportFileField(forms.FileField):
    """A file to import: refused past the web's size limits, with the command to use."""

    def __init__(self, *, command: str, lines: bool = True, **kwargs) -> None:
        self.command = command
        self.lines = lines
        super().__init__(**kwargs)

    def clean(self, data, initial=None):
        upload = super().clean(data, initial)
        if upload:
            upload_size_check(upload, command=self.command, lines=self.lines)
        return upload

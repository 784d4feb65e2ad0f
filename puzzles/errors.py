"""The error every import raises for bad input: it names the file, line and field."""

from __future__ import annotations

from ioleval.errors import AppError


class ImportFailure(AppError):
    """Bad input in an imported file; nothing was written."""

"""The error every import raises for bad input: it names the file, line and field.

It is the shared floor's (`ioleval.errors`), so that the accounts' CSV and any app's file
refuse the same way; the imports of `puzzles` keep importing it from here."""

from __future__ import annotations

from ioleval.errors import ImportFailure

__all__ = ["ImportFailure"]

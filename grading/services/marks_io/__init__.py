"""Marks in and out: CSV import (drafted elsewhere, or agreed final marks) and CSV/XLSX export.

One module per concern: `rows` reads and checks a marks file, `imports` writes what it
holds, `export` writes every mark out in the same columns.
"""

from .export import marks_csv, marks_rows, marks_xlsx
from .imports import MarksImport, marks_import

__all__ = ["MarksImport", "marks_csv", "marks_import", "marks_rows", "marks_xlsx"]

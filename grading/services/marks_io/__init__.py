"""Marks in and out: CSV import (drafted elsewhere, or agreed final marks) and CSV/XLSX export."""

from .imports import MarksImport, marks_csv, marks_import, marks_rows, marks_xlsx

__all__ = ["MarksImport", "marks_csv", "marks_import", "marks_rows", "marks_xlsx"]

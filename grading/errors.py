"""Errors of jury actions; views show them, commands exit non-zero with them."""

from __future__ import annotations

from puzzles.errors import ImportFailure


class GradingError(ImportFailure):
    """A jury action that is not allowed or not valid; nothing was changed."""

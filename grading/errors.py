"""Errors of jury actions; views show them, commands exit non-zero with them."""

from __future__ import annotations

from ioleval.errors import AppError


class GradingError(AppError):
    """A jury action that is not allowed or not valid; nothing was changed."""

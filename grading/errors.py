"""Errors of jury actions; views show them, commands exit non-zero with them."""

from __future__ import annotations

from ioleval.errors import AppError


class GradingError(AppError):
    """A jury action that is not allowed or not valid; nothing was changed."""


class JuryBusy(GradingError):
    """A save that waited past its bound for the problem's jury row: nothing was stored, and
    the same save may be sent again."""

    MESSAGE = "the jury is busy (an import or a new rubric version): try again"

    def __init__(self) -> None:
        super().__init__(self.MESSAGE, field="points")

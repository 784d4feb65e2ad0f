"""What the automatic side asks of the jury, without importing it.

`puzzles` comes first and never imports `grading`; where a puzzles page needs the jury's
state, it asks here, and `grading` answers: its AppConfig registers its own functions at
start-up (`grading.apps.GradingConfig.ready`). Without a jury app installed, the answers are
those of a competition no jury grades."""

from __future__ import annotations

from collections.abc import Callable

from .models import Competition


def _nothing_graded(competition: Competition) -> bool:
    return False


_still_grading: Callable[[Competition], bool] = _nothing_graded


def register(*, still_grading: Callable[[Competition], bool]) -> None:
    """Called by the jury app: how to tell whether its jury still grades a competition."""
    global _still_grading
    _still_grading = still_grading


def jury_still_grading(competition: Competition) -> bool:
    """Whether a problem given to the jury is not finalized yet."""
    return _still_grading(competition)

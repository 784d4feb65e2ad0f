"""What the jury's writes announce once they have committed, to whoever listens.

The writes (grading/services/) know nothing of their listeners: the result review refreshes
itself after a finalization because grading/apps.py connects it here.
"""

from __future__ import annotations

from django.db import transaction
from django.dispatch import Signal

# Sent with problem= (a puzzles Problem) once its finalization has committed.
problem_finalized = Signal()


def announce_on_commit(signal: Signal, *, sender, **kwargs) -> None:
    """Send signal once the current transaction commits; a listener that fails then is logged
    (Django's robust on_commit), never an error of the write, which has committed."""

    def announce() -> None:
        signal.send(sender=sender, **kwargs)

    transaction.on_commit(announce, robust=True)

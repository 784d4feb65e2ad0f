"""The chair's side: tolerance, finalizing a problem."""

from __future__ import annotations

from decimal import Decimal

from django.db import transaction
from django.utils import timezone

from puzzles.models import Problem

from ..access import chair_refusal
from ..errors import GradingError
from ..models import ProblemJury
from ..signals import announce_on_commit, problem_finalized
from .locks import jury_lock


def finalized_error(
    number: int, *, field: str = "problem", file: str = "", line: int | None = None
) -> GradingError:
    """Return the error every change to a finalized problem gets."""
    return GradingError(
        f"problem {number} is finalized; the chair must reopen it first",
        file=file,
        line=line,
        field=field,
    )


def chair_check(chair, problem: Problem, *, field: str) -> None:
    """Refuse a chair's act on a problem that grading/access.py's one rule does not allow
    (no chair role, or a paper of the problem still graded by them); call in the act's
    transaction, after the jury row's lock, so that it reads what committed before."""
    reason = chair_refusal(chair, problem, act=True)
    if reason:
        raise GradingError(reason, field=field)


def problem_ensure_open(problem: Problem, *, field: str = "problem", lock: bool = False) -> None:
    """Refuse a change to a finalized problem: its results stand until the chair reopens it.

    With lock, hold the problem's jury row until the end of the transaction (the first lock
    of the order in grading/services/locks.py): a submit, revision, decision or new rubric
    version then waits for a finalization or another such write under way and sees its
    outcome, instead of slipping in after the check.
    """
    if lock:
        jury = jury_lock(problem)
        finalized = jury.finalized_at is not None
    else:
        finalized = ProblemJury.objects.finalized().filter(problem=problem).exists()
    if finalized:
        raise finalized_error(problem.number, field=field)


@transaction.atomic
def problem_finalize(*, problem: Problem, chair) -> ProblemJury:
    """Finalize a problem once every criterion of every paper is agreed or decided."""
    from ..selectors import problem_unresolved

    jury = jury_lock(problem)  # the lock order: grading/services/locks.py
    chair_check(chair, problem, field="finalize")
    if jury.finalized_at:
        raise GradingError(f"problem {problem.number} is already finalized", field="finalize")
    unresolved = problem_unresolved(problem)
    if unresolved:
        shown = ", ".join(unresolved[:10]) + (" …" if len(unresolved) > 10 else "")
        raise GradingError(f"{len(unresolved)} unresolved: {shown}", field="finalize")
    jury.finalized_at = timezone.now()
    jury.finalized_by = chair
    jury.save(update_fields=["finalized_at", "finalized_by"])
    announce_on_commit(problem_finalized, sender=ProblemJury, problem=problem)  # the review
    return jury


@transaction.atomic
def problem_reopen(*, problem: Problem, chair) -> ProblemJury:
    """Undo a finalization so that marks can change again."""
    jury = jury_lock(problem)
    chair_check(chair, problem, field="finalize")
    jury.finalized_at = None
    jury.finalized_by = None
    jury.save(update_fields=["finalized_at", "finalized_by"])
    return jury


@transaction.atomic
def problem_set_tolerance(*, problem: Problem, tolerance: Decimal, chair) -> ProblemJury:
    """Set how far apart marks may be before they count as a discrepancy (the chair's act)."""
    if not tolerance.is_finite() or tolerance < 0:
        raise GradingError("the tolerance must be 0 or more", field="tolerance")
    # The jury row, locked (grading/services/locks.py): a finalization under way commits
    # first and this is refused, or waits for this; the tolerance decides which cells agree.
    jury = jury_lock(problem)
    chair_check(chair, problem, field="tolerance")
    if jury.finalized_at is not None:
        raise finalized_error(problem.number, field="tolerance")
    jury.tolerance = tolerance
    jury.save(update_fields=["tolerance"])
    return jury

"""The chair's side: tolerance, finalizing a problem."""

from __future__ import annotations

from decimal import Decimal

from django.db import transaction
from django.utils import timezone

from ioleval.roles import CHAIR, has_role
from puzzles.models import Problem

from ..errors import GradingError
from ..models import ProblemJury


def problem_ensure_open(problem: Problem, *, field: str) -> None:
    """Refuse a change to a finalized problem: its results stand until the chair reopens it."""
    if ProblemJury.objects.filter(problem=problem, finalized_at__isnull=False).exists():
        raise GradingError(
            f"problem {problem.number} is finalized; the chair must reopen it first", field=field
        )


@transaction.atomic
def problem_finalize(*, problem: Problem, chair) -> ProblemJury:
    """Finalize a problem once every criterion of every paper is agreed or decided."""
    from ..selectors import problem_unresolved

    if not has_role(chair, CHAIR):
        raise GradingError("only the chair finalizes a problem", field="finalize")
    jury = ProblemJury.objects.select_for_update().get_or_create(problem=problem)[0]
    if jury.finalized_at:
        raise GradingError(f"problem {problem.number} is already finalized", field="finalize")
    unresolved = problem_unresolved(problem)
    if unresolved:
        shown = ", ".join(unresolved[:10]) + (" …" if len(unresolved) > 10 else "")
        raise GradingError(f"{len(unresolved)} unresolved: {shown}", field="finalize")
    jury.finalized_at = timezone.now()
    jury.finalized_by = chair
    jury.save(update_fields=["finalized_at", "finalized_by"])
    return jury


@transaction.atomic
def problem_reopen(*, problem: Problem, chair) -> ProblemJury:
    """Undo a finalization so that marks can change again."""
    if not has_role(chair, CHAIR):
        raise GradingError("only the chair reopens a problem", field="finalize")
    jury = ProblemJury.objects.select_for_update().get_or_create(problem=problem)[0]
    jury.finalized_at = None
    jury.finalized_by = None
    jury.save(update_fields=["finalized_at", "finalized_by"])
    return jury


def problem_set_tolerance(*, problem: Problem, tolerance: Decimal) -> ProblemJury:
    """Set how far apart marks may be before they count as a discrepancy."""
    if not tolerance.is_finite() or tolerance < 0:
        raise GradingError("the tolerance must be 0 or more", field="tolerance")
    problem_ensure_open(problem, field="tolerance")
    jury = ProblemJury.objects.get_or_create(problem=problem)[0]
    jury.tolerance = tolerance
    jury.save(update_fields=["tolerance"])
    return jury

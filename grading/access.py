"""The one rule of the chair's pages and actions on a problem (sheet, overview, next
discrepancy, decisions from the sheet or a thread, tolerance, finalize, reopen)."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied

from ioleval.roles import CHAIR, ORGANIZER, has_role
from puzzles.models import Problem

from .models import Assignment


def chair_refusal(user, problem: Problem, *, act: bool) -> str:
    """Return why the user may not read (act=False) or act on (act=True) a problem as its
    chair, or "" if they may.

    Reading takes the chair or organizer role, acting the chair role; neither is open to
    whoever still grades a paper of the problem, since the sheet shows every juror's marks.
    """
    if not has_role(user, *((CHAIR,) if act else (CHAIR, ORGANIZER))):
        return "only the chair acts on a problem" if act else "only the chair and organizers"
    if Assignment.objects.of(user).open().filter(paper__problem=problem).exists():
        return (
            f"you still grade papers of problem {problem.number}: submit them first, then"
            " its sheet, decisions, tolerance and finalizing open to you"
        )
    return ""


def chair_access(user, problem: Problem, *, act: bool) -> None:
    """Refuse (403, with chair_refusal's reason) what chair_refusal does not allow."""
    reason = chair_refusal(user, problem, act=act)
    if reason:
        raise PermissionDenied(reason)

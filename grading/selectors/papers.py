"""Reads of a juror's papers and of the sheets a chair may open (the juror's home).

Every function here runs a fixed number of queries whatever the number of papers.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Count, Q
from django.http import Http404
from django.shortcuts import get_object_or_404

from ioleval.roles import ORGANIZER, has_role
from puzzles.models import Problem

from ..models import Assignment, Paper
from .rubrics import current_rubrics


def assignment_for(user, code: str) -> Assignment:
    """Return the user's own assignment of the paper with this code, or 404."""
    return get_object_or_404(
        Assignment.objects.select_related("paper__problem__competition"),
        paper__code=code,
        juror=user,
    )


def paper_for_pdf(user, code: str) -> Paper:
    """Return the paper with this code if the user may have its PDF, or 404.

    Its jurors may, and organizers may open any paper's (the PDF holds the answers and an
    empty marking table, no juror's marks)."""
    own = Assignment.objects.filter(paper__code=code, juror=user)
    if has_role(user, ORGANIZER) or own.exists():
        return get_object_or_404(Paper.objects.select_related("problem__competition"), code=code)
    raise Http404("no such paper of yours")


@dataclass
class JurorPaper:
    assignment: Assignment
    criteria: int
    marked: int

    @property
    def status(self) -> str:
        if self.assignment.is_submitted:
            return "submitted"
        return "draft" if self.marked else "not started"


def juror_papers(user) -> dict[Problem, list[JurorPaper]]:
    """Return the juror's papers grouped by problem with their progress."""
    assignments = list(
        Assignment.objects.filter(juror=user)
        .select_related("paper__problem__competition")
        .annotate(marked=Count("marks", filter=Q(marks__points__isnull=False)))
        .order_by("paper__problem__competition__slug", "paper__problem__number", "paper__code")
    )
    criteria = current_rubrics({a.paper.problem_id for a in assignments})
    grouped: dict[Problem, list[JurorPaper]] = defaultdict(list)
    for a in assignments:
        grouped[a.paper.problem].append(
            JurorPaper(a, len(criteria.get(a.paper.problem_id, [])), a.marked)
        )
    return dict(grouped)


def chair_sheets(user) -> list[tuple[Problem, bool]]:
    """Return every problem with papers, and whether the user may open its sheet now."""
    problems = list(
        Problem.objects.filter(papers__isnull=False)
        .distinct()
        .select_related("competition")
        .order_by("competition__slug", "number")
    )
    grading = set(Assignment.objects.of(user).open().values_list("paper__problem_id", flat=True))
    return [(p, p.pk not in grading) for p in problems]

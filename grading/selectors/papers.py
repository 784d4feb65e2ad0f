"""Reads of a juror's papers and of the sheets a chair may open (the juror's home).

Every function here runs a fixed number of queries whatever the number of papers.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Count, Q

from puzzles.models import Problem

from ..models import Assignment
from .rubrics import current_rubrics


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
        Assignment.objects.of(user)
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

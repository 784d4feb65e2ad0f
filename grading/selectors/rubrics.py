"""Reads of the rubrics: a problem's current rubric and criteria, and what an assignment
has not marked yet.

Every function here runs a fixed number of queries whatever the number of papers.
"""

from __future__ import annotations

from collections import defaultdict

from django.db.models import F

from puzzles.models import Problem

from ..models import Assignment, Criterion, Mark, Rubric


def rubric_current(problem: Problem) -> Rubric | None:
    """Return the problem's current rubric (its latest version), or None."""
    return Rubric.objects.current().filter(problem=problem).first()


def rubric_criteria(problem: Problem) -> list[Criterion]:
    """Return the criteria of the problem's current rubric, in order."""
    rubric = rubric_current(problem)
    if rubric is None:
        return []
    return list(rubric.criteria.select_related("task").order_by("order"))


def current_rubrics(problems) -> dict[int, list[Criterion]]:
    """Return each problem's current criteria, in order, in one query (problems: Problem
    rows, ids or a queryset)."""
    criteria: dict[int, list[Criterion]] = defaultdict(list)
    for criterion in (
        Criterion.objects.current()
        .filter(rubric__problem__in=problems)
        .annotate(of_problem=F("rubric__problem_id"))
        .order_by("order")
    ):
        criteria[criterion.of_problem].append(criterion)
    return criteria


def criteria_not_marked(
    assignment_ids: list[int], *, problems: dict[int, int] | None = None
) -> dict[int, list[str]]:
    """Return, for each of these assignments that lacks one, the codes of the current
    rubric's criteria it has no points for, in the rubric's order (the rule of submitting
    a paper, by hand or by import). Three queries, however many assignments; two when the
    caller gives each assignment's problem id (`problems`)."""
    if problems is None:
        problems = dict(
            Assignment.objects.filter(pk__in=assignment_ids).values_list("pk", "paper__problem_id")
        )
    criteria = current_rubrics(Problem.objects.filter(pk__in=set(problems.values())))
    marked: dict[int, set[int]] = defaultdict(set)
    for assignment_id, criterion_id in Mark.objects.filter(
        assignment_id__in=problems, points__isnull=False
    ).values_list("assignment_id", "criterion_id"):
        marked[assignment_id].add(criterion_id)
    missing = {}
    for assignment_id, problem_id in problems.items():
        codes = [c.code for c in criteria.get(problem_id, []) if c.pk not in marked[assignment_id]]
        if codes:
            missing[assignment_id] = codes
    return missing

"""Reads of the rubrics: a problem's current rubric and criteria, and what an assignment
has not marked yet.

Every function here runs a fixed number of queries whatever the number of papers.
"""

from __future__ import annotations

from collections import defaultdict

from puzzles.models import Problem

from ..models import Assignment, Criterion, Mark, Rubric


def rubric_current(problem: Problem) -> Rubric | None:
    """Return the problem's latest rubric version, or None."""
    return Rubric.objects.filter(problem=problem).order_by("-version").first()


def rubric_criteria(problem: Problem) -> list[Criterion]:
    """Return the criteria of the problem's current rubric, in order."""
    rubric = rubric_current(problem)
    if rubric is None:
        return []
    return list(rubric.criteria.select_related("task").order_by("order"))


def current_rubrics(problems) -> dict[int, list[Criterion]]:
    """Return each problem's current criteria in two queries."""
    latest: dict[int, int] = {}
    for problem_id, rubric_id in (
        Rubric.objects.filter(problem__in=problems)
        .values_list("problem_id", "pk")
        .order_by("problem_id", "version")
    ):
        latest[problem_id] = rubric_id
    criteria: dict[int, list[Criterion]] = defaultdict(list)
    by_rubric = {r: p for p, r in latest.items()}
    for criterion in Criterion.objects.filter(rubric_id__in=by_rubric).order_by("order"):
        criteria[by_rubric[criterion.rubric_id]].append(criterion)
    return criteria


def criteria_not_marked(
    assignment_ids: list[int], *, problems: dict[int, int] | None = None
) -> dict[int, list[str]]:
    """Return, for each of these assignments that lacks one, the codes of the current
    rubric's criteria it has no points for, in the rubric's order (the rule of submitting
    a paper, by hand or by import). Four queries, however many assignments; three when the
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

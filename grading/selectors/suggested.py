"""Reads of the suggested marks of assignment criteria, from a paper's answers.

Every function here runs a fixed number of queries whatever the number of papers.
"""

from __future__ import annotations

from decimal import Decimal

from puzzles.models import Output

from ..models import Criterion, Paper
from ..suggestions import item_flags, suggested_points
from .answers import paper_answers


def criterion_suggestion(criterion: Criterion, answers: list[dict]) -> Decimal | None:
    """Return the suggested points of a criterion from a paper's answers (paper_answers rows),
    or None: a theory criterion, no task or items, rule none, or no answers to its task."""
    if criterion.kind != Criterion.Kind.ASSIGNMENT or not criterion.task_id or not criterion.items:
        return None
    row = next((r for r in answers if r["task"].pk == criterion.task_id), None)
    if row is None or not row.get("has_output", True):
        return None
    return suggested_points(
        rule=criterion.suggest_rule,
        maximum=criterion.maximum,
        step=criterion.step,
        flags=item_flags(list(criterion.items), [i["exact"] for i in row["items"]]),
        points_per_item=criterion.suggest_points_per_item,
    )


def page_suggestions(
    criteria: list[Criterion], answers: list[dict], *, held_elsewhere: bool = False
) -> dict[int, Decimal]:
    """Return the suggested points per criterion id (criteria without one are left out)."""
    if held_elsewhere:
        return {}
    found = {c.pk: criterion_suggestion(c, answers) for c in criteria}
    return {pk: points for pk, points in found.items() if points is not None}


def suggestion_of(*, juror, code: str, criterion_id: int) -> Decimal | None:
    """Return the current suggestion of a criterion for the juror's paper with this code
    (three queries; None if there is none or the paper is not the juror's)."""
    criterion = Criterion.objects.select_related("task").filter(pk=criterion_id).first()
    if criterion is None or criterion.task is None or not criterion.items:
        return None
    paper = Paper.objects.filter(code=code, assignments__juror=juror).first()
    if paper is None:
        return None
    output = Output.objects.filter(system_id=paper.system_id, task=criterion.task).first()
    if output is None:
        return None
    return criterion_suggestion(criterion, paper_answers(paper, [criterion.task], [output]))

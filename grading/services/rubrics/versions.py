"""Setting a problem's criteria: edited in place while nothing is marked, else a new rubric
version that carries marks, decisions and threads over to the criteria of the same code."""

from __future__ import annotations

from django.db import transaction
from simple_history.utils import bulk_update_with_history

from puzzles.models import Problem

from ...models import Assignment, Criterion, Mark, Rubric
from ...selectors import rubric_current
from ..consensus import problem_ensure_open
from .changes import (
    RubricChange,
    RubricEffectChanged,
    frozen_check,
    rubric_change_preview,
    rubrics_effect_digest,
)
from .specs import CriterionSpec, specs_check


@transaction.atomic
def rubric_replace(
    *,
    problem: Problem,
    specs: list[CriterionSpec],
    new_version: bool = False,
    user=None,
    note: str = "",
    expected_effect: str | None = None,
) -> tuple[Rubric, RubricChange]:
    """Set the problem's criteria; with marks present this needs new_version=True.

    A new version keeps marks of criteria whose code survives (clearing those that no
    longer fit), drops marks of removed criteria, and reopens submitted papers when
    criteria are added. It holds the problem's jury row from the first read to the end
    (grading/services/locks.py): no autosave, submit or decision of the problem runs
    meanwhile, and each one that waited sees the new version.
    With expected_effect (rubrics_effect_digest of a preview of this change alone), it
    applies only if its effect is still the one previewed; else RubricEffectChanged.
    """
    specs_check(specs, where=f"problem {problem.number}")
    problem_ensure_open(problem, field="version", lock=True)
    tasks = {t.external_id: t for t in problem.tasks.all()}
    change = rubric_change_preview(problem=problem, specs=specs)
    rubric = rubric_current(problem)
    frozen_check(change, new_version=new_version)
    if expected_effect is not None and rubrics_effect_digest([change]) != expected_effect:
        raise RubricEffectChanged(
            "the marks changed since the preview; nothing was applied: check the effect again",
            field="version",
        )
    if rubric is None or new_version:
        old = rubric
        rubric = Rubric.objects.create(
            problem=problem, version=(old.version + 1 if old else 1), created_by=user, note=note
        )
    else:
        old = None
        rubric.criteria.all().delete()
    created = {}
    for order, spec in enumerate(specs, start=1):
        created[spec.code] = Criterion.objects.create(
            rubric=rubric,
            order=order,
            code=spec.code,
            title=spec.title,
            description=spec.description,
            kind=spec.kind,
            maximum=spec.maximum,
            step=spec.step,
            task=tasks.get(spec.task_id),
            items=list(spec.items),
            suggest_rule=spec.suggest,
            suggest_points_per_item=spec.points_per_item,
        )
    if old is not None:
        _marks_carry_over(old=old, new=created, user=user)
        if change.added:
            Assignment.objects.submitted().filter(paper__problem=problem).update(submitted_at=None)
    return rubric, change


def _fits(points, criterion: Criterion) -> bool:
    return points is None or (points <= criterion.maximum and not points % criterion.step)


def _marks_carry_over(*, old: Rubric, new: dict[str, Criterion], user=None) -> None:
    """Move marks, decisions and threads to the new criteria of the same code.

    Marks of removed criteria are deleted (their history stays); marks and decisions
    that no longer fit the maximum or step are cleared and their papers reopen. Call under
    the jury row's lock (rubric_replace takes it): the marks are read here, after it, so
    that what is written back is what the last acknowledged save stored, and only the
    criterion, the points and the flag are written (one statement per batch).
    """
    reason = f"rubric version {next(iter(new.values())).rubric.version}"
    old_criteria = {c.pk: c for c in old.criteria.all()}
    moved, reopened = [], set()
    for mark in Mark.objects.filter(criterion__in=list(old_criteria)).order_by("pk"):
        criterion = old_criteria[mark.criterion_id]
        target = new.get(criterion.code)
        if target is None:
            mark._change_reason = f"{reason}: criterion {criterion.code} removed"
            mark._history_user = user
            mark.delete()
            continue
        mark.criterion = target
        if not _fits(mark.points, target):
            mark.points = None
            mark.from_suggestion = False
            reopened.add(mark.assignment_id)
        moved.append(mark)
    bulk_update_with_history(
        moved,
        Mark,
        ["criterion", "points", "from_suggestion"],
        default_user=user,
        default_change_reason=reason,
    )
    Assignment.objects.filter(pk__in=reopened).update(submitted_at=None)
    for criterion in old_criteria.values():
        target = new.get(criterion.code)
        if target is None:
            continue
        for resolution in criterion.resolutions.all():
            resolution._change_reason = reason
            if _fits(resolution.points, target):
                resolution.criterion = target
                resolution.save()
            else:
                resolution.delete()
        criterion.comments.update(criterion=target)

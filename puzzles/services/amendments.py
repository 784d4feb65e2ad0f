"""Answer-key amendments: change an item's accepted alternatives and rescore every output."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from ..errors import ImportFailure
from ..jury import finalized_amendment_note, problems_finalized
from ..leaderboard import rank_changes
from ..models import AnswerAmendment, Task
from ..selectors import leaderboard
from .scoring import competition_rescore


@dataclass(frozen=True)
class AmendmentReport:
    """An amendment and the systems whose score or rank it changed."""

    amendment: AnswerAmendment
    changes: list[dict[str, object]]
    # What it did to the jury's results when the task's problem is finalized ("" if not).
    finalized_note: str = ""

    def lines(self) -> list[str]:
        a = self.amendment
        head = (
            f"{a.task.external_id} item {a.item_number}: {a.get_action_display()} {a.text!r}; "
            f"accepted now: {', '.join(repr(x) for x in a.after[a.item_number - 1])}"
        )
        note = [self.finalized_note] if self.finalized_note else []
        if not self.changes:
            return [head, "no system's score or rank changed", *note]
        return (
            [head]
            + [
                f"{c['system']}: score {c['score_before']:.4f} -> {c['score_after']:.4f}, "
                f"rank {c['rank_before']} -> {c['rank_after']}"
                for c in self.changes
            ]
            + note
        )


@transaction.atomic
def answer_key_amend(
    *,
    task: Task,
    item_number: int,
    add: str | None = None,
    remove: str | None = None,
    user: AbstractBaseUser | None = None,
) -> AmendmentReport:
    """Add or remove one accepted alternative of an item (counted from 1), then rescore."""
    if (add is None) == (remove is None):
        raise ImportFailure("give exactly one of add or remove", field="action")
    task = Task.objects.select_for_update().select_related("problem__competition").get(pk=task.pk)
    key = [list(alternatives) for alternatives in task.answer_key]
    if not 1 <= item_number <= len(key):
        raise ImportFailure(
            f"task {task.external_id} has items 1 to {len(key)}, not {item_number}",
            field="item_number",
        )
    alternatives = key[item_number - 1]
    text = (add if add is not None else remove).strip()
    if not text:
        raise ImportFailure("the alternative is empty", field="text")
    if add is not None:
        if text in alternatives:
            raise ImportFailure(
                f"{text!r} is already accepted for item {item_number}", field="text"
            )
        alternatives.append(text)
        action = AnswerAmendment.Action.ADD
    else:
        if text not in alternatives:
            raise ImportFailure(
                f"{text!r} is not an accepted alternative of item {item_number} "
                f"(accepted: {', '.join(repr(a) for a in alternatives)})",
                field="text",
            )
        if len(alternatives) == 1:
            raise ImportFailure(
                f"{text!r} is the only accepted alternative of item {item_number}", field="text"
            )
        alternatives.remove(text)
        action = AnswerAmendment.Action.REMOVE
    competition = task.problem.competition
    _, before = leaderboard(competition)
    old_key = task.answer_key
    task.answer_key = key
    if len(key[item_number - 1]) > 1 and task.eval_type == Task.EvalType.SINGLE:
        task.eval_type = Task.EvalType.MULTI
    if user is not None:
        task._history_user = user
    task.save(update_fields=["answer_key", "eval_type"])
    competition_rescore(competition=competition, tasks=[task])
    _, after = leaderboard(competition)
    changes = rank_changes(before, after)
    amendment = AnswerAmendment.objects.create(
        task=task,
        item_number=item_number,
        action=action,
        text=text,
        before=old_key,
        after=key,
        changes=changes,
        created_by=user if user is not None and user.is_authenticated else None,
    )
    # Only outputs were rescored: no mark or decision of the jury is touched, so on a
    # finalized problem its finals stand; the report says so (the page did before).
    finalized = task.problem_id in problems_finalized(competition)
    return AmendmentReport(
        amendment=amendment,
        changes=changes,
        finalized_note=finalized_amendment_note(task.problem.number) if finalized else "",
    )

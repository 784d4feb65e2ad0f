"""Proposed alternatives: a juror proposes an answer for an item of the key; an organizer
accepts it through the answer-key amendment (which rescores every output) or rejects it."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from puzzles.metrics import normalize
from puzzles.models import Competition, Task
from puzzles.services import answer_key_amend

from ..errors import GradingError
from ..models import AnswerProposal, Assignment

MAX_ANSWER = 2000
MAX_REASON = 2000


@transaction.atomic
def proposal_create(
    *, juror: AbstractBaseUser, task: Task, item_number: int, answer: str, reason: str
) -> AnswerProposal:
    """Propose `answer` as an accepted alternative of an item (counted from 1) of the task.

    Refused, with nothing written: an empty answer or reason, an answer the key accepts
    already (as the metric compares answers), and the juror's own pending proposal of the
    same answer. The juror must have a paper of the task's problem."""
    if not Assignment.objects.filter(juror=juror, paper__problem_id=task.problem_id).exists():
        raise GradingError("you have no paper of this problem", field="task")
    task = Task.objects.select_for_update().get(pk=task.pk)
    if not 1 <= item_number <= task.n_items:
        raise GradingError(
            f"assignment {task.number} has items 1 to {task.n_items}, not {item_number}",
            field="item_number",
        )
    answer = answer.strip()
    reason = reason.strip()
    if not answer:
        raise GradingError("Not proposed: the answer is empty.", field="answer")
    if len(answer) > MAX_ANSWER:
        raise GradingError(
            f"Not proposed: the answer is over {MAX_ANSWER} characters.", field="answer"
        )
    normalized = normalize(answer)
    if not normalized:
        raise GradingError(
            "Not proposed: the answer is empty once normalized as the metric does.",
            field="answer",
        )
    key = task.answer_key[item_number - 1]
    if normalized in {normalize(a) for a in key}:
        raise GradingError(
            f"Not proposed: the key already accepts {answer!r} for item {item_number}.",
            field="answer",
        )
    if not reason:
        raise GradingError("Not proposed: give a reason for the jury chair.", field="reason")
    if len(reason) > MAX_REASON:
        raise GradingError(
            f"Not proposed: the reason is over {MAX_REASON} characters.", field="reason"
        )
    if AnswerProposal.objects.filter(
        task=task,
        item_number=item_number,
        normalized=normalized,
        proposed_by=juror,
        status=AnswerProposal.Status.PENDING,
    ).exists():
        raise GradingError(
            f"Not proposed: your proposal of {normalized!r} for item {item_number} is pending"
            " already.",
            field="answer",
        )
    return AnswerProposal.objects.create(
        task=task,
        item_number=item_number,
        answer=answer,
        normalized=normalized,
        reason=reason,
        proposed_by=juror,
    )


def _pending(competition: Competition, proposal_id: int) -> AnswerProposal:
    proposal = (
        AnswerProposal.objects.select_for_update()
        .select_related("task")
        .filter(pk=proposal_id, task__problem__competition=competition)
        .first()
    )
    if proposal is None:
        raise GradingError(f"no proposal {proposal_id} in this competition", field="proposal")
    if proposal.status != AnswerProposal.Status.PENDING:
        raise GradingError(
            f"the proposal of {proposal.answer!r} was {proposal.status} already", field="proposal"
        )
    return proposal


@transaction.atomic
def proposal_accept(
    *, competition: Competition, proposal_id: int, user: AbstractBaseUser
) -> list[str]:
    """Accept a pending proposal: add its answer to the item's key through the answer-key
    amendment (which rescores every output of the task) and settle every pending proposal of
    the same answer for that item; return the amendment's report lines."""
    proposal = _pending(competition, proposal_id)
    task = proposal.task
    if proposal.normalized in {normalize(a) for a in task.answer_key[proposal.item_number - 1]}:
        raise GradingError(
            f"the key accepts {proposal.answer!r} for item {proposal.item_number} already:"
            " reject the proposal as settled",
            field="proposal",
        )
    report = answer_key_amend(
        task=task, item_number=proposal.item_number, add=proposal.answer, user=user
    )
    AnswerProposal.objects.filter(
        task=task,
        item_number=proposal.item_number,
        normalized=proposal.normalized,
        status=AnswerProposal.Status.PENDING,
    ).update(
        status=AnswerProposal.Status.ACCEPTED,
        decided_by=user,
        decided_at=timezone.now(),
        decision_reason="accepted into the key",
    )
    return report.lines()


@transaction.atomic
def proposal_reject(
    *, competition: Competition, proposal_id: int, user: AbstractBaseUser, reason: str
) -> AnswerProposal:
    """Reject a pending proposal with a reason the proposing juror reads."""
    reason = reason.strip()
    if not reason:
        raise GradingError("Not rejected: give the juror a reason.", field="reason")
    if len(reason) > MAX_REASON:
        raise GradingError(
            f"Not rejected: the reason is over {MAX_REASON} characters.", field="reason"
        )
    proposal = _pending(competition, proposal_id)
    proposal.status = AnswerProposal.Status.REJECTED
    proposal.decided_by = user
    proposal.decided_at = timezone.now()
    proposal.decision_reason = reason
    proposal.save(update_fields=["status", "decided_by", "decided_at", "decision_reason"])
    return proposal


def proposal_reject_message(**kwargs) -> str:
    """Reject a proposal (as proposal_reject) and return the organizer's message."""
    proposal = proposal_reject(**kwargs)
    return (
        f"Rejected the proposal of {proposal.answer!r} for {proposal.task.external_id} item"
        f" {proposal.item_number}."
    )

"""Reads of a criterion's discussion of one paper: its marks, posts and history, and the
posts a juror has not read. Who may read it is grading.access.thread's answer.

Every function here runs a fixed number of queries whatever the number of papers.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Protocol

from django.db.models import Count, F, OuterRef, Subquery
from django.db.models.functions import Coalesce

from ..models import Assignment, Criterion, DiscussionComment, Mark, Paper, Resolution, ThreadRead
from ..text import explanation_html
from .answers import paper_answers_of, paper_held_elsewhere
from .cells import problem_jury


class ThreadAccess(Protocol):
    """What the page needs of the thread grading.access.thread let the user in to."""

    paper: Paper
    criterion: Criterion
    own: Assignment | None  # the user's own (submitted) assignment; None for chair, organizer
    chair_waits: str  # why the user, a chair, may not act here yet ("" if they may)
    is_chair: bool  # the user may act here as the chair


@dataclass(frozen=True)
class MarkChange:
    """One change of a mark or a decision, with the value before it."""

    when: object
    who: object
    old: Decimal | None
    new: Decimal | None
    reason: str
    juror: object = None
    from_suggestion: bool = False  # the new value was the suggested mark, accepted


@dataclass(frozen=True)
class ThreadPage:
    paper: Paper
    criterion: Criterion
    answers: list[dict]
    held_elsewhere: bool
    marks: list[Mark]  # submitted marks
    own: Assignment | None  # the user's own assignment of the paper
    resolution: Resolution | None
    comments: list[DiscussionComment]
    is_chair: bool  # the user may act here as the chair (grading.access)
    finalized: bool
    still_grading: int  # jurors of the paper who have not submitted it
    history: list[MarkChange]  # the chair's view of the marks' changes
    decision_history: list[MarkChange]
    chair_waits: str = ""  # why a chair may not act here yet (grading.access)

    @property
    def may_comment(self) -> bool:
        return (self.own is not None or self.is_chair) and not self.finalized

    @property
    def last_post(self) -> int:
        """The id of the latest post shown (0: none): how far its reader has read."""
        return max((c.pk for c in self.comments), default=0)


def thread_page(thread: ThreadAccess) -> ThreadPage:
    """A criterion's discussion of one paper, for whoever grading.access.thread lets in."""
    paper, criterion, own = thread.paper, thread.criterion, thread.own
    marks = list(
        Mark.objects.submitted()
        .filter(assignment__paper=paper, criterion=criterion)
        .select_related("assignment__juror")
        .order_by("assignment__juror__username")
    )
    resolution = Resolution.objects.filter(paper=paper, criterion=criterion).first()
    # The chair's part of the page (decision, history) follows the chair's one rule: a chair
    # who grades another paper of the problem reads their own thread as a juror.
    is_chair = thread.is_chair
    history: list = []
    if is_chair:
        # Submitted papers only (a draft is its juror's until submitted), and the criterion's
        # code across rubric versions (a new version moves the marks to a new criterion).
        history = list(
            Mark.history.filter(
                Assignment.submitted_q("assignment"),
                assignment__paper=paper,
                criterion__rubric__problem_id=paper.problem_id,
                criterion__code=criterion.code,
            )
            .select_related("history_user", "assignment__juror")
            .order_by("history_date", "history_id")
        )
    answers = paper_answers_of(paper)
    for row in answers:
        row["explanation_html"] = explanation_html(row["explanation"])
    return ThreadPage(
        paper=paper,
        criterion=criterion,
        answers=answers,
        held_elsewhere=paper_held_elsewhere(paper),
        marks=marks,
        own=own,
        resolution=resolution,
        comments=list(
            DiscussionComment.objects.filter(paper=paper, criterion=criterion).select_related(
                "author"
            )
        ),
        is_chair=is_chair,
        finalized=problem_jury(paper.problem).finalized_at is not None,
        still_grading=paper.assignments.open().count(),
        history=mark_changes(history),
        decision_history=decision_changes(resolution) if resolution and is_chair else [],
        chair_waits=thread.chair_waits,
    )


def decision_changes(resolution: Resolution) -> list[MarkChange]:
    """Pair each recorded decision with the agreed mark before it."""
    rows, old = [], None
    for record in resolution.history.select_related("history_user").order_by("history_date"):
        reason = record.history_change_reason or record.reason or ""
        rows.append(
            MarkChange(record.history_date, record.history_user, old, record.points, reason)
        )
        old = record.points
    return rows


def mark_changes(history: list) -> list[MarkChange]:
    """Pair each historical mark with the value before it (per juror); saves that change
    neither the points nor whether they are an accepted suggestion drop."""
    last: dict[int, tuple[Decimal | None, bool]] = {}
    rows = []
    for record in history:
        old = last.get(record.assignment_id, (None, False))
        if old != (record.points, record.from_suggestion):
            rows.append(
                MarkChange(
                    when=record.history_date,
                    who=record.history_user,
                    old=old[0],
                    new=record.points,
                    reason=record.history_change_reason or "",
                    juror=record.assignment.juror,
                    from_suggestion=record.from_suggestion,
                )
            )
        last[record.assignment_id] = (record.points, record.from_suggestion)
    return rows


def threads_unread(user, paper_ids, criterion_ids) -> dict[tuple[int, int], int]:
    """Return, per (paper id, criterion id) among these, how many posts by others the user
    has not been shown: those after the last post of their ThreadRead, or all (one query)."""
    seen = ThreadRead.objects.filter(
        juror=user, paper=OuterRef("paper_id"), criterion_code=OuterRef("criterion__code")
    ).values("last_post")[:1]
    return dict(
        ((paper_id, criterion_id), n)
        for paper_id, criterion_id, n in DiscussionComment.objects.filter(
            paper_id__in=paper_ids, criterion_id__in=criterion_ids
        )
        .exclude(author=user)
        .annotate(seen=Coalesce(Subquery(seen), 0))
        .filter(pk__gt=F("seen"))
        .values_list("paper_id", "criterion_id")
        .annotate(n=Count("pk"))
        .order_by()
    )

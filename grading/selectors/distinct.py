"""Reads of the distinct-answers page: one item of a task across a juror's own papers.

Answers are grouped by the metric's own normal form (`puzzles.metrics.normalize`), so a
juror judges "Tasorelun." and "tasorelun" once. The page names papers by code only and
never says who proposed an alternative, except to the juror who did. It runs a fixed
number of queries whatever the number of papers.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from django.db.models import Exists, OuterRef
from django.db.models.fields.json import KT
from django.urls import reverse

from puzzles.jury import PendingProposal
from puzzles.metrics import normalize
from puzzles.models import Output, Problem, Task
from puzzles.questions import item_prompts

from ..models import AnswerProposal, Assignment, ProblemJury

STAGES = ("parsed", "extracted")


@dataclass(frozen=True)
class DistinctAnswer:
    """One normalized answer and the juror's papers that gave it."""

    text: str  # the normal form; "" when the papers gave no answer
    codes: list[str]  # paper codes, sorted
    exact: int  # how many of those papers the stored scores count as an exact match
    pending: bool = False  # a juror (any) proposed it and no organizer decided yet
    links: tuple[tuple[str, str], ...] = ()  # (code, grading page) per paper

    @property
    def count(self) -> int:
        return len(self.codes)

    @property
    def em(self) -> str:
        """Return the exact-match flag as the page says it: yes, no or mixed (stale scores)."""
        if self.exact == self.count:
            return "yes"
        return "no" if self.exact == 0 else "mixed"


@dataclass(frozen=True)
class OwnProposal:
    """A proposal of the juror reading the page, with the organizers' decision."""

    answer: str
    reason: str
    status: str
    decision_reason: str
    created_at: datetime


@dataclass(frozen=True)
class TaskItems:
    """A task of the problem and its item numbers, for moving between items."""

    number: int
    label: str
    items: list[int]


@dataclass(frozen=True)
class DistinctPage:
    problem: Problem
    task: Task
    item_number: int
    key: list[str]  # the accepted alternatives of the item
    answers: list[DistinctAnswer]
    without_answers: list[str]  # codes of papers with no output of the task here
    proposals: list[OwnProposal]
    navigation: list[TaskItems]
    papers: int
    # The item's (label, question) on its line of the assignment, as the grading page and
    # the PDF show it; None when the assignment's lines do not name its items.
    question: tuple[str, str] | None = None


def group_answers(rows: Iterable[tuple[str, str, bool]]) -> list[DistinctAnswer]:
    """Group (paper code, answer, exact) rows by normalized answer, most frequent first."""
    codes: dict[str, list[str]] = defaultdict(list)
    exact: dict[str, int] = defaultdict(int)
    for code, answer, is_exact in rows:
        text = normalize(answer)
        codes[text].append(code)
        exact[text] += bool(is_exact)
    groups = [DistinctAnswer(text, sorted(c), exact[text]) for text, c in codes.items()]
    return sorted(groups, key=lambda g: (-g.count, g.text == "", g.text))


def _item_fields(index: int) -> dict[str, KT]:
    """Return the item's answer and exact-match flag at both stages, read in SQL: a page
    of 300 papers then decodes 300 short strings rather than every output's items and
    scores."""
    return {
        f"{stage}_{name}": KT(f"{path}__{index}")
        for stage in STAGES
        for name, path in (
            ("answer", f"{stage}_items"),
            ("em", f"scores__iol2026__{stage}__item_em"),
        )
    }


def _flag(value: object) -> bool:
    """Return an item_em element read as text (PostgreSQL) or as a number (SQLite) as a flag."""
    try:
        return float(value) != 0  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return value in ("true", True)


class DistinctItem(Protocol):
    """What the page needs of grading.access.distinct_item: an item of a task of a problem
    the juror has papers of."""

    problem_id: int
    own: list[tuple[str, int]]  # (paper code, system id) of the juror's papers of the problem
    tasks: list[Task]  # the problem's tasks with items, in order
    task: Task
    item_number: int


def distinct_page(item: DistinctItem, user) -> DistinctPage:
    """Return the distinct answers of one item across the user's own papers of the problem."""
    problem_id, own, tasks = item.problem_id, item.own, item.tasks
    task, item_number = item.task, item.item_number
    code_of = dict((system_id, code) for code, system_id in own)
    outputs = Output.objects.filter(
        task=task,
        system_id__in=Assignment.objects.filter(juror=user, paper__problem_id=problem_id).values(
            "paper__system_id"
        ),
    ).values("system_id", "source", **_item_fields(item_number - 1))
    rows, answered = [], set()
    for output in outputs:
        # The stage the grading page shows: parsed, or extracted for free model text.
        stage = "extracted" if output["source"] == Output.Source.MODEL_TEXT else "parsed"
        answer = output[f"{stage}_answer"] or ""
        rows.append((code_of[output["system_id"]], answer, _flag(output[f"{stage}_em"])))
        answered.add(output["system_id"])
    proposals = list(
        AnswerProposal.objects.filter(task=task, item_number=item_number).only(
            "answer",
            "normalized",
            "reason",
            "status",
            "decision_reason",
            "created_at",
            "proposed_by_id",
        )
    )
    pending = {p.normalized for p in proposals if p.status == AnswerProposal.Status.PENDING}
    prompts = item_prompts(task.query, task.n_items)
    # One reverse() for 300 links: per link, the url tag was most of the page's time.
    head, tail = reverse("grading:grade", args=["CODE"]).split("CODE")
    answers = [
        DistinctAnswer(
            a.text,
            a.codes,
            a.exact,
            pending=a.text in pending,
            links=tuple((code, f"{head}{code}{tail}") for code in a.codes),
        )
        for a in group_answers(rows)
    ]
    return DistinctPage(
        problem=task.problem,
        task=task,
        item_number=item_number,
        key=list(task.answer_key[item_number - 1]),
        answers=answers,
        without_answers=sorted(
            code for system_id, code in code_of.items() if system_id not in answered
        ),
        proposals=[
            OwnProposal(p.answer, p.reason, p.status, p.decision_reason, p.created_at)
            for p in proposals
            if p.proposed_by_id == user.pk
        ],
        navigation=[
            TaskItems(t.number, f"Assignment {t.number}", list(range(1, t.n_items + 1)))
            for t in tasks
        ],
        papers=len(own),
        question=prompts[item_number - 1] if prompts else None,
    )


def proposals_pending(competition) -> list[PendingProposal]:
    """Return the competition's pending proposals, by task, item and time, naming who
    proposed each (for organizers only) and whether the jury finalized its problem (one
    query)."""
    finalized = ProblemJury.objects.finalized().filter(problem=OuterRef("task__problem"))
    rows = (
        AnswerProposal.objects.filter(
            task__problem__competition=competition, status=AnswerProposal.Status.PENDING
        )
        .select_related("task__problem", "proposed_by")
        .annotate(finalized=Exists(finalized))
        .order_by("task__problem__number", "task__number", "item_number", "created_at", "pk")
    )
    return [
        PendingProposal(
            id=p.pk,
            task=p.task.external_id,
            item_number=p.item_number,
            answer=p.answer,
            reason=p.reason,
            proposed_by=p.proposed_by.get_full_name() or p.proposed_by.get_username(),
            created_at=p.created_at,
            problem=p.task.problem.number,
            finalized=p.finalized,
        )
        for p in rows
    ]

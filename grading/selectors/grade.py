"""Reads of the grading page: one paper of the juror's, its answers, rubric and own marks.

Every function here runs a fixed number of queries whatever the number of papers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from django.db.models import Case, Value, When

from puzzles.models import Output, Problem

from ..models import Assignment, Criterion, Mark, ObservationTag, Paper, PaperTag
from .answers import answers_held_elsewhere, external_system_ids, paper_answers
from .cells import PaperCell, paper_cells
from .rubrics import rubric_criteria
from .suggested import page_suggestions


@dataclass
class GradingPage:
    assignment: Assignment
    paper: Paper
    problem: Problem
    criteria: list[Criterion]
    marks: dict[int, Mark]
    outputs: list[Output]
    tasks: list
    tags: list
    chosen_tags: set[int]
    others: dict[int, PaperCell] = field(default_factory=dict)  # once submitted
    held_elsewhere: bool = False  # its answers are outside ioleval (HELD_ELSEWHERE_NOTE)
    suggestions: dict[int, Decimal] = field(default_factory=dict)  # criterion id -> points
    next_code: str | None = None  # the juror's next unfinished paper of this problem

    @property
    def first_unmarked(self) -> int | None:
        """Return the id of the first criterion, in the rubric's order, without points."""
        for criterion in self.criteria:
            mark = self.marks.get(criterion.pk)
            if mark is None or mark.points is None:
                return criterion.pk
        return None


def grading_page(assignment: Assignment) -> GradingPage:
    """Return what the grading page shows: problem, key, rubric, the paper, own marks."""
    paper = assignment.paper
    problem = paper.problem
    criteria = rubric_criteria(problem)
    marks = {m.criterion_id: m for m in Mark.objects.filter(assignment=assignment)}
    tasks = list(problem.tasks.order_by("number"))
    outputs = {
        o.task_id: o
        for o in Output.objects.filter(system_id=paper.system_id, task__problem=problem).only(
            "task_id", "source", "parsed_items", "extracted_items", "explanation", "scores"
        )
    }
    shown = [outputs.get(t.pk) for t in tasks]
    tags = list(ObservationTag.objects.filter(competition_id=problem.competition_id))
    chosen = set(PaperTag.objects.filter(assignment=assignment).values_list("tag_id", flat=True))
    has_outputs = any(o is not None for o in shown)
    # Only a paper without outputs may be held elsewhere: ask about its system then alone.
    external = not has_outputs and paper.system_id in external_system_ids([paper.system_id])
    held_elsewhere = answers_held_elsewhere(external=external, has_outputs=has_outputs)
    answers = paper_answers(paper, tasks, shown)
    for row, output in zip(answers, shown, strict=True):
        row["has_output"] = output is not None
    return GradingPage(
        assignment=assignment,
        paper=paper,
        problem=problem,
        criteria=criteria,
        marks=marks,
        outputs=shown,
        tasks=tasks,
        tags=tags,
        chosen_tags=chosen,
        others=paper_cells(paper, criteria) if assignment.is_submitted else {},
        held_elsewhere=held_elsewhere,
        suggestions=page_suggestions(criteria, answers, held_elsewhere=held_elsewhere),
        next_code=next_unfinished_code(assignment),
    )


def next_unfinished_code(assignment: Assignment) -> str | None:
    """Return the code of the juror's next paper of the same problem not yet submitted.

    Next in the juror's home order (by code) after this paper, wrapping around to the
    first; never this paper; None when every other one is submitted. One query."""
    code = assignment.paper.code
    return (
        Assignment.objects.of(assignment.juror_id)
        .open()
        .filter(paper__problem_id=assignment.paper.problem_id)
        .exclude(pk=assignment.pk)
        .annotate(wraps=Case(When(paper__code__gt=code, then=Value(0)), default=Value(1)))
        .order_by("wraps", "paper__code")
        .values_list("paper__code", flat=True)
        .first()
    )

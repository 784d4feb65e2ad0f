"""Reads of grading by criterion: one criterion of a problem across the juror's papers.

Every page here runs a fixed number of queries whatever the number of papers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Protocol

from puzzles.models import Output, Problem

from ..models import Assignment, Criterion, Mark, Paper
from ..text import explanation_html
from .answers import answers_held_elsewhere, external_system_ids, paper_answers
from .cells import PaperCell, paper_cells
from .suggested import page_suggestions

# --- the grade-by-criterion page ------------------------------------------------------------


@dataclass(frozen=True)
class CriterionPaper:
    """One of the juror's papers in the criterion's order: its code and whether it is marked."""

    code: str
    marked: bool
    submitted: bool


@dataclass
class ByCriterionPage:
    problem: Problem
    criterion: Criterion
    criteria: list[Criterion]  # the rubric's criteria, for the links to the others
    papers: list[CriterionPaper]  # the juror's papers of the problem, by code
    position: int  # index of the shown paper in `papers`
    assignment: Assignment
    paper: Paper
    mark: Mark | None
    answers: list[dict]  # paper_answers rows of the criterion's task (its items), or all
    held_elsewhere: bool
    suggestion: Decimal | None
    cell: PaperCell | None = None  # other jurors' marks, once the juror submitted the paper
    suggestions: dict[int, Decimal] = field(default_factory=dict)  # as GradingPage's

    @property
    def marked(self) -> int:
        return sum(p.marked for p in self.papers)

    @property
    def total(self) -> int:
        return len(self.papers)

    @property
    def previous(self) -> str | None:
        return self.papers[self.position - 1].code if self.position > 0 else None

    @property
    def next(self) -> str | None:
        index = self.position + 1
        return self.papers[index].code if index < len(self.papers) else None

    @property
    def unmarked(self) -> int:
        """How many of the juror's papers have no points for this criterion yet."""
        return sum(not p.marked for p in self.papers)

    @property
    def next_criterion(self) -> Criterion | None:
        """The criterion after this one in the rubric's order, or None after the last."""
        index = next(i for i, c in enumerate(self.criteria) if c.pk == self.criterion.pk)
        return self.criteria[index + 1] if index + 1 < len(self.criteria) else None

    @property
    def next_unmarked(self) -> str | None:
        """The next paper after this one (wrapping round) not marked and not submitted."""
        count = len(self.papers)
        for step in range(1, count):
            paper = self.papers[(self.position + step) % count]
            if not paper.marked and not paper.submitted:
                return paper.code
        return None


class CriterionPapers(Protocol):
    """What the page needs of grading.access.criterion_papers: a criterion of the problem's
    current rubric, the juror's papers of it, and the one asked for by code."""

    problem: Problem
    criteria: list[Criterion]
    criterion: Criterion
    assignments: list[Assignment]  # the juror's, by paper code
    position: int | None  # index of the paper asked for (None: none asked)


def by_criterion_page(asked: CriterionPapers) -> ByCriterionPage:
    """Return one criterion of a problem on one of the juror's papers of it (the one asked
    for, else the first one not marked yet). Seven queries with grading.access's four (one
    more for a paper without outputs, four more once the juror submitted it), whatever the
    papers."""
    problem, criteria, criterion = asked.problem, asked.criteria, asked.criterion
    assignments = asked.assignments
    marks = {
        m.assignment_id: m
        # No default ordering: it would join the assignment, paper and problem for nothing.
        for m in Mark.objects.filter(assignment__in=assignments, criterion=criterion).order_by()
    }
    papers = [
        CriterionPaper(
            code=a.paper.code,
            marked=a.pk in marks and marks[a.pk].points is not None,
            submitted=a.is_submitted,
        )
        for a in assignments
    ]
    position = asked.position
    if position is None:
        position = next((i for i, p in enumerate(papers) if not p.marked and not p.submitted), 0)
    assignment = assignments[position]
    paper = assignment.paper
    paper.problem = problem
    tasks = list(problem.tasks.order_by("number"))
    if criterion.task_id:  # the criterion's task alone (its items are picked below)
        tasks = [t for t in tasks if t.pk == criterion.task_id]
    outputs = {
        o.task_id: o
        for o in Output.objects.filter(system_id=paper.system_id, task__in=tasks)
        .order_by()
        .only("task_id", "source", "parsed_items", "extracted_items", "explanation", "scores")
    }
    shown = [outputs.get(t.pk) for t in tasks]
    answers = paper_answers(paper, tasks, shown)
    has_outputs = any(o is not None for o in shown)
    external = not has_outputs and paper.system_id in external_system_ids([paper.system_id])
    held = answers_held_elsewhere(external=external, has_outputs=has_outputs)
    for row, output in zip(answers, shown, strict=True):
        row["has_output"] = output is not None
    suggestions = page_suggestions([criterion], answers, held_elsewhere=held)
    for row in answers:  # then only the criterion's items are shown
        row["explanation_html"] = explanation_html(row["explanation"])
        if criterion.task_id and criterion.items:
            wanted = set(criterion.items)
            row["items"] = [i for i in row["items"] if i["number"] in wanted]
    return ByCriterionPage(
        problem=problem,
        criterion=criterion,
        criteria=criteria,
        papers=papers,
        position=position,
        assignment=assignment,
        paper=paper,
        mark=marks.get(assignment.pk),
        answers=answers,
        held_elsewhere=held,
        suggestion=suggestions.get(criterion.pk),
        cell=paper_cells(paper, [criterion]).get(criterion.pk) if assignment.is_submitted else None,
        suggestions=suggestions,
    )

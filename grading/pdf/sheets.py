"""What a paper shows, as plain dataclasses of strings (never a Paper, so that no template
can reach the system behind a code), and the paper's full text that the cut notes point to."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal

from django.utils.safestring import SafeString

from puzzles.models import Output, Problem, Task

from ..models import Paper
from ..selectors import (
    HELD_ELSEWHERE_NOTE,
    answers_held_elsewhere,
    current_rubrics,
    external_system_ids,
    paper_answers,
    paper_answers_of,
    paper_held_elsewhere,
)
from ..text import (
    answer_text,
    breakable_html,
    breakable_text,
    explanation_html,
    points_text,
)
from .stamps import NO_RUBRIC, problem_stamps


@dataclass(frozen=True)
class SheetItem:
    label: str
    prompt: str
    answer: str  # as shown: cut to ANSWER_LIMIT, with break opportunities
    answer_length: int = 0  # of the whole answer, when it was cut; else 0

    @property
    def answer_truncated(self) -> bool:
        return self.answer_length > 0


@dataclass(frozen=True)
class SheetTask:
    number: int
    kind: str
    query: str
    items: list[SheetItem]
    has_prompts: bool
    explanation: SafeString
    explanation_same_as: int | None  # an earlier assignment with the same explanation


@dataclass(frozen=True)
class GridRow:
    code: str
    title: str
    description: str
    kind: str
    maximum: Decimal
    step: Decimal

    @property
    def maximum_text(self) -> str:
        return points_text(self.maximum)

    @property
    def step_text(self) -> str:
        return points_text(self.step)


@dataclass(frozen=True)
class Sheet:
    """A paper as a juror reads it: no system, team, tier, rank, key or score."""

    code: str
    competition: str
    problem_number: int
    problem_title: str
    language: str
    context: str
    tasks: list[SheetTask]
    grid: list[GridRow]
    held_elsewhere: bool = False  # its answers are outside ioleval: the sheet says so instead
    rubric: str = ""  # rubric_stamp of the grid: the rubric this paper is printed with

    @property
    def total_maximum(self) -> Decimal:
        return sum((row.maximum for row in self.grid), Decimal(0))

    @property
    def total_text(self) -> str:
        return points_text(self.total_maximum)


def _text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return " / ".join(_text(v) for v in value)
    return str(value)


def _sheet_task(row: dict) -> SheetTask:
    task: Task = row["task"]
    items = []
    for item in row["items"]:
        answer = answer_text(_text(item["answer"]).strip())
        items.append(
            SheetItem(
                label=item["label"],
                prompt=breakable_text(item["prompt"]),
                answer=breakable_text(answer.text),
                answer_length=answer.length if answer.truncated else 0,
            )
        )
    explanation = (row["explanation"] or "").strip()
    same_as = row["explanation_same_as"]
    return SheetTask(
        number=task.number,
        kind=task.get_task_type_display(),
        query=breakable_text(task.query),
        items=items,
        has_prompts=row["has_prompts"],
        explanation=(
            SafeString(breakable_html(explanation_html(explanation)))
            if same_as is None
            else SafeString("")
        ),
        explanation_same_as=same_as,
    )


def paper_sheets(papers: Iterable[Paper]) -> list[Sheet]:
    """Return each paper's sheet, in the given order, in a fixed number of queries."""
    papers = list(papers)
    build = sheet_builder(papers)
    return [build(paper) for paper in papers]


def sheet_builder(papers: list[Paper]) -> Callable[[Paper], Sheet]:
    """Load what the papers' sheets need in a fixed number of queries; return a builder.

    Building is per paper, so that a caller can isolate a paper whose text fails to render.
    """
    problem_ids = {p.problem_id for p in papers}
    problems = {
        p.pk: p for p in Problem.objects.filter(pk__in=problem_ids).select_related("competition")
    }
    tasks: dict[int, list[Task]] = defaultdict(list)
    for task in Task.objects.filter(problem_id__in=problem_ids).order_by("problem_id", "number"):
        tasks[task.problem_id].append(task)
    outputs = {
        (o.system_id, o.task_id): o
        for o in Output.objects.filter(
            task__problem_id__in=problem_ids, system_id__in={p.system_id for p in papers}
        ).only(
            "system_id",
            "task_id",
            "source",
            "parsed_items",
            "extracted_items",
            "explanation",
            "scores",
        )
    }
    criteria = current_rubrics(problem_ids)
    stamps = problem_stamps(criteria)
    problem_of = {t.pk: t.problem_id for problem_tasks in tasks.values() for t in problem_tasks}
    answered = {(system_id, problem_of[task_id]) for system_id, task_id in outputs}
    # Only papers without outputs may be held elsewhere: ask about their systems alone.
    bare = {p.system_id for p in papers if (p.system_id, p.problem_id) not in answered}
    external = external_system_ids(bare) if bare else set()

    def build(paper: Paper) -> Sheet:
        problem = problems[paper.problem_id]
        problem_tasks = tasks[problem.pk]
        rows = paper_answers(
            paper, problem_tasks, [outputs.get((paper.system_id, t.pk)) for t in problem_tasks]
        )
        return Sheet(
            code=paper.code,
            competition=problem.competition.name,
            problem_number=problem.number,
            problem_title=problem.title,
            language=problem.language_label,
            context=breakable_text(problem.context),
            tasks=[_sheet_task(row) for row in rows],
            grid=[
                GridRow(c.code, c.title, c.description, c.get_kind_display(), c.maximum, c.step)
                for c in criteria.get(problem.pk, [])
            ],
            held_elsewhere=answers_held_elsewhere(
                external=paper.system_id in external,
                has_outputs=(paper.system_id, paper.problem_id) in answered,
            ),
            rubric=stamps.get(problem.pk, NO_RUBRIC),
        )

    return build


def paper_text(paper: Paper) -> str:
    """Return the paper's answers and explanations in full, as plain text.

    Pages and PDFs cut long model text with a note that points here. Like a sheet, it holds
    no system, team, tier, rank, key or score.
    """
    problem = paper.problem
    title = f"Problem {problem.number}" + (f": {problem.title}" if problem.title else "")
    lines = [f"Paper {paper.code} · {title}"]
    if paper_held_elsewhere(paper):
        return "\n".join([*lines, "", HELD_ELSEWHERE_NOTE]) + "\n"
    lines.append("The answers and explanations of this paper in full, as the system gave them.")
    for row in paper_answers_of(paper):
        task: Task = row["task"]
        lines += ["", "", f"== Assignment {task.number} ({task.get_task_type_display()}) =="]
        lines += ["", "Answers:"]
        for item in row["items"]:
            lines.append(f"{item['number']}. {_text(item['answer']).strip()}")
        lines += ["", "Explanation:", (row["explanation"] or "").strip() or "(none)"]
    return "\n".join(lines) + "\n"

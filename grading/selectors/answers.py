"""Reads of a paper's answers: per task its items, key and exact-match flags, and whether
its answers are held elsewhere (an external system's, no output here).

Every function here runs a fixed number of queries whatever the number of papers.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import Exists, OuterRef

from puzzles.models import Competition, Output, System
from puzzles.questions import item_prompts

from ..models import Paper

# What a paper of an external system says in place of its answers, to its jurors: never the
# system, only where the answers are.
HELD_ELSEWHERE_NOTE = (
    "The answers of this paper are held elsewhere: the organizers keep them outside this site,"
    " so no answer or explanation is shown here (the paper is not blank). Grade it from the"
    " copy the organizers give you; if it is graded elsewhere, the organizers import its marks."
)


def answers_held_elsewhere(*, external: bool, has_outputs: bool) -> bool:
    """Return whether a paper's answers are held elsewhere: an external system's, no output here.

    An external system was created by an import of automatic figures; once outputs of the
    problem are imported for it, its paper shows them like any other.
    """
    return external and not has_outputs


def external_system_ids(system_ids: Iterable[int]) -> set[int]:
    """Return which of these systems are external (one query)."""
    return set(
        System.objects.filter(pk__in=set(system_ids), external=True).values_list("pk", flat=True)
    )


def papers_held_elsewhere(papers):
    """Keep the papers whose answers are held elsewhere (answers_held_elsewhere's rule as a
    query): an external system's, without an output of the paper's problem here."""
    outputs = Output.objects.filter(
        system=OuterRef("system_id"), task__problem=OuterRef("problem_id")
    )
    return papers.filter(system__external=True).exclude(Exists(outputs))


def paper_held_elsewhere(paper: Paper) -> bool:
    """Return whether the paper's answers are held elsewhere (one query)."""
    return papers_held_elsewhere(Paper.objects.filter(pk=paper.pk)).exists()


@dataclass(frozen=True)
class Recognisable:
    """A selected system whose papers of some problems hold no answers here: their jurors
    see it, so these papers do not look like the others."""

    system: str
    problems: list[int]

    def line(self) -> str:
        """Return the warning as a command prints it."""
        return f"warning: {self.text}"

    @property
    def text(self) -> str:
        numbers = ", ".join(map(str, self.problems))
        plural = "s" if len(self.problems) != 1 else ""
        return (
            f"the papers of {self.system} (problem{plural} {numbers}) will be"
            " recognisable: their answers are held elsewhere, so their jurors read a note in"
            " place of the answers and can tell them from every other paper. Import the"
            " system's outputs (Import outputs, or manage.py import_outputs) and its papers"
            " look like every other paper"
        )


def papers_recognisable(
    competition: Competition, system_names: Iterable[str] | None = None
) -> list[Recognisable]:
    """Return the systems with papers held elsewhere (of these systems, or of all), by name,
    with their problems (one query)."""
    papers = Paper.objects.filter(problem__competition=competition)
    if system_names is not None:
        papers = papers.filter(system__name__in=list(system_names))
    problems: dict[str, list[int]] = defaultdict(list)
    for name, number in (
        papers_held_elsewhere(papers)
        .order_by("system__name", "problem__number")
        .values_list("system__name", "problem__number")
    ):
        problems[name].append(number)
    return [Recognisable(name, numbers) for name, numbers in problems.items()]


def paper_answers_of(paper: Paper) -> list[dict]:
    """Return the paper's answers as paper_answers does, loading its tasks and outputs."""
    tasks = list(paper.problem.tasks.order_by("number"))
    outputs = {
        o.task_id: o
        for o in Output.objects.filter(system_id=paper.system_id, task__problem=paper.problem_id)
    }
    return paper_answers(paper, tasks, [outputs.get(t.pk) for t in tasks])


def paper_answers(paper: Paper, tasks: list, outputs: list) -> list[dict]:
    """Return per task the items with their question, the key and the exact-match flag the
    paper earned, and the explanation (with the earlier assignment it repeats, if any)."""
    rows = []
    earlier: dict[str, int] = {}  # explanation -> the first assignment that gave it
    for task, output in zip(tasks, outputs, strict=True):
        items = []
        stage = output.official_stage if output else "parsed"
        answer = (
            (output.extracted_items if stage == "extracted" else output.parsed_items)
            if output
            else []
        )
        flags = output.scores.get("iol2026", {}).get(stage, {}).get("item_em", []) if output else []
        prompts = item_prompts(task.query, len(task.answer_key))
        for index, key in enumerate(task.answer_key):
            items.append(
                {
                    "number": index + 1,
                    "label": prompts[index][0] if prompts else str(index + 1),
                    "prompt": prompts[index][1] if prompts else "",
                    "answer": answer[index] if index < len(answer) else "",
                    "key": key,
                    "exact": bool(flags[index]) if index < len(flags) else False,
                }
            )
        explanation = output.explanation if output else ""
        shared = (explanation or "").strip()
        same_as = earlier.get(shared) if shared else None
        if shared and same_as is None:
            earlier[shared] = task.number
        rows.append(
            {
                "task": task,
                "items": items,
                "has_prompts": prompts is not None,
                "explanation": explanation,
                "explanation_same_as": same_as,
            }
        )
    return rows

"""Runs' scores per problem and overall, from their scored outputs (RunOutput), by the one
rule of `stats.scores` (the competition's, as on the board): the score over all the
competition's tasks, a task without an output counting as 0, and a score for each problem
the run has an output on (an unanswered problem is left out, not given 0)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from django.db.models import QuerySet

from ...models import RunOutput, Task
from ..stats.scores import TaskRef, run_figures

# The key of a run's score over all tasks of its competition in run_problem_scores' answer.
ALL_TASKS = None


def run_problem_scores(runs: Iterable[int]) -> dict[int, dict[int | None, float]]:
    """Return {run id: {problem number: score, ALL_TASKS: score over all tasks}} (0-1) for
    the runs with at least one output (a run without outputs is left out: it has no figures,
    not zero ones). Two queries whatever the number of runs."""
    outputs, competition_of = run_outputs(RunOutput.objects.filter(run_id__in=list(runs)))
    if not outputs:
        return {}
    tasks = task_refs(set(competition_of.values()))
    result: dict[int, dict[int | None, float]] = {}
    for run_id, run_outputs_ in outputs.items():
        overall, per_problem = run_figures(run_outputs_, tasks[competition_of[run_id]])
        result[run_id] = {**per_problem, ALL_TASKS: overall}
    return result


def run_outputs(
    rows: QuerySet[RunOutput],
) -> tuple[dict[int, dict[int, tuple[float, float]]], dict[int, int]]:
    """Return, in one query, each run's outputs (run id -> task id -> (exact match, chrF))
    and each run's competition id, for the runs with an output among `rows`."""
    outputs: dict[int, dict[int, tuple[float, float]]] = defaultdict(dict)
    competition_of: dict[int, int] = {}
    for run_id, task_id, em, chrf, competition in rows.values_list(
        "run_id", "task_id", "exact_match", "chrf", "run__system__competition_id"
    ):
        outputs[run_id][task_id] = (em, chrf)
        competition_of[run_id] = competition
    return dict(outputs), competition_of


def task_refs(competitions: Iterable[int]) -> dict[int, list[TaskRef]]:
    """Return, in one query, each competition's tasks (by problem, then task number) as
    aggregation needs them."""
    tasks: dict[int, list[TaskRef]] = {c: [] for c in competitions}
    for pk, number, weight, competition in (
        Task.objects.filter(problem__competition_id__in=list(tasks))
        .order_by("problem__number", "number")
        .values_list("pk", "problem__number", "weight", "problem__competition_id")
    ):
        tasks[competition].append(TaskRef(pk, number, weight))
    return tasks

"""A run's scores from its outputs per task: the one aggregation rule of the analytics
(runs with outputs, ablations). Pure: no Django; plain outputs and `TaskRef` in.

The rule is the competition's (`puzzles.metrics.aggregate`, as on the board): over a set of
tasks, the weighted mean EM and the weighted mean chrF by the tasks' weights, score =
sqrt(EM x chrF), 4 decimals, 0 when the tasks weigh nothing. Over a given set of tasks a
task the run has no output for counts as 0 (an empty answer), as on the board. A run's
figure on a problem is given only when it has an output on one of the problem's tasks: a
run made for two problems says nothing about a third, so an unanswered problem is left out
rather than given 0.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ...metrics import aggregate


@dataclass(frozen=True)
class TaskRef:
    """What aggregation needs of a task."""

    id: int
    problem: int
    weight: float


def score_over(outputs: Mapping[int, tuple[float, float]], tasks: Iterable[TaskRef]) -> float:
    """Return the score of a run's outputs (task id -> (exact match, chrF)) over `tasks`,
    a task without an output counting as 0."""
    return aggregate((t.weight, *outputs.get(t.id, (0.0, 0.0))) for t in tasks).score


def answered(outputs: Mapping[int, object], tasks: Iterable[TaskRef]) -> bool:
    """Tell whether the run has an output on one of `tasks`."""
    return any(t.id in outputs for t in tasks)


def by_problem(tasks: Iterable[TaskRef]) -> dict[int, list[TaskRef]]:
    """Group tasks by problem number, in problem order."""
    groups: dict[int, list[TaskRef]] = defaultdict(list)
    for task in tasks:
        groups[task.problem].append(task)
    return dict(sorted(groups.items()))


def run_figures(
    outputs: Mapping[int, tuple[float, float]], tasks: Sequence[TaskRef]
) -> tuple[float, dict[int, float]]:
    """Return a run's score over all `tasks` and its score per problem it has an output on."""
    per_problem = {
        number: score_over(outputs, group)
        for number, group in by_problem(tasks).items()
        if answered(outputs, group)
    }
    return score_over(outputs, tasks), per_problem

"""Runs' scores per problem and overall, from their scored outputs (RunOutput), aggregated
by the competition's rule: over a set of tasks, EM and chrF are the task-weighted means and
the score is sqrt(EM x chrF), each rounded to 4 decimals (puzzles.metrics.aggregate, through
puzzles.auto_scores, as the board and the systems' figures are). A task a run has no output
for counts as an empty answer (0), as on the board."""

from __future__ import annotations

from collections.abc import Iterable

from ..auto_scores import SystemEntry, auto_scores
from ..leaderboard import Cell, TaskInfo
from ..models import RunOutput, Task

# The key of a run's score over all tasks of its competition in run_problem_scores' answer.
ALL_TASKS = None


def run_problem_scores(runs: Iterable[int]) -> dict[int, dict[int | None, float]]:
    """Return {run id: {problem number: score, ALL_TASKS: score over all tasks}} (0-1) for
    the runs with at least one output (a run without outputs is left out: it has no figures,
    not zero ones). Two queries whatever the number of runs."""
    rows = list(
        RunOutput.objects.filter(run_id__in=list(runs)).values_list(
            "run_id", "task_id", "exact_match", "chrf", "run__system__competition_id"
        )
    )
    if not rows:
        return {}
    competition_of = {run_id: competition for run_id, _, _, _, competition in rows}
    tasks_by_competition: dict[int, list[TaskInfo]] = {}
    problem_of: dict[int, int] = {}
    for pk, external_id, weight, split, number, competition in (
        Task.objects.filter(problem__competition_id__in=set(competition_of.values()))
        .order_by("problem__number", "number")
        .values_list(
            "pk", "external_id", "weight", "split", "problem__number", "problem__competition_id"
        )
    ):
        tasks_by_competition.setdefault(competition, []).append(
            TaskInfo(pk, external_id, weight, split)
        )
        problem_of[pk] = number
    cells = {
        (run_id, task_id): Cell(em=em, chrf=chrf, empty=False)
        for run_id, task_id, em, chrf, _ in rows
    }
    result: dict[int, dict[int | None, float]] = {}
    for competition, tasks in tasks_by_competition.items():
        # A run is aggregated exactly as a system with outputs is.
        entries = [
            SystemEntry(id=run_id, name="", tier="", has_outputs=True)
            for run_id, of in competition_of.items()
            if of == competition
        ]
        for figures in auto_scores(
            tasks=tasks, problem_of=problem_of, systems=entries, cells=cells, imported={}
        ):
            scores: dict[int | None, float] = {
                number: f.score for number, f in figures.per_problem.items()
            }
            scores[ALL_TASKS] = figures.overall.score
            result[figures.system_id] = scores
    return result

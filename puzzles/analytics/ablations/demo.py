"""The demo competition's ablation runs, all invented: three systems, each run under a
reference condition and two ablated ones with seeds 1-3, with a scored output per task.

A run's task figures are the system's own demo output figures (iol2026, parsed), shifted
by the condition and moved a little by the seed, all deterministic: "shuffled examples"
costs a lot (its change is flagged), "no language name" costs nothing on average (its
interval includes zero). Idempotent: the earlier demo ablation runs are replaced. Call it
after `runs_demo_load`, whose import replaces all the competition's runs."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from django.db import transaction
from django.db.models import Max

from ...metrics import aggregate
from ...models import Competition, Output, Run, RunOutput, System, Task

REFERENCE = "reference"
CONDITIONS = {REFERENCE: 0.0, "no language name": 0.0, "shuffled examples": 0.25}
SEEDS = (1, 2, 3)
SYSTEMS = ("Frontier-A", "Frontier-B", "Team Lexicon")
FIRST_INDEX = 1000  # ordinary demo runs are numbered from 1
START = datetime(2026, 3, 10, 9, tzinfo=UTC)


def _jitter(*keys: int) -> float:
    """A deterministic wobble in [-0.04, 0.04]."""
    value = 0
    for key in keys:
        value = (value * 31 + key * 17 + 7) % 9
    return (value - 4) / 100


def _clamp(value: float) -> float:
    return min(1.0, max(0.0, round(value, 4)))


@transaction.atomic
def ablations_demo_load(competition: Competition) -> int:
    """Replace the demo ablation runs of the competition; return how many runs it made."""
    systems = list(
        System.objects.filter(competition=competition, name__in=SYSTEMS).order_by("name")
    )
    Run.objects.filter(system__in=systems, condition__in=CONDITIONS).delete()
    tasks = list(
        Task.objects.filter(problem__competition=competition).order_by("problem__number", "number")
    )
    base: dict[tuple[int, int], tuple[float, float]] = {}
    for system_id, task_id, scores in Output.objects.filter(
        system__in=systems, task__in=tasks
    ).values_list("system_id", "task_id", "scores"):
        figures = scores.get("iol2026", {}).get("parsed", {})
        base[(system_id, task_id)] = (
            float(figures.get("em", 0.0)),
            float(figures.get("chrf", 0.0)),
        )
    last = dict(
        Run.objects.filter(system__in=systems)
        .values_list("system_id")
        .annotate(last=Max("run_index"))
    )
    made = 0
    for s, system in enumerate(systems):
        index = max(FIRST_INDEX, (last.get(system.pk) or 0) + 1)
        for c, (condition, shift) in enumerate(CONDITIONS.items()):
            for seed in SEEDS:
                outputs = []
                for t, task in enumerate(tasks):
                    em, chrf = base.get((system.pk, task.pk), (0.0, 0.0))
                    wobble = _jitter(s, c, seed, t)
                    outputs.append(
                        (task, _clamp(em - shift + wobble), _clamp(chrf - 0.6 * shift + wobble))
                    )
                score = aggregate((task.weight, em, chrf) for task, em, chrf in outputs).score
                run = Run.objects.create(
                    system=system,
                    run_index=index,
                    submission_id=f"demo-ablation-{s + 1}-{c}-{seed}",
                    submitted_at=START + timedelta(hours=index - FIRST_INDEX),
                    status=Run.Status.SCORED,
                    public_score=score,
                    condition=condition,
                    seed=seed,
                )
                RunOutput.objects.bulk_create(
                    RunOutput(run=run, task=task, raw_text="", exact_match=em, chrf=chrf)
                    for task, em, chrf in outputs
                )
                index += 1
                made += 1
    return made

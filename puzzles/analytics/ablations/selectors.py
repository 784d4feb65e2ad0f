"""The ablations page: per model, condition and problem the change against the reference
condition, with its interval across seeds, in three queries whatever the data size (the
runs with a condition, their outputs, the competition's tasks).

The reference is the condition the organizer picks among the competition's conditions;
without a valid pick it is `default_reference`: a condition named "reference", "baseline",
"full" or "none" (any case), else the condition with the most runs. Only runs with outputs
(RunOutput rows) count; a run with a condition but no outputs is counted on the page and
left out of the figures (its public score is not used). Runs' outputs and the tasks are
read as `run_scores` reads them, and scored by the one rule of `stats.scores`; both sides
of a change are scored over the tasks every run compared answered (`tasks_compared` of
`tasks_total` in the exports).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ioleval.multiplicity import ALPHA, describe, family_size

from ...models import Competition, Run, RunOutput
from ..runs import run_outputs, task_refs
from ..stats.ablations import AblationRun, Change, ablation_changes, default_reference

ALL_TASKS = "all"
EXPORT_HEADER = [
    "model",
    "condition",
    "reference",
    "problem",
    "reference_mean",
    "condition_mean",
    "change",
    "ci_low",
    "ci_high",
    "method",
    "n_reference_seeds",
    "n_condition_seeds",
    "interval_excludes_zero",
    "p",
    "p_holm",
    "flagged",
    "tasks_compared",
    "tasks_total",
    "note",
]


@dataclass(frozen=True)
class ConditionCount:
    condition: str
    runs: int
    with_outputs: int


@dataclass(frozen=True)
class ModelBlock:
    """One model's changes: per condition, the overall change, then per problem."""

    system: str
    changes: list[Change]

    @property
    def overall(self) -> list[Change]:
        return [c for c in self.changes if c.problem is None]


@dataclass(frozen=True)
class AblationsPage:
    competition: Competition
    conditions: list[ConditionCount]
    reference: str | None
    changes: list[Change]

    @property
    def models(self) -> list[ModelBlock]:
        blocks: dict[str, ModelBlock] = {}
        for change in self.changes:
            blocks.setdefault(change.system, ModelBlock(change.system, [])).changes.append(change)
        return list(blocks.values())

    @property
    def runs_without_outputs(self) -> int:
        return sum(c.runs - c.with_outputs for c in self.conditions)

    @property
    def flagged(self) -> int:
        """Return how many changes are flagged (Holm-adjusted p at most 0.05)."""
        return sum(c.flagged for c in self.changes)

    @property
    def excluding_zero(self) -> int:
        """Return how many intervals exclude zero (the unadjusted test at 5%)."""
        return sum(c.excludes_zero for c in self.changes)

    @property
    def tested(self) -> int:
        """Return how many changes have a test: the Holm family's size."""
        return family_size([c.interval.p for c in self.changes])

    @property
    def multiplicity(self) -> str:
        return describe([c.interval.p for c in self.changes])

    def forest(self) -> list[tuple[str, str, float, float | None, float | None, bool]]:
        """(model, condition, change, low, high, flagged) of the overall changes."""
        return [
            (c.system, c.condition, c.change, c.interval.low, c.interval.high, c.flagged)
            for c in self.changes
            if c.problem is None and c.change is not None
        ]

    def export_rows(self) -> list[list[object]]:
        return [
            [
                c.system,
                c.condition,
                self.reference,
                ALL_TASKS if c.problem is None else c.problem,
                c.reference_mean,
                c.condition_mean,
                c.change,
                c.interval.low,
                c.interval.high,
                c.interval.method,
                c.n_reference,
                c.n_condition,
                "yes" if c.excludes_zero else "no",
                c.interval.p,
                c.interval.p_adjusted,
                "yes" if c.flagged else "no",
                c.tasks_compared,
                c.tasks_total,
                c.note,
            ]
            for c in self.changes
        ]

    def as_json(self) -> dict:
        return {
            "reference": self.reference,
            "multiplicity": self.multiplicity,
            "flagged": f"Holm-adjusted p-value at most {ALPHA:g}",
            "conditions": [
                {"condition": c.condition, "runs": c.runs, "runs_with_outputs": c.with_outputs}
                for c in self.conditions
            ],
            "changes": [dict(zip(EXPORT_HEADER, row, strict=True)) for row in self.export_rows()],
        }


def ablations_page(competition: Competition, reference: str | None = None) -> AblationsPage:
    """The page's figures against `reference` (the default when it is not a condition of
    the competition's runs)."""
    runs = list(
        Run.objects.ablations()
        .filter(system__competition=competition)
        .order_by("system__name", "run_index")
        .values_list("pk", "system__name", "condition", "seed", "run_index")
    )
    outputs, _ = run_outputs(
        RunOutput.objects.filter(run__system__competition=competition).exclude(run__condition="")
    )
    tasks = task_refs([competition.pk])[competition.pk]
    counts = Counter(condition for _, _, condition, _, _ in runs)
    with_outputs = Counter(condition for pk, _, condition, _, _ in runs if outputs.get(pk))
    conditions = [ConditionCount(c, counts[c], with_outputs[c]) for c in sorted(counts)]
    if reference not in counts:
        reference = default_reference(counts)
    ablation_runs = [
        AblationRun(system, condition, seed, index, outputs.get(pk, {}))
        for pk, system, condition, seed, index in runs
    ]
    changes = ablation_changes(ablation_runs, tasks, reference) if reference else []
    return AblationsPage(competition, conditions, reference, changes)


def ablations_json(competition: Competition) -> dict:
    """The ablations against the default reference, for `manage.py report`."""
    return ablations_page(competition).as_json()

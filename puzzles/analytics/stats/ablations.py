"""Ablations (issue 12, item 7): how a model's score changes when its runs are made under a
condition (such as "no language information") instead of the reference condition, with a
95% interval across seeds. Pure: no Django; plain `AblationRun` and `TaskRef` in,
dataclasses out.

A run's score follows the competition's rule (`puzzles.metrics.aggregate`): the weighted
mean EM and the weighted mean chrF over the tasks by their weight, score = sqrt(EM x chrF),
4 decimals, 0 when the tasks weigh nothing; a task the run has no output for counts as 0,
as on the board. Only runs with at least one output count: the overall figure is over all
the competition's tasks; a problem's figure only over runs with an output on one of its
tasks (a run made for two problems says nothing about a third).

A seed is one sample. Two runs of one model, condition and seed are averaged; a run without
a seed is a sample of its own. The change is the mean over the condition's samples minus
the mean over the reference's. Its 95% interval is the paired t interval by seed
(`scipy.stats.ttest_rel`) when both sides have exactly the same seeds, else Welch's
(`scipy.stats.ttest_ind(equal_var=False)`). With fewer than 2 samples on a side, or no
spread at all (identical figures), there is no interval and `note` says why. A change is
flagged when its interval excludes zero.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from scipy import stats as sps

from ...metrics import aggregate

CONFIDENCE = 0.95
MIN_SEEDS = 2
PAIRED = "paired"
WELCH = "Welch"
DEFAULT_NAMES = ("reference", "baseline", "full", "none")


@dataclass(frozen=True)
class TaskRef:
    """What aggregation needs of a task."""

    id: int
    problem: int
    weight: float


@dataclass(frozen=True)
class AblationRun:
    """One run under a condition with its outputs: task id -> (exact match, chrF)."""

    system: str
    condition: str
    seed: int | None
    run_index: int
    outputs: Mapping[int, tuple[float, float]]


@dataclass(frozen=True)
class Interval:
    """A change with its interval (None, and `note` says why, when it cannot be given)."""

    change: float | None
    low: float | None
    high: float | None
    method: str  # PAIRED, WELCH or "" without an interval
    note: str = ""

    @property
    def flagged(self) -> bool:
        """Tell whether the interval excludes zero."""
        return self.low is not None and self.high is not None and (self.low > 0 or self.high < 0)


@dataclass(frozen=True)
class Change:
    """A model's change under a condition against the reference, overall (problem None) or
    on one problem."""

    system: str
    condition: str
    problem: int | None
    reference_mean: float | None
    condition_mean: float | None
    n_reference: int
    n_condition: int
    interval: Interval

    @property
    def change(self) -> float | None:
        return self.interval.change

    @property
    def flagged(self) -> bool:
        return self.interval.flagged


def default_reference(run_counts: Mapping[str, int]) -> str | None:
    """Choose the reference condition: the first of DEFAULT_NAMES present (any case), else
    the condition with the most runs (ties: the first by name); None without conditions."""
    by_lower = {c.casefold(): c for c in sorted(run_counts)}
    for name in DEFAULT_NAMES:
        if name in by_lower:
            return by_lower[name]
    if not run_counts:
        return None
    return min(run_counts, key=lambda c: (-run_counts[c], c))


def run_figures(
    outputs: Mapping[int, tuple[float, float]], tasks: Sequence[TaskRef]
) -> tuple[float, dict[int, float]]:
    """Return a run's overall score and its score per problem it has an output on."""
    rows = {t.id: (t.weight, *outputs.get(t.id, (0.0, 0.0))) for t in tasks}
    overall = aggregate(rows.values()).score
    by_problem: dict[int, list[TaskRef]] = defaultdict(list)
    for task in tasks:
        by_problem[task.problem].append(task)
    per_problem = {
        number: aggregate(rows[t.id] for t in group).score
        for number, group in sorted(by_problem.items())
        if any(t.id in outputs for t in group)
    }
    return overall, per_problem


def change_interval(
    reference: Mapping[object, float], condition: Mapping[object, float]
) -> Interval:
    """The change of the condition's mean against the reference's, samples keyed by seed
    (a key that is not an int, such as ("run", 7), is a run without a seed)."""
    ref, cond = list(reference.values()), list(condition.values())
    if not ref or not cond:
        side = "the reference" if not ref else "the condition"
        return Interval(None, None, None, "", f"No run under {side}.")
    change = _mean(cond) - _mean(ref)
    if len(ref) < MIN_SEEDS or len(cond) < MIN_SEEDS:
        return Interval(
            change,
            None,
            None,
            "",
            f"No interval: {len(cond)} seed(s) under the condition and {len(ref)} under the "
            f"reference; an interval needs at least {MIN_SEEDS} on each side.",
        )
    seeds = sorted(k for k in reference if isinstance(k, int))
    paired = len(seeds) == len(reference) and set(reference) == set(condition)
    if paired:
        a = [condition[s] for s in seeds]
        b = [reference[s] for s in seeds]
        if len({round(x - y, 12) for x, y in zip(a, b, strict=True)}) == 1:
            return Interval(change, None, None, "", _NO_SPREAD)
        ci = sps.ttest_rel(a, b).confidence_interval(CONFIDENCE)
        method = PAIRED
    else:
        if len(set(ref)) == 1 and len(set(cond)) == 1:
            return Interval(change, None, None, "", _NO_SPREAD)
        ci = sps.ttest_ind(cond, ref, equal_var=False).confidence_interval(CONFIDENCE)
        method = WELCH
    low, high = float(ci.low), float(ci.high)
    if not (math.isfinite(low) and math.isfinite(high)):
        return Interval(change, None, None, "", _NO_SPREAD)
    return Interval(change, low, high, method)


_NO_SPREAD = (
    "No interval: the seeds give identical figures, so there is no spread to build one from."
)


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def _samples(runs: Iterable[tuple[AblationRun, float]]) -> dict[object, float]:
    """Average a seed's runs; a run without a seed is a sample of its own."""
    groups: dict[object, list[float]] = defaultdict(list)
    for run, value in runs:
        key = run.seed if run.seed is not None else ("run", run.run_index)
        groups[key].append(value)
    return {k: _mean(v) for k, v in groups.items()}


def ablation_changes(
    runs: Iterable[AblationRun], tasks: Sequence[TaskRef], reference: str
) -> list[Change]:
    """Return per model (by name), per condition other than the reference (by name): the
    overall change, then the change on each problem some of its runs answered."""
    scored: dict[tuple[str, str], list[tuple[AblationRun, float, dict[int, float]]]] = defaultdict(
        list
    )
    for run in runs:
        if not run.outputs:
            continue
        overall, per_problem = run_figures(run.outputs, tasks)
        scored[(run.system, run.condition)].append((run, overall, per_problem))
    systems = sorted({s for s, _ in scored})
    conditions = sorted({c for _, c in scored} - {reference})
    changes: list[Change] = []
    for system in systems:
        ref_runs = scored.get((system, reference), [])
        for condition in conditions:
            cond_runs = scored.get((system, condition), [])
            if not cond_runs:
                continue
            problems = sorted({n for _, _, p in [*ref_runs, *cond_runs] for n in p})
            keys: list[int | None] = [None, *problems]
            for problem in keys:
                ref = _samples(_pick(ref_runs, problem))
                cond = _samples(_pick(cond_runs, problem))
                changes.append(
                    Change(
                        system=system,
                        condition=condition,
                        problem=problem,
                        reference_mean=_mean(list(ref.values())) if ref else None,
                        condition_mean=_mean(list(cond.values())) if cond else None,
                        n_reference=len(ref),
                        n_condition=len(cond),
                        interval=change_interval(ref, cond),
                    )
                )
    return changes


def _pick(
    runs: Sequence[tuple[AblationRun, float, dict[int, float]]], problem: int | None
) -> list[tuple[AblationRun, float]]:
    if problem is None:
        return [(run, overall) for run, overall, _ in runs]
    return [(run, per[problem]) for run, _, per in runs if problem in per]

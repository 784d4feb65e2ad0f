"""Ablations (issue 12, item 7): how a model's score changes when its runs are made under a
condition (such as "no language information") instead of the reference condition, with a
95% interval across seeds. Pure: no Django; plain `AblationRun` and `TaskRef` in,
dataclasses out.

A run's score follows the one rule of `stats.scores` (the competition's, through
`puzzles.metrics.aggregate`): the weighted mean EM and the weighted mean chrF over a set
of tasks by their weight, score = sqrt(EM x chrF), 4 decimals, 0 when the tasks weigh
nothing. Only runs with at least one output count.

Like with like: the two sides are scored over the same tasks. For the overall change the
tasks compared are those every run of the model under the condition and under the
reference has an output on; for a problem, the problem's tasks that every run answering
one of them has an output on (a run made for two problems says nothing about a third).
A task one run lacks is left out for all, never counted as 0 on one side only: otherwise
a condition whose runs answered problems 1-2 only would show a large, flagged drop that
reflects coverage, not the condition. When fewer than all the scope's tasks are compared,
`tasks_compared` says how many and `note` says so ("over k of n tasks"); a change over
fewer tasks is flagged by the same rule, as it compares like with like.

A seed is one sample. Two runs of one model, condition and seed are averaged; a run without
a seed is a sample of its own. The change is the mean over the condition's samples minus
the mean over the reference's. Its 95% interval is the paired t interval by seed
(`scipy.stats.ttest_rel`) when both sides have exactly the same seeds, else Welch's
(`scipy.stats.ttest_ind(equal_var=False)`). With fewer than 2 samples on a side, or no
spread at all (identical figures), there is no interval and `note` says why.

Many changes are read at once (every model, condition and problem), so an interval that
excludes zero (the unadjusted 5% test) is not the flag: the same t test's p-values of all
the changes returned together are one family, adjusted by Holm's step-down procedure
(`ioleval.multiplicity`: valid whatever the dependence, and a model's overall change shares
its runs with its per-problem ones); a change is flagged when its adjusted p-value is at
most 0.05.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from scipy import stats as sps

from ioleval.multiplicity import ALPHA, holm

from .scores import TaskRef, answered, by_problem, score_over
from .scores import run_figures as run_figures  # re-exported: the rule lives in stats.scores

CONFIDENCE = 0.95
MIN_SEEDS = 2
PAIRED = "paired"
WELCH = "Welch"
DEFAULT_NAMES = ("reference", "baseline", "full", "none")


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
    p: float | None = None  # the t test's two-sided p-value (None without an interval)
    p_adjusted: float | None = None  # Holm's, over the changes returned together

    @property
    def excludes_zero(self) -> bool:
        """Tell whether the interval excludes zero (the test at 5%, unadjusted)."""
        return self.low is not None and self.high is not None and (self.low > 0 or self.high < 0)

    @property
    def flagged(self) -> bool:
        """Tell whether the Holm-adjusted p-value is at most 0.05."""
        return self.p_adjusted is not None and self.p_adjusted <= ALPHA


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
    tasks_compared: int = 0  # the tasks both sides are scored over
    tasks_total: int = 0  # the scope's tasks: all the competition's, or the problem's
    coverage_note: str = ""

    @property
    def note(self) -> str:
        """Say over which tasks the change is taken (when not all) and why no interval."""
        return " ".join(n for n in (self.coverage_note, self.interval.note) if n)

    @property
    def change(self) -> float | None:
        return self.interval.change

    @property
    def flagged(self) -> bool:
        return self.interval.flagged

    @property
    def excludes_zero(self) -> bool:
        return self.interval.excludes_zero


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
        test = sps.ttest_rel(a, b)
        method = PAIRED
    else:
        if len(set(ref)) == 1 and len(set(cond)) == 1:
            return Interval(change, None, None, "", _NO_SPREAD)
        test = sps.ttest_ind(cond, ref, equal_var=False)
        method = WELCH
    ci = test.confidence_interval(CONFIDENCE)
    low, high, p = float(ci.low), float(ci.high), float(test.pvalue)
    if not (math.isfinite(low) and math.isfinite(high) and math.isfinite(p)):
        return Interval(change, None, None, "", _NO_SPREAD)
    return Interval(change, low, high, method, p=p)


_NO_SPREAD = (
    "No interval: the seeds give identical figures, so there is no spread to build one from."
)


_NO_COMMON_TASK = (
    "No change: no task is answered by every run compared, so there is nothing to compare."
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
    overall change, then the change on each problem some of its runs answered; their
    p-values adjusted together by Holm (one family)."""
    grouped: dict[tuple[str, str], list[AblationRun]] = defaultdict(list)
    for run in runs:
        if run.outputs:
            grouped[(run.system, run.condition)].append(run)
    problems = by_problem(tasks)
    systems = sorted({s for s, _ in grouped})
    conditions = sorted({c for _, c in grouped} - {reference})
    changes: list[Change] = []
    for system in systems:
        ref_runs = grouped.get((system, reference), [])
        for condition in conditions:
            cond_runs = grouped.get((system, condition), [])
            if not cond_runs:
                continue
            scopes: list[tuple[int | None, Sequence[TaskRef]]] = [(None, tasks)]
            scopes += [
                (number, group)
                for number, group in problems.items()
                if any(answered(r.outputs, group) for r in [*ref_runs, *cond_runs])
            ]
            for problem, scope in scopes:
                changes.append(_change(system, condition, problem, scope, ref_runs, cond_runs))
    adjusted = holm([c.interval.p for c in changes])
    return [
        replace(c, interval=replace(c.interval, p_adjusted=a))
        for c, a in zip(changes, adjusted, strict=True)
    ]


def compared_tasks(runs: Iterable[AblationRun], scope: Sequence[TaskRef]) -> list[TaskRef]:
    """Return the tasks of `scope` that every run answering one of them has an output on."""
    present = [r for r in runs if answered(r.outputs, scope)]
    return [t for t in scope if all(t.id in r.outputs for r in present)]


def _change(
    system: str,
    condition: str,
    problem: int | None,
    scope: Sequence[TaskRef],
    ref_runs: Sequence[AblationRun],
    cond_runs: Sequence[AblationRun],
) -> Change:
    ref_in = [r for r in ref_runs if answered(r.outputs, scope)]
    cond_in = [r for r in cond_runs if answered(r.outputs, scope)]
    compared = compared_tasks([*ref_in, *cond_in], scope)
    ref = _samples((r, score_over(r.outputs, compared)) for r in ref_in)
    cond = _samples((r, score_over(r.outputs, compared)) for r in cond_in)
    coverage = ""
    if compared and len(compared) < len(scope):
        coverage = (
            f"Over {len(compared)} of {len(scope)} tasks, those every run compared answered "
            f"(condition runs answer {len(compared_tasks(cond_in, scope))}, reference runs "
            f"{len(compared_tasks(ref_in, scope))})."
        )
    interval = change_interval(ref, cond)
    if not compared:
        interval = Interval(None, None, None, "", _NO_COMMON_TASK)
    return Change(
        system=system,
        condition=condition,
        problem=problem,
        reference_mean=_mean(list(ref.values())) if ref and compared else None,
        condition_mean=_mean(list(cond.values())) if cond and compared else None,
        n_reference=len(ref),
        n_condition=len(cond),
        interval=interval,
        tasks_compared=len(compared),
        tasks_total=len(scope),
        coverage_note=coverage,
    )

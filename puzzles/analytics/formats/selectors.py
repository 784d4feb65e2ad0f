"""The format-failure pages' reads: the prevalence matrix, the gain from extraction, a cell's
outputs (a constant number of queries; the rules are in stats/formats.py).

The families are detected as an output is prepared or rescored and stored in its
format_flags; an output without them (stored before they were kept, or against another item
count) is detected here, and the next rescore stores it."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.http import Http404

from ...models import Competition, Output, System, Task
from ...selectors import extraction_effect
from ..stats.formats import (
    FAMILIES,
    FAMILY_LABELS,
    STAGES,
    Failures,
    SystemTasks,
    failures_stored,
    format_failures,
    prevalence,
)


@dataclass
class FormatRow:
    """One system's line of the matrix: shares by stage and family, and its scores."""

    system_id: int
    system: str
    tier: str
    shares: dict[str, dict[str, float]]
    score_before: float = 0.0
    score_after: float = 0.0
    gain: float = 0.0

    def cells(self) -> list[tuple[str, str, float]]:
        """Return (family, stage, share) in the table's column order."""
        return [(f, s, self.shares[s][f]) for f in FAMILIES for s in STAGES]


@dataclass
class FormatsPage:
    competition: Competition
    metric: str
    n_tasks: int
    rows: list[FormatRow] = field(default_factory=list)
    families: tuple[tuple[str, str], ...] = tuple(FAMILY_LABELS.items())
    stages: tuple[str, ...] = STAGES

    def table(self) -> tuple[list[str], list[list[object]]]:
        """Return the matrix as an export's header and rows (shares 0-1)."""
        header = ["system", "tier"]
        header += [f"{f}_{s}" for f in FAMILIES for s in STAGES]
        header += ["score_before", "score_after", "gain"]
        body = [
            [r.system, r.tier, *(v for _, _, v in r.cells()), r.score_before, r.score_after, r.gain]
            for r in self.rows
        ]
        return header, body


def formats_page(competition: Competition, *, metric: str = "iol2026") -> FormatsPage:
    """Return the prevalence matrix of every system with outputs, in name order, and each
    system's score gain from extraction (the stored parsed and extracted scores)."""
    n_items = {
        pk: len(key)
        for pk, key in Task.objects.filter(problem__competition=competition).values_list(
            "pk", "answer_key"
        )
    }
    by_system: dict[int, list[Failures]] = {}
    outputs = Output.objects.filter(system__competition=competition)
    missing: list[int] = []
    rows = outputs.values_list("pk", "system_id", "task_id", "format_flags")
    for pk, system_id, task_id, flags in rows.iterator(chunk_size=2000):
        failures = failures_stored(flags, n_items[task_id])
        if failures is None:
            missing.append(pk)
        else:
            by_system.setdefault(system_id, []).append(failures)
    if missing:  # one more query, whatever the number of outputs without stored failures
        rows = outputs.filter(pk__in=missing).values_list(
            "system_id", "task_id", "raw_text", "extracted_items"
        )
        for system_id, task_id, raw_text, extracted in rows.iterator(chunk_size=2000):
            failures = format_failures(raw_text, n_items[task_id], extracted or [])
            by_system.setdefault(system_id, []).append(failures)
    systems = (
        System.objects.filter(pk__in=by_system).order_by("name").values_list("pk", "name", "tier")
    )
    effect = {e["system"]: e for e in extraction_effect(competition, metric=metric)}
    page = FormatsPage(competition=competition, metric=metric, n_tasks=len(n_items))
    for pk, name, tier in systems:
        shares = prevalence(SystemTasks(pk, by_system[pk], len(n_items)))
        row = FormatRow(pk, name, tier, shares)
        if name in effect:
            row.score_before = effect[name]["score_before"]
            row.score_after = effect[name]["score_after"]
            row.gain = effect[name]["gain"]
        page.rows.append(row)
    return page


@dataclass(frozen=True)
class CellOutput:
    task: str
    raw_text: str
    extracted_items: list[str]
    before: bool
    after: bool


@dataclass
class FormatCellPage:
    competition: Competition
    system: System
    family: str
    family_label: str
    outputs: list[CellOutput]


def format_cell_page(competition: Competition, system_id: int, family: str) -> FormatCellPage:
    """Return a system's outputs that show a failure family before or after extraction."""
    if family not in FAMILIES:
        raise Http404("unknown format failure family")
    system = System.objects.filter(competition=competition, pk=system_id).first()
    if system is None:
        raise Http404("no such system in this competition")
    rows = (
        Output.objects.filter(system=system)
        .order_by("task__problem__number", "task__number")
        .values_list(
            "task__external_id", "task__answer_key", "raw_text", "extracted_items", "format_flags"
        )
    )
    shown = []
    for task, key, raw_text, extracted, flags in rows:
        failures = failures_stored(flags, len(key)) or format_failures(
            raw_text, len(key), extracted or []
        )
        before, after = family in failures.before, family in failures.after
        if before or after:
            shown.append(CellOutput(task, raw_text, list(extracted or []), before, after))
    return FormatCellPage(competition, system, family, FAMILY_LABELS[family], shown)

"""Imports of one system's outputs: submission CSVs and JSONL of free model text.

Every import validates the whole input before writing and runs in one transaction:
bad input raises ImportFailure (file, line, field) and changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TextIO

from django.db import transaction

from ..errors import ImportFailure
from ..models import Competition, Output, System, Task
from ..tabular import csv_rows
from ..untrusted import json_parse, text_problem
from .scoring import competition_rescore, output_prepare


@dataclass
class ImportSummary:
    """What an import did, for the command's output and the page's message."""

    competition: str
    created: dict[str, int] = field(default_factory=dict)
    updated: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def count(self, kind: str, created: bool) -> None:
        bucket = self.created if created else self.updated
        bucket[kind] = bucket.get(kind, 0) + 1

    def lines(self) -> list[str]:
        parts = [f"competition {self.competition}"]
        for kind in sorted(set(self.created) | set(self.updated)):
            parts.append(
                f"{kind}: {self.created.get(kind, 0)} created, {self.updated.get(kind, 0)} updated"
            )
        return parts + [f"warning: {w}" for w in self.warnings]

    def __str__(self) -> str:
        return "; ".join(self.lines())


# --- reading files ------------------------------------------------------------------------


def outputs_write(
    *,
    system: System,
    rows: list[tuple[Task, str, str]],
    source: str,
    summary: ImportSummary,
    places: Sequence[dict] | None = None,
) -> None:
    """Create or update a system's outputs from (task, text, explanation) rows.

    `places` gives each row's file, line and field of its text for error messages.
    """
    existing = {o.task_id: o for o in Output.objects.filter(system=system)}
    to_create: list[Output] = []
    to_update: list[Output] = []
    for index, (task, text, explanation) in enumerate(rows):
        place = places[index] if places else {}
        output = existing.get(task.pk) or Output(system=system, task=task)
        output.source = source
        output.raw_text = text
        output.explanation = explanation.strip()
        _output_prepare_checked(output, task, place)
        (to_update if output.pk else to_create).append(output)
    Output.objects.bulk_create(to_create, batch_size=1000)
    Output.objects.bulk_update(
        to_update,
        ["source", "raw_text", "explanation", "parsed_items", "extracted_items", "format_flags"],
        batch_size=1000,
    )
    summary.created["outputs"] = summary.created.get("outputs", 0) + len(to_create)
    summary.updated["outputs"] = summary.updated.get("outputs", 0) + len(to_update)


def _output_prepare_checked(output: Output, task: Task, place: dict) -> None:
    """Fill the output's items; refuse what its JSON decodes to that no column can hold.

    The text itself is checked as it is read, but a JSON list in an answer can hold a
    \\u0000 or lone \\ud800 escape, or nest deeply enough to exhaust the recursion limit.
    """
    try:
        output_prepare(output=output, task=task)
    except RecursionError:
        raise ImportFailure("the answer nests lists too deeply to read", **place) from None
    for what, texts in (
        ("an answer read from it", output.parsed_items),
        ("an answer extracted from it", output.extracted_items),
        ("the explanation extracted from it", [output.explanation]),
    ):
        for text in texts:
            problem = text_problem(str(text))
            if problem:
                raise ImportFailure(
                    f"{what} holds {problem} (a JSON escape in the text); remove it", **place
                )


def _system_for(
    *, competition: Competition, name: str, team: str, tier: str | None, summary: ImportSummary
) -> System:
    name = name.strip()
    if not name:
        raise ImportFailure("a system name is required", field="system")
    defaults = {"team": team or name}
    if tier:
        defaults["tier"] = tier
    system, created = System.objects.get_or_create(
        competition=competition, name=name, defaults=defaults
    )
    if not created and (team or tier):
        system.team = team or system.team
        system.tier = tier or system.tier
        system.save(update_fields=["team", "tier"])
    summary.count("systems", created)
    return system


def _competition_tasks(competition: Competition) -> dict[str, Task]:
    return {t.external_id: t for t in Task.objects.filter(problem__competition=competition)}


def _missing_warning(tasks: dict[str, Task], answered: set[str]) -> list[str]:
    missing = sorted(set(tasks) - answered)
    if not missing:
        return []
    return [f"no answer for {len(missing)} task(s) ({', '.join(missing)}); they score 0"]


def _system_outputs_save(
    *,
    competition: Competition,
    tasks: dict[str, Task],
    rows: list[tuple[Task, str, str]],
    places: list[dict],
    source: str,
    system_name: str,
    team: str,
    tier: str | None,
) -> ImportSummary:
    """Write validated rows as one system's outputs and score them."""
    summary = ImportSummary(competition=competition.slug)
    system = _system_for(
        competition=competition, name=system_name, team=team, tier=tier, summary=summary
    )
    outputs_write(system=system, rows=rows, source=source, summary=summary, places=places)
    summary.warnings += _missing_warning(tasks, {task.external_id for task, _, _ in rows})
    competition_rescore(competition=competition, systems=[system])
    return summary


@transaction.atomic
def outputs_import_csv(
    *,
    competition: Competition,
    stream: TextIO,
    system_name: str,
    file: str = "outputs.csv",
    team: str = "",
    tier: str | None = None,
) -> ImportSummary:
    """Import one system's answers in the competition's submission CSV (id, pred[, explanation])."""
    tasks = _competition_tasks(competition)
    rows: list[tuple[Task, str, str]] = []
    places: list[dict] = []
    seen: dict[str, int] = {}
    for line, row in csv_rows(
        stream, file=file, required=("id", "pred"), optional=("explanation",)
    ):
        task_id = row["id"].strip()
        task = _known_task(tasks, task_id, seen, file=file, line=line)
        seen[task_id] = line
        rows.append((task, row["pred"], (row.get("explanation") or "").strip()))
        places.append({"file": file, "line": line, "field": "pred"})
    if not rows:
        raise ImportFailure("no rows after the header", file=file, line=2)
    return _system_outputs_save(
        competition=competition,
        tasks=tasks,
        rows=rows,
        places=places,
        source=Output.Source.SUBMISSION,
        system_name=system_name,
        team=team,
        tier=tier,
    )


@transaction.atomic
def outputs_import_jsonl(
    *,
    competition: Competition,
    stream: TextIO,
    system_name: str,
    file: str = "outputs.jsonl",
    team: str = "",
    tier: str | None = None,
) -> ImportSummary:
    """Import free model text, one JSON object {"id", "output"} per line; extract the answers."""
    tasks = _competition_tasks(competition)
    rows: list[tuple[Task, str, str]] = []
    seen: dict[str, int] = {}
    places: list[dict] = []
    try:
        for line, text in enumerate(stream, start=1):
            if not text.strip():
                continue
            record = json_parse(text.strip(), file=file, line=line)
            if not isinstance(record, dict):
                raise ImportFailure("expected a JSON object", file=file, line=line)
            for key in ("id", "output"):
                if key not in record:
                    raise ImportFailure(f"missing key {key!r}", file=file, line=line, field=key)
            if not isinstance(record["output"], str | type(None)):
                raise ImportFailure("must be a string", file=file, line=line, field="output")
            task_id = str(record["id"]).strip()
            task = _known_task(tasks, task_id, seen, file=file, line=line)
            seen[task_id] = line
            explanation = record.get("explanation")
            rows.append(
                (task, record["output"] or "", explanation if isinstance(explanation, str) else "")
            )
            places.append({"file": file, "line": line, "field": "output"})
    except UnicodeDecodeError:
        raise ImportFailure("not UTF-8 text", file=file) from None
    if not rows:
        raise ImportFailure("no records", file=file, line=1)
    return _system_outputs_save(
        competition=competition,
        tasks=tasks,
        rows=rows,
        places=places,
        source=Output.Source.MODEL_TEXT,
        system_name=system_name,
        team=team,
        tier=tier,
    )


def _known_task(
    tasks: dict[str, Task], task_id: str, seen: dict[str, int], *, file: str, line: int
) -> Task:
    if task_id in seen:
        raise ImportFailure(
            f"duplicate id {task_id!r} (first on line {seen[task_id]})",
            file=file,
            line=line,
            field="id",
        )
    if task_id not in tasks:
        raise ImportFailure(f"unknown task id {task_id!r}", file=file, line=line, field="id")
    return tasks[task_id]

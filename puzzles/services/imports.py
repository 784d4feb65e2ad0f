"""Imports of one system's outputs: submission CSVs and JSONL of free model text.

Every import validates the whole input before writing and runs in one transaction:
bad input raises ImportFailure (file, line, field) and changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TextIO

from django.db import transaction
from django.utils import timezone

from ..errors import ImportFailure
from ..models import Competition, Output, System, Task
from ..tabular import csv_rows, pandas_reads_missing
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
    now = timezone.now()  # bulk_update skips auto_now; the review's cache key reads it
    for output in to_update:
        output.updated_at = now
    Output.objects.bulk_update(
        to_update,
        [
            "source",
            "raw_text",
            "explanation",
            "parsed_items",
            "extracted_items",
            "format_flags",
            "updated_at",
        ],
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
    """Import one system's answers in the competition's submission CSV (id, pred[, explanation]).

    Cells are read as the competition's pandas read them: a pred or explanation that is
    exactly one of pandas' missing-value tokens (`NA`, `N/A`, `None`, `nan`, ...) is empty.
    Ids that the competition matched loosely or ignored are refused, with a message saying
    what it did with them.
    """
    tasks = _competition_tasks(competition)
    read = list(csv_rows(stream, file=file, required=("id", "pred"), optional=("explanation",)))
    if not read:
        raise ImportFailure("no rows after the header", file=file, line=2)
    missing_cells: list[str] = []
    submitted: list[tuple[int, str, str, str]] = []
    for line, row in read:
        cells = {}
        for column in ("pred", "explanation"):
            value = row.get(column)
            if value and pandas_reads_missing(value):
                missing_cells.append(f"{value!r} (line {line}, {column})")
                value = ""
            cells[column] = value or ""
        submitted.append((line, row["id"].strip(), cells["pred"], cells["explanation"].strip()))
    matched = _submission_tasks(tasks, [(line, task_id) for line, task_id, _, _ in submitted], file)
    rows = [(matched[line], pred, explanation) for line, _, pred, explanation in submitted]
    places = [{"file": file, "line": line, "field": "pred"} for line, _, _, _ in submitted]
    summary = _system_outputs_save(
        competition=competition,
        tasks=tasks,
        rows=rows,
        places=places,
        source=Output.Source.SUBMISSION,
        system_name=system_name,
        team=team,
        tier=tier,
    )
    if missing_cells:
        shown = ", ".join(missing_cells[:5]) + (", ..." if len(missing_cells) > 5 else "")
        summary.warnings.append(
            f"{len(missing_cells)} cell(s) read as empty, as the competition's pandas read "
            f"them: {shown}"
        )
    return summary


def _id_key(task_id: str) -> str:
    """Return an id as the competition compared ids: stripped, without leading zeros."""
    return task_id.strip().lstrip("0") or "0"


def _submission_tasks(
    tasks: dict[str, Task], ids: list[tuple[int, str]], file: str
) -> dict[int, Task]:
    """Match a submission's (line, id) pairs to tasks, refusing what the competition forgave.

    The competition matched ids after stripping leading zeros, let the last of several rows
    with one id win and ignored ids that name no task; here each of these is refused with a
    message saying so, since each is more likely a mistake than a wish.
    """
    by_key = {_id_key(external_id): task for external_id, task in tasks.items()}
    lines_by_key: dict[str, list[int]] = {}
    for line, task_id in ids:
        lines_by_key.setdefault(_id_key(task_id), []).append(line)
    matched: dict[int, Task] = {}
    for line, task_id in ids:
        key = _id_key(task_id)
        same = lines_by_key[key]
        if task_id not in tasks and key in by_key:
            task = by_key[key]
            did = (
                f"scored this row for task {task.external_id}"
                if len(same) == 1
                else f"took this row for task {task.external_id} and, of the rows for it"
                f" (lines {', '.join(map(str, same))}), scored only the last (line {same[-1]})"
            )
            raise ImportFailure(
                f"id {task_id!r} is task {task.external_id} written with other leading zeros:"
                f" the competition compared ids without leading zeros and {did};"
                f" write the id as {task.external_id}",
                file=file,
                line=line,
                field="id",
            )
        if task_id not in tasks:
            raise ImportFailure(
                f"unknown task id {task_id!r}: the competition ignored rows whose id is not"
                " one of its tasks; correct the id or remove the row",
                file=file,
                line=line,
                field="id",
            )
        if line != same[0]:
            raise ImportFailure(
                f"duplicate id {task_id!r} (first on line {same[0]}): the competition scored"
                f" only the last row with this id (line {same[-1]}) and ignored the others;"
                " keep one row per task",
                file=file,
                line=line,
                field="id",
            )
        matched[line] = tasks[task_id]
    return matched


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

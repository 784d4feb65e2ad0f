"""Imports: the IOL-AI results layout, submission CSVs and JSONL of free model text.

Every import validates the whole input before writing and runs in one transaction:
bad input raises ImportFailure (file, line, field) and changes nothing.
"""

from __future__ import annotations

import csv
import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from django.db import transaction

from ..answer_keys import answer_key_parse
from ..errors import ImportFailure
from ..models import Competition, Output, Problem, System, Task
from .scoring import competition_rescore, output_prepare

csv.field_size_limit(sys.maxsize)

# 1 2026 PP TT 00: problem PP, task TT.
IOLAI_TASK_ID = re.compile(r"^\d(\d{4})(\d{2})(\d{2})\d{2}$")
ACCOUNT_TIERS = {
    "organizer": System.Tier.BASELINE,
    "external": System.Tier.CHALLENGE,
    "organizer-participation": System.Tier.OTHER,
}


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


def _csv_rows(
    stream: TextIO, *, file: str, required: tuple[str, ...], optional: tuple[str, ...] = ()
) -> Iterator[tuple[int, dict[str, str]]]:
    """Yield (line number, row) of a CSV, checking its header names the required columns."""
    reader = csv.DictReader(stream, strict=True)
    try:
        header = reader.fieldnames
    except (csv.Error, UnicodeDecodeError) as exc:
        raise ImportFailure(f"cannot read CSV header ({exc})", file=file, line=1) from None
    if not header:
        raise ImportFailure("the file is empty; expected a CSV header", file=file, line=1)
    header = [h.strip() for h in header]
    reader.fieldnames = header
    missing = [c for c in required if c not in header]
    if missing:
        raise ImportFailure(
            f"missing column(s) {', '.join(missing)}; the header has {', '.join(header)}"
            f" (expected {', '.join(required + optional)})",
            file=file,
            line=1,
            field=missing[0],
        )
    # A quoted field may span lines: a row is named by the line it starts on.
    start = reader.line_num + 1
    try:
        for row in reader:
            if None in row:
                raise ImportFailure(
                    f"{len(header) + len(row[None])} fields where the header has {len(header)}",
                    file=file,
                    line=start,
                    field=f"(extra after {header[-1]})",
                )
            if any(row[c] is None for c in required):
                absent = next(c for c in required if row[c] is None)
                raise ImportFailure("the row is too short", file=file, line=start, field=absent)
            yield start, row
            start = reader.line_num + 1
    except csv.Error as exc:
        raise ImportFailure(
            f"malformed CSV in the row starting here ({exc})", file=file, line=start
        ) from None
    except UnicodeDecodeError:
        raise ImportFailure("not UTF-8 text", file=file, line=start) from None


def _open_text(path: Path) -> TextIO:
    if not path.is_file():
        raise ImportFailure("no such file", file=str(path))
    return path.open(encoding="utf-8-sig", newline="")


def _read_json(path: Path) -> object:
    try:
        with _open_text(path) as handle:
            return json.load(handle)
    except json.JSONDecodeError as exc:
        raise ImportFailure(
            f"malformed JSON ({exc.msg})", file=str(path), line=exc.lineno
        ) from None
    except UnicodeDecodeError:
        raise ImportFailure("not UTF-8 text", file=str(path)) from None


# --- the IOL-AI layout --------------------------------------------------------------------


@dataclass
class _TaskSpec:
    external_id: str
    problem_number: int
    task_number: int
    context: str
    query: str
    task_type: str
    eval_type: str
    split: str
    weight: float
    work_lang: str
    task_lang: str
    answer_key: list[list[str]]


def _read_iolai_tasks(directory: Path) -> list[_TaskSpec]:
    test_path = directory / "task" / "test.csv"
    solution_path = directory / "task" / "solution.csv"
    tests: dict[str, tuple[int, dict[str, str]]] = {}
    with _open_text(test_path) as handle:
        for line, row in _csv_rows(
            handle,
            file=str(test_path),
            required=("id", "context", "query", "task_type", "eval_type"),
            optional=("work_lang", "task_lang"),
        ):
            task_id = row["id"].strip()
            if task_id in tests:
                raise ImportFailure(
                    f"duplicate task id {task_id!r} (first on line {tests[task_id][0]})",
                    file=str(test_path),
                    line=line,
                    field="id",
                )
            tests[task_id] = (line, row)
    specs: list[_TaskSpec] = []
    seen: dict[str, int] = {}
    with _open_text(solution_path) as handle:
        for line, row in _csv_rows(
            handle,
            file=str(solution_path),
            required=("id", "answer", "split", "points"),
            optional=("task_type", "eval_type"),
        ):
            file = str(solution_path)
            task_id = row["id"].strip()
            if task_id in seen:
                raise ImportFailure(
                    f"duplicate task id {task_id!r} (first on line {seen[task_id]})",
                    file=file,
                    line=line,
                    field="id",
                )
            seen[task_id] = line
            if task_id not in tests:
                raise ImportFailure(
                    f"task id {task_id!r} is not in {test_path.name}",
                    file=file,
                    line=line,
                    field="id",
                )
            match = IOLAI_TASK_ID.match(task_id)
            if not match:
                raise ImportFailure(
                    f"task id {task_id!r} does not follow the layout 1YYYYPPTT00",
                    file=file,
                    line=line,
                    field="id",
                )
            test_row = tests[task_id][1]
            eval_type = (row.get("eval_type") or test_row["eval_type"]).strip() or "single"
            task_type = (row.get("task_type") or test_row["task_type"]).strip()
            _check_choice(task_type, Task.TaskType, file=file, line=line, field="task_type")
            _check_choice(eval_type, Task.EvalType, file=file, line=line, field="eval_type")
            split = row["split"].strip()
            _check_choice(split, Task.Split, file=file, line=line, field="split")
            specs.append(
                _TaskSpec(
                    external_id=task_id,
                    problem_number=int(match.group(2)),
                    task_number=int(match.group(3)),
                    context=test_row["context"],
                    query=test_row["query"],
                    task_type=task_type,
                    eval_type=eval_type,
                    split=split,
                    weight=_weight(row["points"], file=file, line=line),
                    work_lang=(test_row.get("work_lang") or "").strip(),
                    task_lang=(test_row.get("task_lang") or "").strip(),
                    answer_key=answer_key_parse(
                        row["answer"], eval_type=eval_type, file=file, line=line
                    ),
                )
            )
    missing = sorted(set(tests) - set(seen))
    if missing:
        raise ImportFailure(
            f"task id(s) {', '.join(missing)} have no answer key", file=str(solution_path)
        )
    return specs


def _check_choice(value: str, choices, *, file: str, line: int, field: str) -> None:
    if value not in choices.values:
        raise ImportFailure(
            f"{value!r} is not one of {', '.join(choices.values)}",
            file=file,
            line=line,
            field=field,
        )


def _weight(text: str, *, file: str, line: int) -> float:
    if not text.strip():
        return 1.0  # the competition's rule: an empty weight counts 1
    try:
        value = float(text)
    except ValueError:
        raise ImportFailure(
            f"{text!r} is not a number", file=file, line=line, field="points"
        ) from None
    if value < 0 or value != value:
        raise ImportFailure(f"{text!r} must be 0 or more", file=file, line=line, field="points")
    return value


def _language(task_lang: str) -> str:
    # test.csv writes languages as a Python-list-looking string: "['esu_Latn']".
    return ", ".join(re.findall(r"[A-Za-z]{3}_[A-Za-z]{4}", task_lang)) or task_lang


@dataclass
class _SubmissionSpec:
    name: str
    tier: str
    metadata: dict
    rows: list[tuple[str, str, str]]  # (task id, pred, explanation)


def _read_iolai_submissions(directory: Path, task_ids: set[str]) -> list[_SubmissionSpec]:
    root = directory / "submissions"
    if not root.is_dir():
        return []
    board = _read_leaderboard(directory / "leaderboard.csv")
    specs: list[_SubmissionSpec] = []
    names: dict[str, Path] = {}
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        meta_path, pred_path = folder / "metadata.json", folder / "predictions.json"
        if not meta_path.exists() and not pred_path.exists():
            continue
        metadata = _read_json(meta_path)
        if not isinstance(metadata, dict) or not str(metadata.get("team", "")).strip():
            raise ImportFailure(
                "expected an object with a 'team'", file=str(meta_path), field="team"
            )
        name = str(metadata["team"]).strip()
        if name in names:
            raise ImportFailure(
                f"team {name!r} also submitted in {names[name].name}",
                file=str(meta_path),
                field="team",
            )
        names[name] = folder
        predictions = _read_json(pred_path)
        if not isinstance(predictions, list):
            raise ImportFailure("expected a JSON list of rows", file=str(pred_path))
        rows: list[tuple[str, str, str]] = []
        seen: set[str] = set()
        for index, row in enumerate(predictions, start=1):
            where = {"file": str(pred_path), "line": None}
            if not isinstance(row, dict) or "id" not in row or "pred" not in row:
                raise ImportFailure(f"row {index} needs 'id' and 'pred'", **where, field="id")
            task_id = str(row["id"]).strip()
            if task_id not in task_ids:
                raise ImportFailure(
                    f"row {index}: unknown task id {task_id!r}", **where, field="id"
                )
            if task_id in seen:
                raise ImportFailure(
                    f"row {index}: duplicate task id {task_id!r}", **where, field="id"
                )
            seen.add(task_id)
            pred = row["pred"]
            rows.append(
                (task_id, "" if pred is None else str(pred), str(row.get("explanation") or ""))
            )
        account = board.get(name, {}).get("account_type") or str(metadata.get("account_type", ""))
        extra = {
            k: metadata[k]
            for k in ("rank", "submission_comment", "submission_repo", "account_type", "timestamp")
            if metadata.get(k) not in (None, "")
        }
        extra.update({k: v for k, v in board.get(name, {}).items() if v})
        extra["record"] = folder.name
        specs.append(
            _SubmissionSpec(
                name=name,
                tier=ACCOUNT_TIERS.get(account, System.Tier.OTHER),
                metadata=extra,
                rows=rows,
            )
        )
    return specs


def _read_leaderboard(path: Path) -> dict[str, dict[str, str]]:
    if not path.exists():
        return {}
    board: dict[str, dict[str, str]] = {}
    with _open_text(path) as handle:
        for _line, row in _csv_rows(handle, file=str(path), required=("team",)):
            board[row["team"].strip()] = {
                "account_type": (row.get("account_type") or "").strip(),
                "prize_tier": (row.get("tier") or "").strip(),
                "model": (row.get("model") or "").strip(),
            }
    return board


@transaction.atomic
def competition_import_iolai(
    *, directory: Path, slug: str, name: str = "", year: int | None = None
) -> ImportSummary:
    """Create or update a competition from a directory in the IOL-AI results layout."""
    directory = Path(directory)
    if not directory.is_dir():
        raise ImportFailure("no such directory", file=str(directory))
    specs = _read_iolai_tasks(directory)
    submissions = _read_iolai_submissions(directory, {s.external_id for s in specs})
    if year is None:
        years = {int(IOLAI_TASK_ID.match(s.external_id).group(1)) for s in specs}
        year = years.pop() if len(years) == 1 else None

    summary = ImportSummary(competition=slug)
    competition, created = Competition.objects.get_or_create(
        slug=slug, defaults={"name": name or slug, "year": year}
    )
    summary.count("competition", created)
    if not created and (name or year):
        competition.name = name or competition.name
        competition.year = year or competition.year
        competition.save(update_fields=["name", "year"])

    problems: dict[int, Problem] = {}
    for spec in sorted(specs, key=lambda s: (s.problem_number, s.task_number)):
        if spec.problem_number not in problems:
            problem, created = Problem.objects.update_or_create(
                competition=competition,
                number=spec.problem_number,
                defaults={"context": spec.context, "language": _language(spec.task_lang)},
            )
            problems[spec.problem_number] = problem
            summary.count("problems", created)
    tasks: dict[str, Task] = {}
    for spec in specs:
        task, created = Task.objects.update_or_create(
            problem=problems[spec.problem_number],
            external_id=spec.external_id,
            defaults={
                "number": spec.task_number,
                "query": spec.query,
                "task_type": spec.task_type,
                "eval_type": spec.eval_type,
                "split": spec.split,
                "weight": spec.weight,
                "work_lang": spec.work_lang,
                "task_lang": spec.task_lang,
                "answer_key": spec.answer_key,
            },
        )
        tasks[spec.external_id] = task
        summary.count("tasks", created)
    for submission in submissions:
        system, created = System.objects.update_or_create(
            competition=competition,
            name=submission.name,
            defaults={
                "team": submission.name,
                "tier": submission.tier,
                "metadata": submission.metadata,
            },
        )
        summary.count("systems", created)
        _outputs_write(
            system=system,
            rows=[(tasks[t], pred, expl) for t, pred, expl in submission.rows],
            source=Output.Source.SUBMISSION,
            summary=summary,
        )
    competition_rescore(competition=competition)
    return summary


# --- one system's outputs -----------------------------------------------------------------


def _outputs_write(
    *, system: System, rows: list[tuple[Task, str, str]], source: str, summary: ImportSummary
) -> None:
    existing = {o.task_id: o for o in Output.objects.filter(system=system)}
    to_create: list[Output] = []
    to_update: list[Output] = []
    for task, text, explanation in rows:
        output = existing.get(task.pk) or Output(system=system, task=task)
        output.source = source
        output.raw_text = text
        output.explanation = explanation.strip()
        output_prepare(output=output, task=task)
        (to_update if output.pk else to_create).append(output)
    Output.objects.bulk_create(to_create, batch_size=1000)
    Output.objects.bulk_update(
        to_update,
        ["source", "raw_text", "explanation", "parsed_items", "extracted_items", "format_flags"],
        batch_size=1000,
    )
    summary.created["outputs"] = summary.created.get("outputs", 0) + len(to_create)
    summary.updated["outputs"] = summary.updated.get("outputs", 0) + len(to_update)


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
    _outputs_write(system=system, rows=rows, source=source, summary=summary)
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
    seen: dict[str, int] = {}
    for line, row in _csv_rows(
        stream, file=file, required=("id", "pred"), optional=("explanation",)
    ):
        task_id = row["id"].strip()
        task = _known_task(tasks, task_id, seen, file=file, line=line)
        seen[task_id] = line
        rows.append((task, row["pred"], (row.get("explanation") or "").strip()))
    if not rows:
        raise ImportFailure("no rows after the header", file=file, line=2)
    return _system_outputs_save(
        competition=competition,
        tasks=tasks,
        rows=rows,
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
    try:
        for line, text in enumerate(stream, start=1):
            if not text.strip():
                continue
            try:
                record = json.loads(text)
            except ValueError as exc:
                raise ImportFailure(f"malformed JSON ({exc})", file=file, line=line) from None
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
    except UnicodeDecodeError:
        raise ImportFailure("not UTF-8 text", file=file) from None
    if not rows:
        raise ImportFailure("no records", file=file, line=1)
    return _system_outputs_save(
        competition=competition,
        tasks=tasks,
        rows=rows,
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

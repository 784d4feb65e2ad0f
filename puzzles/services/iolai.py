"""Import of a competition from a directory in the IOL-AI results layout.

task/test.csv and task/solution.csv give the tasks and answer keys (problems derive
from task ids 1YYYYPPTT00); submissions/*/{metadata,predictions}.json give systems.
The whole directory is validated before anything is written, in one transaction.

Names: the competition is called "IOL-AI <year>" unless named; a problem's title is the
language its data names (puzzles.languages.language_named_in), else the ISO 639 name of
its code. A re-import fills names that are empty and never overwrites one an organizer
gave (only an explicit name for the competition replaces the old one).
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from django.conf import settings
from django.db import transaction

from ..answer_keys import answer_key_parse
from ..archives import ZipLimits, zip_extract
from ..errors import ImportFailure
from ..languages import language_code, language_name, language_named_in, language_tags
from ..models import Competition, Output, Problem, System, Task
from ..tabular import csv_rows, open_text, read_json
from .imports import ImportSummary, outputs_write
from .iolai_runs import iolai_runs_read, iolai_runs_write, leaderboard_rows
from .scoring import competition_rescore

# 1 2026 PP TT 00: problem PP, task TT.
IOLAI_TASK_ID = re.compile(r"^\d(\d{4})(\d{2})(\d{2})\d{2}$")
ACCOUNT_TIERS = {
    "organizer": System.Tier.BASELINE,
    "external": System.Tier.CHALLENGE,
    "organizer-participation": System.Tier.OTHER,
}


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
    with open_text(test_path) as handle:
        for line, row in csv_rows(
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
    with open_text(solution_path) as handle:
        for line, row in csv_rows(
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
    return ", ".join(language_tags(task_lang)) or task_lang


def _problem_names(spec: _TaskSpec) -> tuple[str, str]:
    """Return a problem's title and language display name (empty: the ISO name serves)."""
    tags = language_tags(spec.task_lang)
    codes = list(dict.fromkeys(language_code(t) for t in tags))
    reference = [language_name(code) for code in codes]
    working = {language_name(language_code(t)) for t in language_tags(spec.work_lang)}
    named = language_named_in(spec.context, exclude=frozenset(n for n in working if n))
    if named:
        # Only an uncoded language needs a display name; a coded one keeps its ISO name.
        return named, named if codes and not all(reference) else ""
    if codes and all(reference):
        return ", ".join(reference), ""
    return "", ""


@dataclass
class _SubmissionSpec:
    name: str
    tier: str
    metadata: dict
    rows: list[tuple[str, str, str]]  # (task id, pred, explanation)
    places: list[dict]  # each row's file and field, for error messages


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
        metadata = read_json(meta_path)
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
        predictions = read_json(pred_path)
        if not isinstance(predictions, list):
            raise ImportFailure("expected a JSON list of rows", file=str(pred_path))
        rows: list[tuple[str, str, str]] = []
        places: list[dict] = []
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
            places.append({"file": str(pred_path), "field": f"[{index}].pred"})
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
                places=places,
            )
        )
    return specs


def _read_leaderboard(path: Path) -> dict[str, dict[str, str]]:
    return {
        team: {
            "account_type": (row.get("account_type") or "").strip(),
            "prize_tier": (row.get("tier") or "").strip(),
            "model": (row.get("model") or "").strip(),
        }
        for team, (_line, row) in leaderboard_rows(path).items()
    }


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
    runs = iolai_runs_read(directory, {s.name for s in submissions})
    if year is None:
        years = {int(IOLAI_TASK_ID.match(s.external_id).group(1)) for s in specs}
        year = years.pop() if len(years) == 1 else None

    summary = ImportSummary(competition=slug)
    default_name = f"IOL-AI {year}" if year else "IOL-AI"
    competition, created = Competition.objects.get_or_create(
        slug=slug, defaults={"name": name or default_name, "year": year}
    )
    summary.count("competition", created)
    # One import at a time per competition: a runs import waits for this one's runs.
    Competition.objects.lock(competition)
    # Earlier imports named a competition after its slug: that name is replaced, an
    # organizer's is kept.
    unnamed = competition.name in ("", slug)
    if not created and (name or year or unnamed):
        competition.name = name or (default_name if unnamed else competition.name)
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
            _problem_names_fill(problem, *_problem_names(spec))
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
        outputs_write(
            system=system,
            rows=[(tasks[t], pred, expl) for t, pred, expl in submission.rows],
            source=Output.Source.SUBMISSION,
            summary=summary,
            places=submission.places,
        )
    competition_rescore(competition=competition)
    iolai_runs_write(
        competition=competition,
        runs=runs,
        tasks=tasks,
        predictions={s.name: (s.rows, s.places) for s in submissions},
        summary=summary,
    )
    return summary


def _problem_names_fill(problem: Problem, title: str, language_name: str) -> None:
    # Fill what is empty: a title or name an organizer edited stays.
    changed = []
    if title and not problem.title:
        problem.title = title
        changed.append("title")
    if language_name and not problem.language_name:
        problem.language_name = language_name
        changed.append("language_name")
    if changed:
        problem.save(update_fields=changed)


def zip_limits() -> ZipLimits:
    """Return the limits on uploaded zips from the settings."""
    return ZipLimits(
        max_bytes=settings.IOLEVAL_ZIP_MAX_BYTES,
        max_members=settings.IOLEVAL_ZIP_MAX_MEMBERS,
        max_ratio=settings.IOLEVAL_ZIP_MAX_RATIO,
    )


def competition_import_iolai_archive(
    *, archive: BinaryIO, archive_name: str, slug: str, name: str = ""
) -> ImportSummary:
    """Import a zip of the IOL-AI layout (at its top or in one folder); errors name members.

    The zip is extracted within zip_limits() into a temporary folder that is removed
    whatever happens.
    """
    with tempfile.TemporaryDirectory(prefix="ioleval-import-") as tmp:
        root = Path(tmp)
        zip_extract(archive, name=archive_name, dest=root, limits=zip_limits())
        try:
            return competition_import_iolai(directory=_layout_root(root), slug=slug, name=name)
        except ImportFailure as exc:
            raise exc.inside(archive_name, root) from None


def _layout_root(root: Path) -> Path:
    # An archive may hold the layout at its top or inside one folder.
    if (root / "task").is_dir():
        return root
    for candidate in sorted(root.glob("*/task")):
        if candidate.is_dir():
            return candidate.parent
    raise ImportFailure("the archive has no task/ folder (task/test.csv, task/solution.csv)")

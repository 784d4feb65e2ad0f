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

import math
import re
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO

from django.conf import settings
from django.db import transaction

from ..analytics.models import SUBMISSION_ID_MAX
from ..analytics.run_output_imports import run_output_scored, run_outputs_replace
from ..answer_keys import answer_key_parse
from ..archives import ZipLimits, zip_extract
from ..errors import ImportFailure
from ..languages import language_code, language_name, language_named_in, language_tags
from ..models import Competition, Output, Problem, Run, System, Task
from ..tabular import csv_rows, open_text, read_json
from .imports import ImportSummary, outputs_write
from .scoring import competition_rescore

# 1 2026 PP TT 00: problem PP, task TT.
IOLAI_TASK_ID = re.compile(r"^\d(\d{4})(\d{2})(\d{2})\d{2}$")
# leaderboard.csv names runs as <team>_runNN.
BOARD_RUN = re.compile(r"^(?P<team>.+)_run(?P<index>\d+)$")
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


def _leaderboard_rows(path: Path) -> dict[str, tuple[int, dict[str, str | None]]]:
    """Return leaderboard.csv's rows by team, with their line numbers (none without a file)."""
    if not path.exists():
        return {}
    with open_text(path) as handle:
        return {
            row["team"].strip(): (line, row)
            for line, row in csv_rows(handle, file=str(path), required=("team",))
        }


def _read_leaderboard(path: Path) -> dict[str, dict[str, str]]:
    return {
        team: {
            "account_type": (row.get("account_type") or "").strip(),
            "prize_tier": (row.get("tier") or "").strip(),
            "model": (row.get("model") or "").strip(),
        }
        for team, (_line, row) in _leaderboard_rows(path).items()
    }


@dataclass
class _RunSpec:
    team: str
    run_index: int
    submission_id: str
    submitted_at: datetime
    selected: bool
    public: float
    private: float
    scored: bool  # the run the board scored (its outputs are the team's predictions)


def _read_iolai_runs(directory: Path, teams: set[str]) -> list[_RunSpec]:
    """Read index.json's records (and leaderboard.csv's best runs) into runs; none without
    index.json."""
    index_path = directory / "index.json"
    if not index_path.exists():
        return []
    file = str(index_path)
    index = read_json(index_path)
    records = index.get("records") if isinstance(index, dict) else None
    if not isinstance(records, list):
        raise ImportFailure("expected an object with a list of records", file=file, field="records")
    board_path = directory / "leaderboard.csv"
    board = _leaderboard_rows(board_path)
    runs: list[_RunSpec] = []
    seen: dict[str, int] = {}
    for number, record in enumerate(records):
        where = f"records[{number}]"
        if not isinstance(record, dict):
            raise ImportFailure("expected an object", file=file, field=where)
        team = record.get("team")
        if not isinstance(team, str) or not team.strip():
            raise ImportFailure("expected a team's name", file=file, field=f"{where}.team")
        team = team.strip()
        if team not in teams:
            raise ImportFailure(
                f"team {team!r} has no submission folder (submissions/*/metadata.json)",
                file=file,
                field=f"{where}.team",
            )
        if team in seen:
            raise ImportFailure(
                f"a second record of team {team!r} (first: records[{seen[team]}])",
                file=file,
                field=f"{where}.team",
            )
        seen[team] = number
        run = _RunSpec(
            team=team,
            run_index=_json_index(record.get("run_index"), file=file, field=f"{where}.run_index"),
            submission_id=_json_submission_id(
                record.get("submission_id"), file=file, field=f"{where}.submission_id"
            ),
            submitted_at=_json_moment(
                record.get("timestamp"), file=file, field=f"{where}.timestamp"
            ),
            selected=_json_boolean(
                record.get("selected_for_private"), file=file, field=f"{where}.selected_for_private"
            ),
            public=_json_score(
                record.get("public_score"), file=file, field=f"{where}.public_score"
            ),
            private=_json_score(record.get("score"), file=file, field=f"{where}.score"),
            scored=True,
        )
        if "private_split_score" in record:
            _json_score(
                record["private_split_score"], file=file, field=f"{where}.private_split_score"
            )
        runs.append(run)
        if team in board:
            best = _best_run(run, *board[team], file=str(board_path))
            if best is not None:
                runs.append(best)
    return runs


def _best_run(
    scored: _RunSpec, line: int, row: dict[str, str | None], *, file: str
) -> _RunSpec | None:
    """The team's best run by leaderboard.csv when it is not the scored one, else None."""
    text = (row.get("best_run") or "").strip()
    if not text:
        return None
    match = BOARD_RUN.match(text)
    if not match or match["team"] != scored.team:
        raise ImportFailure(
            f"{text[:40]!r} is not a run of team {scored.team!r} (expected {scored.team}_runNN)",
            file=file,
            line=line,
            field="best_run",
        )
    index = int(match["index"])
    if index == scored.run_index:
        return None
    public, private = (
        _board_score(row.get(name), file=file, line=line, field=name)
        for name in ("public_score_best_run", "score_of_best_run")
    )
    return _RunSpec(
        team=scored.team,
        run_index=index,
        submission_id="",
        submitted_at=scored.submitted_at,  # unknown: the scored run's time stands in
        selected=False,
        public=public,
        private=private,
        scored=False,
    )


def _json_index(value: object, *, file: str, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ImportFailure(
            f"{value!r} is not a run index (a whole number from 0)", file=file, field=field
        )
    return value


def _json_submission_id(value: object, *, file: str, field: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str) or len(value.strip()) > SUBMISSION_ID_MAX:
        raise ImportFailure(
            f"expected a text of at most {SUBMISSION_ID_MAX} characters", file=file, field=field
        )
    return value.strip()


def _json_moment(value: object, *, file: str, field: str) -> datetime:
    try:
        moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        moment = None
    if not isinstance(value, str) or moment is None:
        raise ImportFailure(
            f"{str(value)[:40]!r} is not an ISO 8601 date and time", file=file, field=field
        )
    return moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)


def _json_boolean(value: object, *, file: str, field: str) -> bool:
    if not isinstance(value, bool):
        raise ImportFailure(f"{value!r} is not true or false", file=file, field=field)
    return value


def _json_score(value: object, *, file: str, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise ImportFailure(f"{value!r} is not a score from 0 to 1", file=file, field=field)
    return float(value)


def _board_score(text: str | None, *, file: str, line: int, field: str) -> float:
    raw = (text or "").strip()
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not 0 <= value <= 100:  # also refuses NaN
        raise ImportFailure(
            f"{raw[:20]!r} is not a score from 0 to 100", file=file, line=line, field=field
        )
    return value / 100


def _runs_write(
    *,
    competition: Competition,
    runs: list[_RunSpec],
    tasks: dict[str, Task],
    submissions: list[_SubmissionSpec],
    summary: ImportSummary,
) -> None:
    """Replace the runs of the teams in `runs`, with the scored runs' outputs."""
    if not runs:
        return
    systems = {
        s.name: s
        for s in System.objects.filter(competition=competition, name__in={r.team for r in runs})
    }
    Run.objects.filter(system__in=systems.values()).delete()
    stored = Run.objects.bulk_create(
        [
            Run(
                system=systems[r.team],
                run_index=r.run_index,
                submission_id=r.submission_id,
                submitted_at=r.submitted_at,
                status=Run.Status.SCORED,
                public_score=r.public,
                private_score=r.private,
                selected_for_private=r.selected,
            )
            for r in runs
        ]
    )
    by_team = {s.name: s for s in submissions}
    outputs = [
        run_output_scored(run=run, task=tasks[task_id], text=pred, place=place)
        for spec, run in zip(runs, stored, strict=True)
        if spec.scored
        for (task_id, pred, _), place in zip(
            by_team[spec.team].rows, by_team[spec.team].places, strict=True
        )
    ]
    run_outputs_replace(runs=stored, outputs=outputs)
    summary.created["runs"] = len(stored)
    summary.created["run outputs"] = len(outputs)


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
    runs = _read_iolai_runs(directory, {s.name for s in submissions})
    if year is None:
        years = {int(IOLAI_TASK_ID.match(s.external_id).group(1)) for s in specs}
        year = years.pop() if len(years) == 1 else None

    summary = ImportSummary(competition=slug)
    default_name = f"IOL-AI {year}" if year else "IOL-AI"
    competition, created = Competition.objects.get_or_create(
        slug=slug, defaults={"name": name or default_name, "year": year}
    )
    summary.count("competition", created)
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
    _runs_write(
        competition=competition, runs=runs, tasks=tasks, submissions=submissions, summary=summary
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

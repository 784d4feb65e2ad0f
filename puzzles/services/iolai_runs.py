"""Runs from the IOL-AI results layout (issue 12): index.json's records and leaderboard.csv's
best runs, read and checked before anything is written, then stored by import_iolai in its
transaction (see puzzles.services.iolai for the rule)."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from ..analytics.cells import MAX_INT
from ..analytics.models import SUBMISSION_ID_MAX
from ..analytics.runs import run_output_scored, run_outputs_replace
from ..analytics.techniques import techniques_prune
from ..errors import ImportFailure
from ..models import Competition, Run, System, Task
from ..tabular import csv_rows, open_text, read_json
from .imports import ImportSummary

# leaderboard.csv names runs as <team>_runNN.
BOARD_RUN = re.compile(r"^(?P<team>.+)_run(?P<index>\d+)$")
# The largest run index every database's PositiveIntegerField holds.
MAX_RUN_INDEX = MAX_INT


def leaderboard_rows(path: Path) -> dict[str, tuple[int, dict[str, str | None]]]:
    """Return leaderboard.csv's rows by team, with their line numbers (none without a file)."""
    if not path.exists():
        return {}
    rows: dict[str, tuple[int, dict[str, str | None]]] = {}
    with open_text(path) as handle:
        for line, row in csv_rows(handle, file=str(path), required=("team",)):
            team = (row["team"] or "").strip()
            if team in rows:
                raise ImportFailure(
                    f"a second row of team {team!r} (first on line {rows[team][0]})",
                    file=str(path),
                    line=line,
                    field="team",
                )
            rows[team] = (line, row)
    return rows


@dataclass
class _RunSpec:
    team: str
    run_index: int
    submission_id: str
    submitted_at: datetime | None  # None: not known (a best run leaderboard.csv names)
    selected: bool
    public: float
    private: float
    scored: bool  # the run the board scored (its outputs are the team's predictions)
    place: dict  # where its run index was read: file, line, field (for refusals)


def iolai_runs_read(directory: Path, teams: set[str]) -> list[_RunSpec]:
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
    board = leaderboard_rows(board_path)
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
            place={"file": file, "field": f"{where}.run_index"},
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
    if index > MAX_RUN_INDEX:
        raise ImportFailure(
            f"run index {index} is too large", file=file, line=line, field="best_run"
        )
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
        submitted_at=None,  # leaderboard.csv gives no time: the run is undated
        selected=False,
        public=public,
        private=private,
        scored=False,
        place={"file": file, "line": line, "field": "best_run"},
    )


def _json_index(value: object, *, file: str, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_RUN_INDEX:
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
    # The board prints 0-100 with two decimals: four on the 0-1 scale, as index.json has them
    # (without rounding, 8.99 / 100 is not the record's 0.0899 and ties would break).
    return round(value / 100, 4)


def iolai_runs_write(
    *,
    competition: Competition,
    runs: list[_RunSpec],
    tasks: dict[str, Task],
    predictions: Mapping[str, tuple[Sequence[tuple[str, str, str]], Sequence[dict]]],
    summary: ImportSummary,
) -> None:
    """Store the runs of the teams in `runs` (updated in place by team and run index, with
    their technique tags; the teams' other ordinary runs removed, their ablation runs kept),
    with the scored runs' outputs: `predictions` maps a team to its (task id, pred,
    explanation) rows and each row's place for refusals."""
    if not runs:
        return
    systems = {
        s.name: s
        for s in System.objects.filter(competition=competition, name__in={r.team for r in runs})
    }
    # A run is kept by (team, index) and updated in place, so the organizers' technique tags
    # survive a re-import; the teams' other ordinary runs go, their ablation runs stay.
    existing = {
        (run.system_id, run.run_index): run
        for run in Run.objects.filter(system__in=systems.values())
    }
    stored: list[Run] = []
    for r in runs:
        system = systems[r.team]
        run = existing.pop((system.pk, r.run_index), None)
        if run is not None and run.condition:
            raise ImportFailure(
                f"run {r.run_index} of team {r.team!r} is an ablation run (condition "
                f"{run.condition!r}): the board's run cannot take its index",
                **r.place,
            )
        run = run or Run(system=system, run_index=r.run_index)
        run.submission_id = r.submission_id
        run.submitted_at = r.submitted_at
        run.status, run.failure = Run.Status.SCORED, ""
        run.public_score, run.private_score = r.public, r.private
        run.selected_for_private = r.selected
        # index.json's record is the run the board scored; unselected, it was the board's
        # fallback (picked_by "fallback-best-public").
        run.board_fallback = r.scored and not r.selected
        stored.append(run)
    Run.objects.filter(pk__in=[run.pk for run in existing.values() if not run.condition]).delete()
    techniques_prune(competition=competition)  # those only on the runs removed leave the list
    Run.objects.bulk_create([run for run in stored if run.pk is None])
    Run.objects.bulk_update(
        [run for run in stored if run.pk is not None],
        [
            "submission_id",
            "submitted_at",
            "status",
            "failure",
            "public_score",
            "private_score",
            "selected_for_private",
            "board_fallback",
        ],
    )
    outputs = [
        run_output_scored(run=run, task=tasks[task_id], text=pred, place=place)
        for spec, run in zip(runs, stored, strict=True)
        if spec.scored
        for (task_id, pred, _), place in zip(*predictions[spec.team], strict=True)
    ]
    # The scored runs' answers are the predictions; a best run's (imported from a CSV) stay.
    run_outputs_replace(
        runs=[run for spec, run in zip(runs, stored, strict=True) if spec.scored], outputs=outputs
    )
    summary.created["runs"] = len(stored)
    summary.created["run outputs"] = len(outputs)

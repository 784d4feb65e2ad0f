"""The import of runs: CSV `team, run, submitted_at, status, failure, public, private,
selected` (and optionally `submission_id`).

`team` is the name of an existing system of the competition (the system is the team);
`run` its run index; `submitted_at` an ISO 8601 date and time (UTC when no offset is
given); `status` scored or failed; `failure` the failure family of a failed run
(environment, runtime, limit, packaging, other, or the family's label such as "runtime
error"), empty on a scored run; `public` the public score of a scored run (required),
`private` its private score (may be empty); `selected` 1/0, true/false or yes/no (empty: no),
at most one selected run per team.

Optional columns: `submission_id`; `condition` and `seed` for an ablation run (the condition
it was made under, such as "no language information", and its whole-number seed; an
ordinary run leaves both empty); `techniques`, the techniques the run used, separated by
semicolons (a technique the competition does not know yet is added to its list). An ablation
run is never on the private board (the selection check reads ordinary runs only), so its
`selected` must be empty or no.

The import's scope says which of the competition's runs the file replaces: `all` (ordinary
and ablation runs), `submissions` (ordinary runs only: the ablation runs, their answers
per task and tags stay, and every row must be ordinary) or `ablations` (ablation runs only:
the ordinary runs stay, and every row needs a condition). A row may not take the run index
of a kept run of its team. The whole file is checked first, with the competition locked: a
refusal names the file, line and field and writes nothing. The replacement is one
transaction.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TextIO

from django.db import transaction

from ioleval.errors import AppError

from ...errors import ImportFailure
from ...models import Competition, Run, RunOutput, System
from ...tabular import csv_rows
from ..cells import run_index, shown
from ..cells import seed as cell_seed
from ..models import CONDITION_MAX, SUBMISSION_ID_MAX, RunScope
from ..stats.words import counted
from ..techniques import tags_add, technique_name, techniques_prune

RUN_COLUMNS = ("team", "run", "submitted_at", "status", "failure", "public", "private", "selected")
OPTIONAL_COLUMNS = ("submission_id", "condition", "seed", "techniques")
TRUE = frozenset({"1", "true", "yes"})
FALSE = frozenset({"0", "false", "no", ""})
_FAMILIES = {
    **{value: value for value in Run.Failure.values},
    **{str(label).lower(): value for value, label in Run.Failure.choices},
}


_KIND = {RunScope.SUBMISSIONS: "ordinary", RunScope.ABLATIONS: "ablation"}
_OTHER = {RunScope.SUBMISSIONS: "ablation", RunScope.ABLATIONS: "ordinary"}


@dataclass(frozen=True)
class RunsImport:
    """What an import of runs stored, replaced and kept."""

    file: str
    runs: int
    teams: int
    failed: int
    replaced: tuple[int, int, int] = (0, 0, 0)  # earlier runs, of them ablation runs, answers
    scope: str = RunScope.ALL
    kept: int = 0  # runs of the other kind, kept by a scoped import

    def lines(self) -> list[str]:
        runs, ablations, answers = self.replaced
        line = (
            f"{self.file}: {counted(self.runs, 'run')} of {counted(self.teams, 'team')} "
            f"stored, {self.failed} failed"
        )
        if self.scope == RunScope.ALL:
            if runs:
                line += f"; the competition's {counted(runs, 'earlier run')} replaced"
                if ablations or answers:
                    line += (
                        f" (with {counted(ablations, 'ablation run')} and "
                        f"{counted(answers, 'answer')} per task)"
                    )
            return [line]
        kind, other = _KIND[self.scope], _OTHER[self.scope]
        if runs:
            line += f"; the competition's {counted(runs, f'earlier {kind} run')} replaced"
            if answers:
                line += f" (with {counted(answers, 'answer')} per task)"
        else:
            line += f"; no earlier {kind} run to replace"
        line += f"; {counted(self.kept, other + ' run')} kept"
        return [line]


def runs_import(
    *, competition: Competition, stream: TextIO, file: str, scope: str = RunScope.ALL
) -> RunsImport:
    """Check the whole file, then replace the competition's runs of `scope` with it."""
    if scope not in RunScope.values:
        raise ImportFailure(
            f"{scope!r} is not a scope (use one of {', '.join(RunScope.values)})",
            file=file,
            field="scope",
        )
    with transaction.atomic():
        # One import of runs at a time per competition: the kept runs checked are the runs
        # kept when writing.
        Competition.objects.lock(competition)
        competition_runs = Run.objects.filter(system__competition=competition)
        earlier, kept = {
            RunScope.ALL: (competition_runs, competition_runs.none()),
            RunScope.SUBMISSIONS: (competition_runs.submissions(), competition_runs.ablations()),
            RunScope.ABLATIONS: (competition_runs.ablations(), competition_runs.submissions()),
        }[scope]
        # A kept run is never a selected one: an ablation run never is (a database rule), and
        # kept ordinary runs face ablation rows only, which may not be selected.
        kept_runs = {
            (team, index): condition
            for team, index, condition in kept.values_list("system__name", "run_index", "condition")
        }
        runs, tags = _rows(
            competition=competition, stream=stream, file=file, scope=scope, kept=kept_runs
        )
        replaced = (
            earlier.count(),
            earlier.ablations().count(),
            RunOutput.objects.filter(run__in=earlier).count(),
        )
        earlier.delete()
        Run.objects.bulk_create(runs, batch_size=1000)
        tags_add(
            competition=competition,
            tags=[(run.pk, name) for run, names in zip(runs, tags, strict=True) for name in names],
        )
        techniques_prune(competition=competition)
    return RunsImport(
        file=file,
        runs=len(runs),
        teams=len({r.system.name for r in runs}),
        failed=sum(r.status == Run.Status.FAILED for r in runs),
        replaced=replaced,
        scope=scope,
        kept=len(kept_runs),
    )


def _rows(
    *,
    competition: Competition,
    stream: TextIO,
    file: str,
    scope: str,
    kept: dict[tuple[str, int], str],
) -> tuple[list[Run], list[list[str]]]:
    """The file's runs (unsaved) and each one's technique names; refuse the first bad cell."""
    systems = {s.name: s for s in System.objects.filter(competition=competition)}
    seen: dict[tuple[str, int], int] = {}
    selected: dict[str, int] = {}  # team -> the line that selects its run
    runs: list[Run] = []
    tags: list[list[str]] = []
    for line, row in csv_rows(stream, file=file, required=RUN_COLUMNS, optional=OPTIONAL_COLUMNS):
        where = {"file": file, "line": line}
        system = _team(row["team"], systems, **where)
        index = run_index(row["run"], **where)
        key = (system.name, index)
        if key in seen:
            raise ImportFailure(
                f"a second run {index} of {system.name!r} (first on line {seen[key]})",
                **where,
                field="run",
            )
        seen[key] = line
        # A row of the wrong kind is refused as such before its index is compared with the
        # kept runs (of the other kind).
        condition = _condition(row.get("condition"), scope, **where)
        if key in kept:
            raise ImportFailure(
                f"run {index} of {system.name!r} is already an "
                f"{_kind(kept[key])} run, kept by this import",
                **where,
                field="run",
            )
        status = _status(row["status"], **where)
        failure = _failure(row["failure"], status, **where)
        public = _number(row["public"], "public", **where)
        private = _number(row["private"], "private", **where)
        if status == Run.Status.SCORED and public is None:
            raise ImportFailure("a scored run needs its public score", **where, field="public")
        if status == Run.Status.FAILED:
            for name, value in (("public", public), ("private", private)):
                if value is not None:
                    raise ImportFailure(f"a failed run has no {name} score", **where, field=name)
        chosen = _boolean(row["selected"], **where)
        if chosen and condition:
            raise ImportFailure(
                "an ablation run is never on the private board: leave selected empty or 0",
                **where,
                field="selected",
            )
        if chosen:
            if system.name in selected:
                raise ImportFailure(
                    f"a second selected run of {system.name!r} (first on line "
                    f"{selected[system.name]})",
                    **where,
                    field="selected",
                )
            selected[system.name] = line
        submission_id = (row.get("submission_id") or "").strip()
        if len(submission_id) > SUBMISSION_ID_MAX:
            raise ImportFailure(
                f"submission_id is longer than {SUBMISSION_ID_MAX} characters",
                **where,
                field="submission_id",
            )
        seed = cell_seed(row.get("seed"), **where)
        if seed is not None and not condition:
            raise ImportFailure("a seed needs a condition", **where, field="seed")
        tags.append(_techniques(row.get("techniques"), **where))
        runs.append(
            Run(
                system=system,
                run_index=index,
                submission_id=submission_id,
                submitted_at=_moment(row["submitted_at"], **where),
                status=status,
                failure=failure,
                public_score=public,
                private_score=private,
                selected_for_private=chosen,
                condition=condition,
                seed=seed,
            )
        )
    if not runs:
        raise ImportFailure(
            f"no rows: expected a CSV with columns {', '.join(RUN_COLUMNS)}", file=file, line=1
        )
    return runs, tags


def _kind(condition: str) -> str:
    """What a run is called by its condition."""
    return "ablation" if condition else "ordinary"


def _condition(text: str | None, scope: str, **where) -> str:
    value = " ".join((text or "").split())
    if len(value) > CONDITION_MAX:
        raise ImportFailure(
            f"condition is longer than {CONDITION_MAX} characters", **where, field="condition"
        )
    if value and scope == RunScope.SUBMISSIONS:
        raise ImportFailure(
            f"a run with a condition ({shown(value)!r}) is an ablation run: this import (scope "
            "submissions) takes ordinary runs only",
            **where,
            field="condition",
        )
    if not value and scope == RunScope.ABLATIONS:
        raise ImportFailure(
            "no condition: this import (scope ablations) takes ablation runs only, each with "
            "the condition it was made under",
            **where,
            field="condition",
        )
    return value


def _techniques(text: str | None, **where) -> list[str]:
    """The cell's technique names, by the techniques' own rule (technique_name); a name
    that differs from another only in case is stored as one technique by tags_add."""
    names = []
    for part in (text or "").split(";"):
        if not part.strip():
            continue
        try:
            names.append(technique_name(part))
        except AppError as exc:
            raise ImportFailure(exc.message, **where, field="techniques") from None
    return list(dict.fromkeys(names))


def _team(text: str | None, systems: dict[str, System], **where) -> System:
    name = (text or "").strip()
    if not name:
        raise ImportFailure("team is empty", **where, field="team")
    if name not in systems:
        raise ImportFailure(
            f"no system named {shown(name)!r} in the competition (a team must be an existing "
            "system)",
            **where,
            field="team",
        )
    return systems[name]


def _status(text: str | None, **where) -> str:
    value = (text or "").strip().lower()
    if value not in Run.Status.values:
        raise ImportFailure(
            f"{shown(text)!r} is not a status (use scored or failed)", **where, field="status"
        )
    return value


def _failure(text: str | None, status: str, **where) -> str:
    value = (text or "").strip().lower()
    if status == Run.Status.SCORED:
        if value:
            raise ImportFailure("a scored run has no failure family", **where, field="failure")
        return ""
    if value not in _FAMILIES:
        raise ImportFailure(
            f"{shown(text)!r} is not a failure family (use one of {', '.join(Run.Failure.values)})",
            **where,
            field="failure",
        )
    return _FAMILIES[value]


def _number(text: str | None, field: str, **where) -> float | None:
    raw = (text or "").strip()
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise ImportFailure(f"{shown(raw)!r} is not a number", **where, field=field)
    return value


def _moment(text: str | None, **where) -> datetime:
    raw = (text or "").strip()
    try:
        value = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        raise ImportFailure(
            f"{shown(raw)!r} is not an ISO 8601 date and time (e.g. 2026-03-01T14:05:00Z)",
            **where,
            field="submitted_at",
        ) from None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _boolean(text: str | None, **where) -> bool:
    value = (text or "").strip().lower()
    if value in TRUE:
        return True
    if value in FALSE:
        return False
    raise ImportFailure(
        f"{shown(text)!r} is not a boolean (use 1/0, true/false or yes/no)",
        **where,
        field="selected",
    )

"""Automatic figures computed elsewhere: the import of `system, score[, exact_match, chrf, problem]`.

A system the file names that does not exist is created without outputs and marked
external. For a system that has outputs here, the figures are stored but its computed
figures take precedence wherever scores are shown (see selectors.system_auto_scores).
The whole file is validated before anything is written, in one transaction.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import TextIO

from django.db import transaction
from django.utils import timezone

from ioleval.cells import shown

from ..errors import ImportFailure
from ..models import Competition, ExternalScore, Output, Problem, System
from ..tabular import csv_rows, pandas_reads_missing
from ..untrusted import text_check

SCORE_COLUMNS = ("system", "score")
SCORE_OPTIONAL = ("exact_match", "chrf", "problem")
FIGURES = ("score", "exact_match", "chrf")
# A plain decimal number: float() would also take "1_0", "nan", "inf" and " 0x".
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d{1,3})?")
_NAME_MAX = System._meta.get_field("name").max_length


@dataclass
class ScoresImport:
    """What an import of external figures did, for the command's output and the page."""

    file: str
    systems_created: list[str] = field(default_factory=list)
    created: int = 0
    updated: int = 0
    computed_first: list[str] = field(default_factory=list)
    without_whole: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = [f"{self.file}: {self.created} figures created, {self.updated} updated"]
        if self.systems_created:
            out.append(
                "new external systems (no outputs): " + ", ".join(sorted(self.systems_created))
            )
        if self.computed_first:
            out.append(
                "stored, but these systems have outputs and their computed figures take"
                " precedence: " + ", ".join(sorted(self.computed_first))
            )
        if self.without_whole:
            out.append(
                "no whole-competition row (blank problem) for: "
                + ", ".join(sorted(self.without_whole))
                + "; their overall score stays empty"
            )
        return out


@dataclass(frozen=True)
class _Row:
    line: int
    system: str
    problem: Problem | None
    figures: dict[str, float | None]


def fraction_parse(text: str | None, *, required: bool, **where) -> float | None:
    """Return a figure on the 0-1 scale, None for a blank optional one, or raise ImportFailure."""
    raw = (text or "").strip()
    if not raw or pandas_reads_missing(raw):
        if required:
            raise ImportFailure("a figure (0-1) is required", **where)
        return None
    if raw.endswith("%"):
        raise ImportFailure(
            f"{shown(raw)!r} is a percentage; give the figure on the 0-1 scale", **where
        )
    if not _NUMBER.fullmatch(raw):
        raise ImportFailure(f"{shown(raw)!r} is not a number", **where)
    value = float(raw)
    if not math.isfinite(value) or value < 0 or value > 1:
        hint = " (it looks like a percentage: divide by 100)" if 1 < value <= 100 else ""
        raise ImportFailure(f"{shown(raw)} is outside 0..1{hint}", **where)
    return value


def _read(stream: TextIO, *, file: str, competition: Competition) -> list[_Row]:
    problems = {p.number: p for p in competition.problems.all()}
    rows: list[_Row] = []
    seen: dict[tuple[str, int | None], int] = {}
    for line, row in csv_rows(stream, file=file, required=SCORE_COLUMNS, optional=SCORE_OPTIONAL):
        name = text_check((row["system"] or "").strip(), file=file, line=line, field="system")
        if not name:
            raise ImportFailure("a system name is required", file=file, line=line, field="system")
        if len(name) > _NAME_MAX:
            raise ImportFailure(
                f"a system name of {len(name)} characters (at most {_NAME_MAX})",
                file=file,
                line=line,
                field="system",
            )
        problem = _problem(row.get("problem"), problems, file=file, line=line)
        figures = {
            column: fraction_parse(
                row.get(column), required=column == "score", file=file, line=line, field=column
            )
            for column in FIGURES
        }
        key = (name, problem.number if problem else None)
        if key in seen:
            what = f"problem {problem.number}" if problem else "the whole competition"
            raise ImportFailure(
                f"{name!r} has a row for {what} already on line {seen[key]}",
                file=file,
                line=line,
                field="problem" if problem else "system",
            )
        seen[key] = line
        rows.append(_Row(line=line, system=name, problem=problem, figures=figures))
    if not rows:
        raise ImportFailure("no rows after the header", file=file, line=2)
    return rows


def _problem(text: str | None, problems: dict[int, Problem], **where) -> Problem | None:
    raw = (text or "").strip()
    if not raw:
        return None
    if not raw.isascii() or not raw.isdigit() or len(raw) > 6:
        raise ImportFailure(f"{shown(raw)!r} is not a problem number", **where, field="problem")
    number = int(raw)
    if number not in problems:
        known = ", ".join(map(str, sorted(problems))) or "none"
        raise ImportFailure(
            f"no problem {number} in the competition (problems: {known})",
            **where,
            field="problem",
        )
    return problems[number]


def _similar_names(rows: list[_Row], systems: dict[str, System], *, file: str) -> None:
    """Refuse a new name that differs from an existing system's only in case or spacing."""
    folded = {" ".join(n.split()).casefold(): n for n in systems}
    for row in rows:
        if row.system in systems:
            continue
        known = folded.get(" ".join(row.system.split()).casefold())
        if known is not None:
            raise ImportFailure(
                f"unknown system {row.system!r}; did you mean {known!r}? (a new name would"
                " create another, external system)",
                file=file,
                line=row.line,
                field="system",
            )


@transaction.atomic
def system_scores_import(
    *, competition: Competition, stream: TextIO, file: str = "scores.csv"
) -> ScoresImport:
    """Store automatic figures computed elsewhere; create unknown systems as external.

    A row with a blank problem is the system's figure for the whole competition; a row
    with a problem number is its figure on that problem. Re-importing a (system, problem)
    updates its figures in place; figures the file does not name are kept.
    """
    rows = _read(stream, file=file, competition=competition)
    # One import at a time per competition: two would create the same new system twice.
    Competition.objects.lock(competition)
    systems = {s.name: s for s in System.objects.filter(competition=competition)}
    _similar_names(rows, systems, file=file)
    result = ScoresImport(file=file)
    for row in rows:
        if row.system not in systems:
            systems[row.system] = System.objects.create(
                competition=competition, name=row.system, team=row.system, external=True
            )
            result.systems_created.append(row.system)
    named = {systems[r.system].pk for r in rows}
    with_outputs = set(
        Output.objects.filter(system_id__in=named).values_list("system_id", flat=True).distinct()
    )
    existing = {
        (s.system_id, s.problem_id): s for s in ExternalScore.objects.filter(system_id__in=named)
    }
    to_create: list[ExternalScore] = []
    to_update: list[ExternalScore] = []
    for row in rows:
        system = systems[row.system]
        key = (system.pk, row.problem.pk if row.problem else None)
        score = existing.get(key) or ExternalScore(system=system, problem=row.problem)
        score.score = row.figures["score"]
        score.exact_match = row.figures["exact_match"]
        score.chrf = row.figures["chrf"]
        score.source_file = file[-255:]
        (to_update if score.pk else to_create).append(score)
    ExternalScore.objects.bulk_create(to_create)
    now = timezone.now()  # bulk_update skips auto_now
    for score in to_update:
        score.updated_at = now
    ExternalScore.objects.bulk_update(
        to_update, ["score", "exact_match", "chrf", "source_file", "updated_at"]
    )
    result.created, result.updated = len(to_create), len(to_update)
    result.computed_first = sorted(
        {row.system for row in rows if systems[row.system].pk in with_outputs}
    )
    whole = set(
        ExternalScore.objects.filter(system_id__in=named, problem__isnull=True).values_list(
            "system_id", flat=True
        )
    )
    result.without_whole = sorted(
        {r.system for r in rows if systems[r.system].pk not in whole} - set(result.computed_first)
    )
    return result

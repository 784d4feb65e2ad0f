"""Reading a marks file: its columns, and each row checked against the competition's
problems, current rubrics and systems before anything is written."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TextIO

from ioleval.spreadsheet import csv_cell_read
from puzzles.errors import ImportFailure
from puzzles.models import System
from puzzles.tabular import csv_rows

from ...errors import GradingError
from ..consensus import finalized_error
from ..marks import points_parse

MARK_COLUMNS = ("system", "problem", "criterion", "juror", "points", "comment")

EXPORT_STATUSES = ("submitted", "draft", "final", "provisional")  # marks_rows' status column


@dataclass(frozen=True)
class MarkRow:
    """One row of a marks file, checked: what it marks, with what, and where it was read."""

    line: int
    system: System
    problem: object  # puzzles.models.Problem
    criterion: object  # grading.models.Criterion
    points: object  # Decimal
    juror: str  # "" on a final row without one
    comment: str | None  # None: the file has no comment column (keep the comments)


@dataclass
class Target:
    """What a marks file is read against: the competition's problems, rubrics and systems."""

    problems: dict
    criteria: dict
    by_code: dict
    systems: dict


def rows_checked(stream, *, file, final, target, finalized, result):
    """Yield the file's rows to import as MarkRow, every check done; count the export rows
    of another status as left out; refuse a file with none to import."""
    required = ("system", "problem", "criterion", "points") + (() if final else ("juror",))
    optional = (("juror", "comment") if final else ("comment",)) + ("status",)
    wanted_status = "final" if final else "submitted"
    seen: dict[tuple, int] = {}
    for line, row in _rows(stream, file=file, required=required, optional=optional):
        where = {"file": file, "line": line}
        status = (row.get("status") or "").strip().lower()
        if status and status not in EXPORT_STATUSES:
            raise GradingError(
                f"status {status!r} is none of {', '.join(EXPORT_STATUSES)} (or blank)",
                **where,
                field="status",
            )
        if status and status != wanted_status:
            result.skipped[status] = result.skipped.get(status, 0) + 1
            continue
        system, problem, criterion, points = _row_target(
            row,
            where=where,
            systems=target.systems,
            problems=target.problems,
            criteria=target.criteria,
            by_code=target.by_code,
        )
        juror = (row.get("juror") or "").strip()
        if problem.pk in finalized:
            raise finalized_error(problem.number, **where)
        if not final and not juror:
            raise GradingError("a juror is required", **where, field="juror")
        key = (system.pk, problem.pk, criterion.pk, "" if final else juror)
        if key in seen:
            raise GradingError(
                f"the same mark is already on line {seen[key]}", **where, field="criterion"
            )
        seen[key] = line
        comment = row.get("comment")
        yield MarkRow(line, system, problem, criterion, points, juror, comment)
    if not seen:
        left_out = ", ".join(f"{n} {status}" for status, n in sorted(result.skipped.items()))
        message = (
            f"no {wanted_status} rows to import (left out: {left_out})"
            if left_out
            else "no rows after the header"
        )
        raise GradingError(message, file=file, line=2)


def _rows(stream: TextIO, **kwargs):
    """Read the CSV, reporting reader errors as GradingError like every other row error.

    Cells that an export neutralized (a `'` before a formula's first character) are read
    back as the text that was exported.
    """
    try:
        for line, row in csv_rows(stream, **kwargs):
            yield line, {k: v if v is None else csv_cell_read(v) for k, v in row.items()}
    except GradingError:
        raise
    except ImportFailure as exc:
        raise GradingError(exc.message, file=exc.file, line=exc.line, field=exc.field) from None


def _row_target(row, *, where, systems, problems, criteria, by_code):
    """Validate a marks row's system, problem, criterion and points."""
    system = systems.get(row["system"].strip())
    if system is None:
        raise GradingError(f"unknown system {row['system']!r}", **where, field="system")
    try:
        number = int(row["problem"])
    except ValueError:
        raise GradingError(
            f"{row['problem']!r} is not a problem number", **where, field="problem"
        ) from None
    problem = problems.get(number)
    if problem is None:
        raise GradingError(f"no problem {number} in the competition", **where, field="problem")
    if problem.pk not in criteria:
        raise GradingError(f"problem {number} has no rubric", **where, field="criterion")
    criterion = by_code.get((problem.pk, row["criterion"].strip()))
    if criterion is None:
        raise GradingError(
            f"problem {number} has no criterion {row['criterion']!r}", **where, field="criterion"
        )
    try:
        points = points_parse(row["points"], criterion=criterion)
    except GradingError as exc:
        raise GradingError(exc.message, **where, field="points") from None
    if points is None:
        raise GradingError("points are required", **where, field="points")
    return system, problem, criterion, points

"""The human contestants' anonymous codes, totals and, optionally, per-criterion points.

A file is read in one of two forms, chosen by its header:

- totals: `contestant, total`;
- points: `contestant, problem, criterion, points` (criterion codes of the problem's
  current rubric), optionally with `total`: a contestant's total is the sum of its
  points, and a total given on its rows must equal that sum. A criterion without a row
  counts 0.

Each import replaces all of the competition's contestants (and their points) in one
transaction; bad input raises GradingError naming file, line and field, and nothing is
written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from typing import TextIO

from django.db import transaction

from ioleval.cells import shown
from puzzles.errors import ImportFailure
from puzzles.models import Competition, Problem
from puzzles.tabular import csv_rows
from puzzles.untrusted import text_check

from ..errors import GradingError
from ..models import Contestant, ContestantPoints, Criterion
from ..selectors import current_rubrics, jury_scale
from ..text import points_text

TOTALS_COLUMNS = ("contestant", "total")
POINTS_COLUMNS = ("contestant", "problem", "criterion", "points")
_NUMBER = re.compile(r"[+-]?(?:\d+(?:[.,]\d*)?|[.,]\d+)")
_CODE_MAX = Contestant._meta.get_field("code").max_length
CENTS = Decimal("0.01")


@dataclass
class ContestantsImport:
    """What an import of contestants did, for the command's output and the page."""

    file: str
    form: str  # "totals" or "points"
    replaced: int
    contestants: int
    points: int
    maximum: Decimal
    maximum_from: str

    def lines(self) -> list[str]:
        what = "totals" if self.form == "totals" else f"{self.points} criterion points"
        return [
            f"{self.file}: replaced the competition's {self.replaced} contestants with"
            f" {self.contestants} ({what})",
            f"totals checked against 0..{points_text(self.maximum)} ({self.maximum_from})",
        ]


def contestants_maximum(competition: Competition) -> tuple[Decimal, str]:
    """Return the most points a contestant can total, the jury's scale, and where it comes
    from; GradingError while the jury has no scale."""
    scale = jury_scale(competition)
    if scale.points is None:
        raise GradingError(
            f"contestants' totals are out of the jury's scale: {scale.warnings[0]}",
            field="total",
        )
    return scale.points, f"the jury's scale, {scale.source}"


def points_value(text: str | None, *, upper: Decimal, what: str, **where) -> Decimal:
    """Return points within 0..upper with at most 2 decimals, or raise GradingError."""
    raw = (text or "").strip()
    if not raw:
        raise GradingError(f"{what} are required", **where)
    if not _NUMBER.fullmatch(raw) or len(raw) > 20:
        raise GradingError(f"{shown(raw)!r} is not a number", **where)
    value = Decimal(raw.replace(",", "."))
    if value < 0 or value > upper:
        raise GradingError(f"{what} {shown(raw)} are outside 0..{points_text(upper)}", **where)
    if value != value.quantize(CENTS):
        raise GradingError(f"{what} {shown(raw)} have more than 2 decimals", **where)
    return value.quantize(CENTS)


def _form_of(header: list[str], line: int, *, file: str) -> str:
    if not any(c in header for c in POINTS_COLUMNS[1:]):
        if "total" not in header:
            raise GradingError(
                "missing column total; expected contestant, total (totals) or contestant,"
                " problem, criterion, points (criterion points)",
                file=file,
                line=line,
                field="total",
            )
        return "totals"
    missing = [c for c in POINTS_COLUMNS if c not in header]
    if missing:
        raise GradingError(
            f"missing column(s) {', '.join(missing)} of the criterion-points form"
            f" ({', '.join(POINTS_COLUMNS)})",
            file=file,
            line=line,
            field=missing[0],
        )
    return "points"


@dataclass
class _Person:
    line: int
    total: Decimal | None = None
    total_line: int | None = None
    points: dict[tuple[int, str], Decimal] | None = None


def _read(stream: TextIO, *, file: str, competition: Competition) -> tuple[str, dict, dict]:
    problems = {p.number: p for p in competition.problems.all()}
    criteria = current_rubrics(problems.values())
    by_code = {(pid, c.code): c for pid, items in criteria.items() for c in items}
    try:
        maximum, maximum_from = contestants_maximum(competition)
    except GradingError as exc:
        raise GradingError(exc.message, file=file, field=exc.field) from None
    form = ""

    def header_check(header: list[str], line: int) -> None:
        nonlocal form
        form = _form_of(header, line, file=file)

    people: dict[str, _Person] = {}
    seen: dict[tuple[str, int, str], int] = {}
    try:
        rows = csv_rows(
            stream,
            file=file,
            required=("contestant",),
            optional=POINTS_COLUMNS[1:] + ("total",),
            header_check=header_check,
        )
        for line, row in rows:
            where = {"file": file, "line": line}
            absent = next((c for c in _columns(form) if row.get(c) is None), None)
            if absent is not None:
                raise GradingError("the row is too short", **where, field=absent)
            code = text_check(row["contestant"].strip(), **where, field="contestant")
            if not code:
                raise GradingError("a contestant code is required", **where, field="contestant")
            if len(code) > _CODE_MAX:
                raise GradingError(
                    f"a contestant code of {len(code)} characters (at most {_CODE_MAX})",
                    **where,
                    field="contestant",
                )
            if form == "totals":
                if code in people:
                    raise GradingError(
                        f"contestant {code!r} is already on line {people[code].line}",
                        **where,
                        field="contestant",
                    )
                total = points_value(
                    row["total"], upper=maximum, what="total points", **where, field="total"
                )
                people[code] = _Person(line=line, total=total)
                continue
            problem, criterion = _criterion(row, problems, criteria, by_code, where)
            key = (code, problem.number, criterion.code)
            if key in seen:
                raise GradingError(
                    f"contestant {code!r} has points for problem {problem.number},"
                    f" {criterion.code} already on line {seen[key]}",
                    **where,
                    field="criterion",
                )
            seen[key] = line
            points = points_value(
                row["points"],
                upper=criterion.maximum,
                what=f"{criterion.code} points",
                **where,
                field="points",
            )
            person = people.setdefault(code, _Person(line=line, points={}))
            person.points[(problem.pk, criterion.code)] = points
            _total_given(person, row.get("total"), maximum, where)
    except GradingError:
        raise
    except ImportFailure as exc:
        raise GradingError(exc.message, file=exc.file, line=exc.line, field=exc.field) from None
    if not people:
        raise GradingError("no rows after the header", file=file, line=2)
    if form == "points":
        _totals_summed(people, maximum, file=file)
    return form, people, {"maximum": maximum, "maximum_from": maximum_from}


def _columns(form: str) -> tuple[str, ...]:
    return TOTALS_COLUMNS if form == "totals" else POINTS_COLUMNS


def _criterion(row, problems, criteria, by_code, where) -> tuple[Problem, Criterion]:
    raw = row["problem"].strip()
    if not raw.isascii() or not raw.isdigit() or len(raw) > 6:
        raise GradingError(f"{shown(raw)!r} is not a problem number", **where, field="problem")
    problem = problems.get(int(raw))
    if problem is None:
        known = ", ".join(map(str, sorted(problems))) or "none"
        raise GradingError(
            f"no problem {int(raw)} in the competition (problems: {known})",
            **where,
            field="problem",
        )
    if not criteria.get(problem.pk):
        raise GradingError(
            f"problem {problem.number} has no rubric: import its rubric first, the criterion"
            " codes are the rubric's",
            **where,
            field="problem",
        )
    code = row["criterion"].strip()
    criterion = by_code.get((problem.pk, code))
    if criterion is None:
        codes = ", ".join(c.code for c in criteria[problem.pk])
        raise GradingError(
            f"problem {problem.number} has no criterion {shown(code, 40)!r} (its rubric has {codes})",
            **where,
            field="criterion",
        )
    return problem, criterion


def _total_given(person: _Person, text: str | None, maximum: Decimal, where: dict) -> None:
    """Keep a total given in a points file; every row of a contestant that gives one agrees."""
    if not (text or "").strip():
        return
    total = points_value(text, upper=maximum, what="total points", **where, field="total")
    if person.total is not None and total != person.total:
        raise GradingError(
            f"total {points_text(total)} differs from the total {points_text(person.total)}"
            f" on line {person.total_line}",
            **where,
            field="total",
        )
    person.total, person.total_line = total, where["line"]


def _totals_summed(people: dict[str, _Person], maximum: Decimal, *, file: str) -> None:
    for code, person in people.items():
        summed = sum(person.points.values(), Decimal(0))
        if summed > maximum:
            raise GradingError(
                f"contestant {code!r}'s points sum to {points_text(summed)},"
                f" more than {points_text(maximum)}",
                file=file,
                line=person.line,
                field="points",
            )
        if person.total is not None and person.total != summed:
            raise GradingError(
                f"contestant {code!r}'s total {points_text(person.total)} is not the sum of"
                f" its points ({points_text(summed)})",
                file=file,
                line=person.total_line,
                field="total",
            )
        person.total = summed


@transaction.atomic
def contestants_import(
    *, competition: Competition, stream: TextIO, file: str = "contestants.csv"
) -> ContestantsImport:
    """Replace the competition's contestants with those of a totals or points file."""
    form, people, limits = _read(stream, file=file, competition=competition)
    # One import at a time per competition: the second waits, then replaces the first's.
    Competition.objects.lock(competition)
    _, deleted = Contestant.objects.filter(competition=competition).delete()
    replaced = deleted.get(Contestant._meta.label, 0)
    contestants = Contestant.objects.bulk_create(
        [Contestant(competition=competition, code=c, total=p.total) for c, p in people.items()],
        batch_size=1000,
    )
    points = [
        ContestantPoints(
            contestant=contestant, problem_id=problem_id, criterion_code=code, points=value
        )
        for contestant in contestants
        for (problem_id, code), value in (people[contestant.code].points or {}).items()
    ]
    ContestantPoints.objects.bulk_create(points, batch_size=2000)
    return ContestantsImport(
        file=file,
        form=form,
        replaced=replaced,
        contestants=len(contestants),
        points=len(points),
        **limits,
    )

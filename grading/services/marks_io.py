"""Marks in and out: CSV import (drafted elsewhere, or agreed final marks) and CSV/XLSX export."""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import TextIO

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from ioleval.roles import JUROR
from ioleval.spreadsheet import csv_cell_read, csv_text, xlsx_bytes
from puzzles.errors import ImportFailure
from puzzles.models import Competition, System
from puzzles.tabular import csv_rows

from ..errors import GradingError
from ..models import Assignment, Mark, Paper, ProblemJury, Resolution
from ..selectors import criteria_not_marked, current_rubrics, not_blind
from .consensus import finalized_error
from .locks import juries_lock
from .marks import points_parse
from .papers import codes_taken, paper_code

MARK_COLUMNS = ("system", "problem", "criterion", "juror", "points", "comment")
EXPORT_STATUSES = ("submitted", "draft", "final", "provisional")  # marks_rows' status column


@dataclass
class MarksImport:
    marks: int = 0
    finals: int = 0
    papers_created: int = 0
    users_created: list[str] = field(default_factory=list)
    finalized: list[int] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)  # status -> rows left out
    not_blind: list[str] = field(default_factory=list)  # jurors of the file, with why

    def lines(self) -> list[str]:
        out = [f"{self.marks} marks, {self.finals} final marks, {self.papers_created} new papers"]
        for status, n in sorted(self.skipped.items()):
            out.append(f"{n} {status} row(s) of an export left out")
        if self.users_created:
            out.append("new juror accounts (no password): " + ", ".join(self.users_created))
        if self.finalized:
            out.append("finalized problems: " + ", ".join(map(str, self.finalized)))
        out += [
            f"warning: {text} is not blind for this competition; their marks, given"
            " elsewhere, are imported as they are"
            for text in self.not_blind
        ]
        return out


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
class _Target:
    """What a marks file is read against: the competition's problems, rubrics and systems."""

    problems: dict
    criteria: dict
    by_code: dict
    systems: dict


@transaction.atomic
def marks_import(
    *, competition: Competition, stream: TextIO, file: str = "marks.csv", final: bool = False
) -> MarksImport:
    """Import marks graded elsewhere (submitted), or with final=True agreed final marks.

    A file exported by marks_rows has a status column: the import takes its submitted
    rows, or with final=True its final rows, and leaves the others out. Both modes read
    their rows through _mark_rows; each then writes its own kind of record.

    The file is checked before any lock, so a bad file is refused without holding up the
    jury; then the jury rows of the problems it marks, and only those, are locked (in
    problem order, grading/services/locks.py) and the rows checked again if a new rubric
    version or a finalization committed meanwhile: autosaves, submits and decisions of those
    problems wait for the import (or are refused after a bounded wait, marks.py), those of
    the other problems go on.
    """
    text = stream.read()  # read again under the locks if the rubrics changed meanwhile
    problems = {p.number: p for p in competition.problems.all()}
    systems = {s.name: s for s in System.objects.filter(competition=competition)}
    criteria = current_rubrics(problems.values())
    finalized = set(
        ProblemJury.objects.finalized()
        .filter(problem__competition=competition)
        .values_list("problem_id", flat=True)
    )
    result, rows = _checked(text, file, final, problems, systems, criteria, finalized)
    touched = sorted({row.problem for row in rows}, key=lambda p: p.number)
    juries = juries_lock(touched)
    now_criteria = current_rubrics(touched)
    now_finalized = {jury.problem_id for jury in juries if jury.finalized_at}
    if now_finalized or any(
        [c.pk for c in now_criteria.get(p.pk, ())] != [c.pk for c in criteria.get(p.pk, ())]
        for p in touched
    ):
        # A new rubric version or a finalization committed while the file was checked: the
        # rows are checked again against what holds now, under the locks.
        criteria = {**criteria, **now_criteria}
        finalized |= now_finalized
        result, rows = _checked(text, file, final, problems, systems, criteria, finalized)
    papers = {
        (p.system_id, p.problem_id): p
        for p in Paper.objects.filter(problem__competition=competition)
    }
    now = timezone.now()
    # New papers first, in problem number order, whatever the file's (as rubrics_import):
    # their foreign keys take their problems' key share locks at the commit in that order.
    for row in sorted(rows, key=lambda r: (r.problem.number, r.system.name)):
        _paper_for(row, papers, result)
    if final:
        _import_final(rows, papers=papers, file=file, result=result)
        result.finalized = _finalize_covered(touched, criteria, papers, now)
    else:
        _import_submitted(rows, papers=papers, file=file, now=now, result=result)
        # Not refused (SECURITY.md): the marks were given elsewhere, before any pair was
        # seen here or not; refusing would lose them. The organizer is told.
        jurors = get_user_model().objects.filter(username__in={row.juror for row in rows})
        result.not_blind = [
            n.text for n in not_blind(competition, jurors.values_list("pk", flat=True))
        ]
    return result


def _checked(text, file, final, problems, systems, criteria, finalized):
    """Return a fresh MarksImport and the file's rows, every check done against these
    problems, systems, current criteria and finalized problems."""
    target = _Target(
        problems=problems,
        criteria=criteria,
        by_code={(pid, c.code): c for pid, items in criteria.items() for c in items},
        systems=systems,
    )
    result = MarksImport()
    rows = list(
        _mark_rows(
            io.StringIO(text),
            file=file,
            final=final,
            target=target,
            finalized=finalized,
            result=result,
        )
    )
    return result, rows


def _mark_rows(stream, *, file, final, target, finalized, result):
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


def _paper_for(row: MarkRow, papers: dict, result: MarksImport) -> Paper:
    """The row's paper, created (with a fresh code) for a system the jury did not have."""
    paper = papers.get((row.system.pk, row.problem.pk))
    if paper is None:
        paper = Paper.objects.create(
            system=row.system,
            problem=row.problem,
            code=paper_code(row.problem, codes_taken(row.problem)),
        )
        papers[(row.system.pk, row.problem.pk)] = paper
        result.papers_created += 1
    return paper


def _import_final(rows: list[MarkRow], *, papers, file, result) -> None:
    """Write each row as the agreed final mark of its cell."""
    for row in rows:
        Resolution.objects.update_or_create(
            paper=_paper_for(row, papers, result),
            criterion=row.criterion,
            defaults={
                "points": row.points,
                "kind": Resolution.Kind.IMPORTED,
                "reason": (row.comment or "").strip() or f"imported from {file}",
                "decided_by": None,
            },
        )
        result.finals += 1


def _import_submitted(rows: list[MarkRow], *, papers, file, now, result) -> None:
    """Write each row as its juror's submitted mark; a juror's paper is imported whole."""
    User = get_user_model()
    users = {u.username: u for u in User.objects.all()}
    juror_group = Group.objects.get_or_create(name=JUROR)[0]
    first_line: dict[int, int] = {}  # assignment -> the first line that marks it
    for row in rows:
        paper = _paper_for(row, papers, result)
        user = users.get(row.juror)
        if user is None:
            _username_check(row.juror, users, where={"file": file, "line": row.line})
            user = User.objects.create_user(username=row.juror)  # unusable password
            user.groups.add(juror_group)
            users[row.juror] = user
            result.users_created.append(row.juror)
        assignment, _ = Assignment.objects.get_or_create(paper=paper, juror=user)
        first_line.setdefault(assignment.pk, row.line)
        if assignment.submitted_at is None:
            assignment.submitted_at = now
            assignment.save(update_fields=["submitted_at"])
        mark, _ = Mark.objects.get_or_create(assignment=assignment, criterion=row.criterion)
        mark.points = row.points
        mark.from_suggestion = False  # graded elsewhere
        if row.comment is not None:  # a file without the column keeps the comments
            mark.comment = row.comment.strip()
        mark._change_reason = f"imported from {file}"
        mark.save()
        result.marks += 1
    _submitted_whole(first_line, file=file)


def _username_check(name: str, users: dict, *, where: dict) -> None:
    """Refuse a juror name that cannot be an account, or that differs from one only in case."""
    User = get_user_model()
    field = User._meta.get_field(User.USERNAME_FIELD)
    try:
        field.run_validators(name)
    except ValidationError as exc:
        raise GradingError(
            f"{name[:40]!r} cannot be a juror account: {' '.join(exc.messages)}",
            **where,
            field="juror",
        ) from None
    similar = [u for u in users if u.casefold() == name.casefold()]
    if similar:
        raise GradingError(
            f"unknown juror {name!r}; did you mean {similar[0]!r}?", **where, field="juror"
        )


def _submitted_whole(first_line: dict[int, int], *, file: str) -> None:
    """Refuse imported papers that would be submitted with criteria unmarked (the rule of
    submit: criteria_not_marked)."""
    missing = criteria_not_marked(list(first_line))
    assignments = Assignment.objects.filter(pk__in=missing).select_related(
        "paper__system", "paper__problem", "juror"
    )
    for assignment in sorted(assignments, key=lambda a: first_line[a.pk]):
        paper = assignment.paper
        raise GradingError(
            f"{assignment.juror.username}'s paper of {paper.system.name}, problem"
            f" {paper.problem.number} would be submitted without"
            f" {', '.join(missing[assignment.pk])}: a paper is imported whole",
            file=file,
            line=first_line[assignment.pk],
            field="criterion",
        )


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


def _finalize_covered(problems, criteria, papers, now) -> list[int]:
    done = []
    for problem in sorted(problems, key=lambda p: p.number):
        needed = {
            (paper.pk, c.pk)
            for (system_id, problem_id), paper in papers.items()
            if problem_id == problem.pk
            for c in criteria[problem.pk]
        }
        have = set(
            Resolution.objects.filter(paper__problem=problem).values_list(
                "paper_id", "criterion_id"
            )
        )
        if needed <= have:
            ProblemJury.objects.update_or_create(problem=problem, defaults={"finalized_at": now})
            done.append(problem.number)
    return done


def marks_rows(competition: Competition) -> tuple[list[str], list[list]]:
    """Return every mark and final mark as rows (organizers only: it names the systems)."""
    header = list(MARK_COLUMNS) + ["paper", "status", "submitted_at"]
    rows: list[list] = []
    marks = (
        Mark.objects.filter(assignment__paper__problem__competition=competition)
        .select_related(
            "assignment__paper__system",
            "assignment__paper__problem",
            "assignment__juror",
            "criterion",
        )
        .order_by(
            "assignment__paper__problem__number",
            "assignment__paper__system__name",
            "criterion__order",
            "assignment__juror__username",
        )
    )
    for m in marks:
        a = m.assignment
        rows.append(
            [
                a.paper.system.name,
                a.paper.problem.number,
                m.criterion.code,
                a.juror.username,
                m.points,
                m.comment,
                a.paper.code,
                "submitted" if a.submitted_at else "draft",
                a.submitted_at.isoformat() if a.submitted_at else "",
            ]
        )
    from ..selectors import cells_read, problem_juries

    problems = list(competition.problems.order_by("number").select_related("jury"))
    juries = problem_juries(problems)
    read = cells_read(problems)
    for problem in problems:
        # Final marks are final once the chair finalizes; before that they are provisional.
        status = "final" if juries[problem.pk].finalized_at else "provisional"
        for paper in read[problem.pk].papers:
            for cell in paper.cells:
                if cell.state.final is not None:
                    rows.append(
                        [
                            paper.paper.system.name,
                            problem.number,
                            cell.criterion.code,
                            "(final)",
                            cell.state.final,
                            cell.state.status,
                            paper.paper.code,
                            status,
                            "",
                        ]
                    )
    return header, rows


def marks_csv(competition: Competition) -> str:
    """Render all marks as CSV (text that a spreadsheet would run is neutralized)."""
    return csv_text(*marks_rows(competition))


def marks_xlsx(competition: Competition) -> bytes:
    """Render all marks as an XLSX workbook (text is stored as text, never as a formula)."""
    header, rows = marks_rows(competition)
    rows = [[float(v) if hasattr(v, "as_tuple") else v for v in row] for row in rows]
    return xlsx_bytes(header, rows, title="marks")

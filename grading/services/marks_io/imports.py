"""Marks in: a CSV of marks graded elsewhere (submitted), or of agreed final marks, checked
whole and then written under the jury rows' locks of the problems it marks."""

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
from puzzles.models import Competition, System

from ...errors import GradingError
from ...models import Assignment, Mark, Paper, ProblemJury, Resolution
from ...selectors import criteria_not_marked, current_rubrics, not_blind
from ..locks import juries_lock
from ..papers import codes_taken, paper_code
from .rows import MarkRow, Target, rows_checked


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


@transaction.atomic
def marks_import(
    *, competition: Competition, stream: TextIO, file: str = "marks.csv", final: bool = False
) -> MarksImport:
    """Import marks graded elsewhere (submitted), or with final=True agreed final marks.

    A file exported by marks_rows has a status column: the import takes its submitted
    rows, or with final=True its final rows, and leaves the others out. Both modes read
    their rows through rows_checked; each then writes its own kind of record.

    The file is checked before any lock, so a bad file is refused without holding up the
    jury; then the jury rows of the problems it marks, and only those, are locked (in
    problem order, grading/services/locks.py) and the rows checked again if a new rubric
    version or a finalization committed meanwhile: autosaves, submits and decisions of those
    problems wait for the import (or are refused after a bounded wait,
    grading/services/marks.py), those of the other problems go on.
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
    target = Target(
        problems=problems,
        criteria=criteria,
        by_code={(pid, c.code): c for pid, items in criteria.items() for c in items},
        systems=systems,
    )
    result = MarksImport()
    rows = list(
        rows_checked(
            io.StringIO(text),
            file=file,
            final=final,
            target=target,
            finalized=finalized,
            result=result,
        )
    )
    return result, rows


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

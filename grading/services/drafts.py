"""The autosave's reads: built from the named queries, compiled to SQL once per process.

The autosave (`mark_save_by_code`, services/marks.py) runs for every keystroke pause, and
building and compiling its reads through the ORM on every save cost several times what the
database takes to run them (benchmarks/HISTORY.md). So each statement here is a queryset
written with the models' named queries ("a juror's own assignment", "finalized", "current
criteria"), compiled once per process and database with stand-ins for the paper's code, the
juror, the criterion and the assignment, then run with the real values in their place (as
the review's fingerprint is, grading/review/selectors.py). Nothing here spells the rules
again, so the autosave cannot drift from the ORM (tests/grading/test_marks_drafts.py).

The statements follow the lock order of services/locks.py: first the shared lock of the
problem's jury row, with its finalization; then, in a statement of its own so that it reads
what a write holding the jury row committed while the save waited, the juror's assignment of
the paper (locked) and the criterion sent: whether it is one of the paper's problem and of its
current rubric; then, under the assignment's lock, the mark if one exists (a statement of its
own too: a statement that waited for a lock still sees other rows as they were when it
began, so a mark another tab had just created would be missed).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.db import connection
from django.db.models import BooleanField, Exists, ExpressionWrapper, OuterRef, QuerySet, Subquery

from ..models import Assignment, Criterion, Mark, Paper, ProblemJury
from .locks import JURY_SHARE_LOCK

# Stand-ins for the values while compiling: no paper code has a space, no id is negative.
_STAND_INS = {
    "code": "paper code stand-in",
    "juror": -918_273_641,
    "criterion": -918_273_642,
    "assignment": -918_273_643,
}


@dataclass(frozen=True)
class _Statement:
    sql: str
    params: tuple
    slots: tuple[tuple[int, str], ...]  # (position in params, name of the value)

    def bind(self, **values: object) -> list:
        params = list(self.params)
        for at, name in self.slots:
            params[at] = values[name]
        return params


_COMPILED: dict[tuple, _Statement] = {}


def _compiled(build: Callable[[], QuerySet], names: set[str], lock: str = "") -> _Statement:
    """Return the statement of the queryset `build` makes, with the stand-ins of `names` to
    bind, compiled on first use for this connection and its row-lock features (the tests
    switch them on for SQLite), with `lock` added where the database has row locks. Call it
    in a transaction: select_for_update compiles only there."""
    features = connection.features
    key = (
        build,
        connection.alias,
        features.has_select_for_update,
        features.has_select_for_update_of,
    )
    if key not in _COMPILED:
        sql, params = build().query.get_compiler(connection=connection).as_sql()
        if lock and features.has_select_for_update_of:
            sql += lock
        names_of = {value: name for name, value in _STAND_INS.items()}
        slots = tuple((i, names_of[p]) for i, p in enumerate(params) if p in names_of)
        if {name for _, name in slots} != names:  # each value must reach the statement
            raise RuntimeError(f"autosave statement: stand-ins at {slots} of {params!r}")
        _COMPILED[key] = _Statement(sql, tuple(params), slots)
    return _COMPILED[key]


def _jury() -> QuerySet:
    """The jury row of the paper with this code: whether it is finalized, the problem's
    number (for the refusal's wording)."""
    finalized = ExpressionWrapper(ProblemJury.finalized_q(), output_field=BooleanField())
    return (
        ProblemJury.objects.filter(problem__papers__code=_STAND_INS["code"])
        .annotate(finalized=finalized)
        .order_by()
        .values_list("finalized", "problem__number")
    )


def _read() -> QuerySet:
    """The juror's own assignment of the paper with this code, locked, and the criterion
    sent: its code, maximum and step (none if no criterion has that id), whether it is one of
    the paper's problem and whether it is one of its current rubric."""
    criterion = Criterion.objects.filter(pk=_STAND_INS["criterion"]).order_by()
    of_problem = criterion.filter(rubric__problem=OuterRef("paper__problem"))
    return (
        Assignment.objects.of(_STAND_INS["juror"])
        .filter(paper__code=_STAND_INS["code"])
        .select_for_update(of=("self",))
        .annotate(
            criterion_code=Subquery(criterion.values("code")),
            criterion_maximum=Subquery(criterion.values("maximum")),
            criterion_step=Subquery(criterion.values("step")),
            of_problem=Exists(of_problem),
            current=Exists(of_problem.current()),
        )
        .order_by()
        .values_list(
            "pk",
            "submitted_at",
            "criterion_code",
            "criterion_maximum",
            "criterion_step",
            "of_problem",
            "current",
        )
    )


def _mark() -> QuerySet:
    """The mark of the assignment and criterion, if one exists: its id and comment."""
    return (
        Mark.objects.filter(
            assignment_id=_STAND_INS["assignment"], criterion_id=_STAND_INS["criterion"]
        )
        .order_by()
        .values_list("pk", "comment")
    )


def draft_jury_lock(cursor, code: str) -> tuple[bool, int] | None:
    """Take the shared lock of the jury row of the paper with this code; return (whether the
    problem is finalized, its number), creating the row first if the problem has none, or
    None if no paper has this code."""
    lock = JURY_SHARE_LOCK.format(jury=connection.ops.quote_name(ProblemJury._meta.db_table))
    statement = _compiled(_jury, {"code"}, lock)
    params = statement.bind(code=code)
    cursor.execute(statement.sql, params)
    row = cursor.fetchone()
    if row is None:
        problem_id = Paper.objects.filter(code=code).values_list("problem_id", flat=True).first()
        if problem_id is None:
            return None
        ProblemJury.objects.get_or_create(problem_id=problem_id)
        cursor.execute(statement.sql, params)
        row = cursor.fetchone()
    finalized, number = row
    return bool(finalized), number


@dataclass(frozen=True)
class DraftRead:
    """What the autosave reads under the assignment's lock."""

    assignment_id: int
    submitted: bool
    # The criterion sent, if it is one of the paper's current rubric (code, maximum, step).
    criterion: Criterion | None
    # Whether a criterion sent that is not current was one of an earlier version (or of a
    # rubric replaced since, which deleted it).
    superseded: bool


_DECIMAL = Criterion._meta.get_field("maximum").to_python  # SQLite returns floats


def draft_read(cursor, *, code: str, juror_id: int, criterion_id: int) -> DraftRead | None:
    """Lock the juror's assignment of the paper with this code and read it with the
    criterion sent; None if the juror has no such paper."""
    statement = _compiled(_read, {"code", "juror", "criterion"})
    cursor.execute(statement.sql, statement.bind(code=code, juror=juror_id, criterion=criterion_id))
    row = cursor.fetchone()
    if row is None:
        return None
    assignment_id, submitted_at, criterion_code, maximum, step, of_problem, current = row
    criterion = None
    if criterion_code is not None and of_problem and current:
        criterion = Criterion(
            pk=criterion_id, code=criterion_code, maximum=_DECIMAL(maximum), step=_DECIMAL(step)
        )
    return DraftRead(
        assignment_id=assignment_id,
        submitted=submitted_at is not None,
        criterion=criterion,
        # An id of no criterion at all is one a replaced rubric deleted (or a forged one).
        superseded=criterion_code is None or bool(of_problem),
    )


def draft_mark(cursor, *, assignment_id: int, criterion_id: int) -> tuple[int | None, str]:
    """Return the id and comment of the assignment's mark of the criterion, or (None, "");
    call under the assignment's lock."""
    statement = _compiled(_mark, {"assignment", "criterion"})
    cursor.execute(statement.sql, statement.bind(assignment=assignment_id, criterion=criterion_id))
    return cursor.fetchone() or (None, "")

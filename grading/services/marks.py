"""Marks: autosave while drafting, submit, revise after discussion, the chair's decision."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from django.conf import settings
from django.db import OperationalError, connection, transaction
from django.utils import timezone

from ..errors import GradingError, JuryBusy
from ..models import (
    Assignment,
    Criterion,
    DiscussionComment,
    Mark,
    ObservationTag,
    Paper,
    PaperTag,
    Resolution,
    Rubric,
)
from ..selectors import criteria_not_marked, rubric_current, suggestion_of
from ..text import points_text
from .consensus import chair_check, finalized_error, problem_ensure_open
from .drafts import draft_jury_lock, draft_mark, draft_read

CENTS = Decimal("0.01")  # the decimal places of a stored mark

# The writes open their transaction in a `with` block, not as @transaction.atomic: mutmut
# does not mutate decorated functions (benchmarks/mutation_marks.py).


def points_parse(value: object, *, criterion: Criterion, field: str = "points") -> Decimal | None:
    """Return valid points for the criterion (None for blank), or raise GradingError."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    raw = str(value).strip()
    shown = raw if len(raw) <= 20 else raw[:20] + "…"  # never send a million digits back
    try:
        points = Decimal(raw.replace(",", "."))
    except InvalidOperation:
        raise GradingError(f"{shown!r} is not a number", field=field) from None
    if not points.is_finite():
        raise GradingError(f"{shown!r} is not a number", field=field)
    # Comparisons are exact whatever the exponent: 1E+1000000000 is refused here, unformatted.
    if points < 0 or points > criterion.maximum:
        raise GradingError(
            f"{criterion.code}: {shown} is outside 0..{points_text(criterion.maximum)}",
            field=field,
        )
    # Within 0..maximum quantizing is safe; more decimals than a mark stores is off-step
    # (1E-1000050 % step underflows to 0 and would pass the modulo alone).
    if points != points.quantize(CENTS) or points % criterion.step:
        raise GradingError(
            f"{criterion.code}: {shown} is not a multiple of {points_text(criterion.step)}",
            field=field,
        )
    return points.quantize(CENTS)  # as stored: 0E-20000 would overflow PostgreSQL's numeric


RUBRIC_CHANGED = "the rubric has changed: reload the page to grade with its new version"


def rubric_changed_error(*, field: str = "criterion") -> GradingError:
    """Return the refusal of a write to a criterion its problem's rubric no longer has."""
    return GradingError(RUBRIC_CHANGED, field=field)


def _criterion_of(paper: Paper, criterion: Criterion) -> None:
    """Refuse a criterion that is not of the paper's current rubric; call under the jury row's
    lock (grading/services/locks.py), so that a new version is either seen or waits."""
    current = rubric_current(paper.problem)
    if current is not None and criterion.rubric_id == current.pk:
        return
    if Rubric.objects.filter(pk=criterion.rubric_id, problem_id=paper.problem_id).exists():
        raise rubric_changed_error()  # a criterion of an older version of this rubric
    raise GradingError(f"{criterion.code} is not a criterion of this paper", field="criterion")


def _locked(assignment: Assignment) -> Assignment:
    # The row lock orders saves, submits and revisions of one assignment: two tabs of the
    # same juror, or a save racing a submit, run one after the other (mark_save_by_code
    # takes the same lock, services/drafts.py). It comes after the jury row's (locks.py).
    return (
        Assignment.objects.select_for_update(of=("self",))
        .select_related("paper__problem__jury", "juror")
        .get(pk=assignment.pk)
    )


def draft_points(
    *,
    submitted: bool,
    finalized_number: int | None,
    criterion: Criterion | None,
    points: object,
    superseded: bool = False,
) -> Decimal | None:
    """Return the points a draft mark stores, or raise GradingError: the rules of a draft.

    `criterion` is None when the id sent is no criterion of the paper's current rubric;
    `superseded` says it was one of an earlier version (or of a rubric replaced since).
    """
    if submitted:
        raise GradingError(
            "this paper is submitted; change a mark through its discussion thread", field="points"
        )
    if finalized_number is not None:
        raise finalized_error(finalized_number)
    if criterion is None:
        if superseded:
            raise rubric_changed_error()
        raise GradingError("not a criterion of this paper", field="criterion")
    return points_parse(points, criterion=criterion)


# PostgreSQL's SQLSTATE for a lock not granted within lock_timeout.
LOCK_NOT_AVAILABLE = "55P03"


def _save_lock_bound(cursor) -> None:
    """Bound the autosave's waits for locks on PostgreSQL (IOLEVAL_SAVE_LOCK_TIMEOUT) until
    its transaction ends: a marks import or a new rubric version holds the jury row for as
    long as it writes, and an autosave that waited for it unbounded held a web worker until
    gunicorn's timeout. Call at the start of a transaction of the save's own."""
    if connection.vendor != "postgresql":
        return
    milliseconds = max(1, round(settings.IOLEVAL_SAVE_LOCK_TIMEOUT * 1000))
    cursor.execute("SELECT set_config('lock_timeout', %s, true)", [f"{milliseconds}ms"])


def mark_save_by_code(
    *,
    juror,
    code: str,
    criterion_id: int,
    points: object,
    comment: str | None = None,
    from_suggestion: bool = False,
) -> Mark:
    """Save a draft mark (points and/or comment) of the juror's unsubmitted paper with this code.

    The one entry point of a draft mark (the autosave calls it; mark_save goes through it):
    the shared lock of the problem's jury row, a read that locks the assignment (the lock
    order of grading/services/locks.py), the rules of draft_points, a read of the mark under
    the lock, one write (plus its history row). A comment of None keeps the saved one.
    A criterion of an earlier rubric version is refused as "the rubric has changed".
    `from_suggestion` records that the points are the suggested mark the juror accepted; it
    is refused unless they equal the criterion's current suggestion for this paper (three
    more reads, only then).
    Raises Assignment.DoesNotExist when the paper is not the juror's, and JuryBusy when, on
    PostgreSQL and in a transaction of its own, it waited past IOLEVAL_SAVE_LOCK_TIMEOUT for
    a lock (a marks import or a new rubric version holding the jury row).
    """
    own_transaction = not connection.in_atomic_block  # a caller's keeps its own lock_timeout
    with transaction.atomic():
        if not 0 < criterion_id < 2**63:  # what a database integer holds (SQLite raises past it)
            raise GradingError("not a criterion of this paper", field="criterion")
        with connection.cursor() as cursor:
            if own_transaction:
                _save_lock_bound(cursor)
            try:
                jury = draft_jury_lock(cursor, code)
                read = None
                if jury is not None:
                    read = draft_read(
                        cursor, code=code, juror_id=juror.pk, criterion_id=criterion_id
                    )
            except OperationalError as exc:
                if getattr(exc.__cause__, "sqlstate", None) == LOCK_NOT_AVAILABLE:
                    raise JuryBusy() from None
                raise
        if read is None:
            raise Assignment.DoesNotExist(f"no paper {code} of this juror")
        finalized, number = jury
        value = draft_points(
            submitted=read.submitted,
            finalized_number=number if finalized else None,
            criterion=read.criterion,
            points=points,
            superseded=read.superseded,
        )
        criterion = read.criterion
        if from_suggestion:
            suggestion_check(juror=juror, code=code, criterion=criterion, points=value)
        with connection.cursor() as cursor:
            mark_id, mark_comment = draft_mark(
                cursor, assignment_id=read.assignment_id, criterion_id=criterion.pk
            )
        mark = Mark(
            pk=mark_id,
            assignment_id=read.assignment_id,
            criterion_id=criterion.pk,
            points=value,
            comment=mark_comment if comment is None else comment,
            from_suggestion=bool(from_suggestion),
        )
        mark._history_user = juror
        # Under the assignment's lock no one else writes this mark: one write (an UPDATE of the
        # row read, or an INSERT), one history row.
        mark.save()
        return mark


def suggestion_check(*, juror, code: str, criterion: Criterion, points: Decimal | None) -> None:
    """Refuse a mark said to be an accepted suggestion whose points are not the suggestion."""
    suggestion = suggestion_of(juror=juror, code=code, criterion_id=criterion.pk)
    if suggestion is None:
        raise GradingError(f"{criterion.code} has no suggested mark here", field="from_suggestion")
    if points != suggestion:
        shown = "blank" if points is None else points_text(points)
        raise GradingError(
            f"{criterion.code}: {shown} is not the suggested mark {points_text(suggestion)}",
            field="from_suggestion",
        )


def mark_save(
    *, assignment: Assignment, criterion: Criterion, points: object, comment: str | None = None
) -> Mark:
    """Save a draft mark of the juror's own unsubmitted paper, through mark_save_by_code."""
    return mark_save_by_code(
        juror=assignment.juror,
        code=assignment.paper.code,
        criterion_id=criterion.pk,
        points=points,
        comment=comment,
    )


def _mark_get_or_build(assignment: Assignment, criterion: Criterion) -> Mark:
    """Return the mark, or an unsaved one; call under the assignment's lock."""
    return Mark.objects.filter(assignment=assignment, criterion=criterion).first() or Mark(
        assignment=assignment, criterion=criterion
    )


def assignment_submit(*, assignment: Assignment) -> Assignment:
    """Submit a paper: every criterion must be marked; the juror's marks then lock."""
    with transaction.atomic():
        # The jury row first, then the assignment (grading/services/locks.py).
        problem_ensure_open(assignment.paper.problem, lock=True)
        assignment = _locked(assignment)
        if assignment.is_submitted:
            raise GradingError("this paper is already submitted", field="submit")
        rubric = rubric_current(assignment.paper.problem)
        if rubric is None:
            raise GradingError("this problem has no rubric yet", field="submit")
        missing = criteria_not_marked(
            [assignment.pk], problems={assignment.pk: assignment.paper.problem_id}
        ).get(assignment.pk)
        if missing:
            raise GradingError(f"not marked yet: {', '.join(missing)}", field="submit")
        assignment.submitted_at = timezone.now()
        assignment.save(update_fields=["submitted_at"])
        return assignment


def mark_revise(
    *, assignment: Assignment, criterion: Criterion, points: object, reason: str
) -> Mark:
    """Change one's own submitted mark after discussion; the reason goes into the history."""
    with transaction.atomic():
        # The jury row first, then the assignment (grading/services/locks.py).
        problem_ensure_open(assignment.paper.problem, lock=True)
        assignment = _locked(assignment)
        if not assignment.is_submitted:
            raise GradingError("submit the paper first; drafts are edited directly", field="points")
        _criterion_of(assignment.paper, criterion)
        if not reason.strip():
            raise GradingError("give a reason for the revision", field="reason")
        value = points_parse(points, criterion=criterion)
        if value is None:
            raise GradingError("a submitted mark cannot be blank", field="points")
        mark = _mark_get_or_build(assignment, criterion)
        mark.points = value
        mark.from_suggestion = False  # a revision is the juror's own value
        mark._history_user = assignment.juror
        mark._change_reason = reason.strip()
        mark.save()
        return mark


def criterion_decide(
    *, paper: Paper, criterion: Criterion, points: object, reason: str, chair
) -> Resolution:
    """Set the agreed mark of a criterion of a paper as the chair's decision."""
    with transaction.atomic():
        # The jury row first, then the decision (grading/services/locks.py).
        problem_ensure_open(paper.problem, lock=True)
        chair_check(chair, paper.problem, field="points")
        _criterion_of(paper, criterion)
        if not reason.strip():
            raise GradingError("give a reason for the decision", field="reason")
        value = points_parse(points, criterion=criterion)
        if value is None:
            raise GradingError("a decision needs points", field="points")
        if (
            not Mark.objects.submitted()
            .filter(
                assignment__paper=paper,
                criterion=criterion,
                points__isnull=False,
            )
            .exists()
        ):
            raise GradingError(
                "no juror has submitted a mark for this yet: there is nothing to decide",
                field="points",
            )
        resolution = Resolution.objects.select_for_update().filter(
            paper=paper, criterion=criterion
        ).first() or Resolution(paper=paper, criterion=criterion)
        resolution.points = value
        resolution.kind = Resolution.Kind.CHAIR
        resolution.reason = reason.strip()
        resolution.decided_by = chair
        resolution._history_user = chair
        resolution._change_reason = reason.strip()
        resolution.save()
        return resolution


def comment_post(*, paper: Paper, criterion: Criterion, author, text: str) -> DiscussionComment:
    """Post to the thread of a criterion of a paper."""
    with transaction.atomic():
        # The jury row first (grading/services/locks.py): a new rubric version under way
        # moves the thread first, or this post waits and is refused as to an old criterion.
        problem_ensure_open(paper.problem, lock=True)
        _criterion_of(paper, criterion)
        if not text.strip():
            raise GradingError("the comment is empty", field="text")
        return DiscussionComment.objects.create(
            paper=paper, criterion=criterion, author=author, text=text.strip()
        )


def tags_set(*, assignment: Assignment, tag_ids: list[int]) -> list[ObservationTag]:
    """Replace the observation tags a juror gave a paper (they stay open after submitting)."""
    with transaction.atomic():
        problem_ensure_open(assignment.paper.problem)
        competition_id = assignment.paper.problem.competition_id
        tags = list(ObservationTag.objects.filter(competition_id=competition_id, pk__in=tag_ids))
        if len(tags) != len(set(tag_ids)):
            raise GradingError("unknown observation tag", field="tags")
        PaperTag.objects.filter(assignment=assignment).exclude(tag__in=tags).delete()
        for tag in tags:
            PaperTag.objects.get_or_create(assignment=assignment, tag=tag)
        return tags


DEFAULT_TAGS = (
    "local rather than consistent explanation",
    "verbosity",
    "hallucination",
    "underspecified rule",
    "undergeneralization",
    "overfitting",
    "terminology without analysis",
)


def tags_ensure_defaults(*, competition) -> None:
    """Give a competition the default observation tags if it has none."""
    if not ObservationTag.objects.filter(competition=competition).exists():
        ObservationTag.objects.bulk_create(
            ObservationTag(competition=competition, name=name, order=i)
            for i, name in enumerate(DEFAULT_TAGS)
        )


def tags_configure(*, competition, names: list[str]) -> list[ObservationTag]:
    """Set the competition's observation tags in this order; tags in use are kept."""
    with transaction.atomic():
        wanted = [n.strip() for n in names if n.strip()]
        if len(set(wanted)) != len(wanted):
            raise GradingError("a tag is listed twice", field="tags")
        if any(len(n) > 100 for n in wanted):
            raise GradingError("a tag is longer than 100 characters", field="tags")
        existing = {t.name: t for t in ObservationTag.objects.filter(competition=competition)}
        unused = [t for n, t in existing.items() if n not in wanted and not t.uses.exists()]
        ObservationTag.objects.filter(pk__in=[t.pk for t in unused]).delete()
        tags = []
        for order, name in enumerate(wanted):
            tag = existing.get(name) or ObservationTag(competition=competition, name=name)
            tag.order = order
            tag.save()
            tags.append(tag)
        return tags

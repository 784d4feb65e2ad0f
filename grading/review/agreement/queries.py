"""The agreement's queries: a competition's papers, submitted assignments and marks as first
submitted, loaded in a constant number of queries and handed to the figures."""

from __future__ import annotations

from collections import Counter, defaultdict
from decimal import Decimal

from django.db.models import BooleanField, Exists, ExpressionWrapper, F, OuterRef, Q

from puzzles.models import Competition

from ...models import Assignment, Mark, Paper, ProblemJury
from ...selectors import current_rubrics
from .cells import Submitted, gather_cells
from .figures import problem_figures
from .results import ProblemAgreement, display_name


def _marks_as_submitted(
    current: dict[tuple[int, int], Decimal | None], competition
) -> dict[tuple[int, int], Decimal | None]:
    """Return each submitted mark (assignment id, criterion id) as it was when submitted.

    Only marks with a version recorded after the submission can differ (a revision, or marks
    imported into a submitted paper, which are written just after it); for those, the last
    version at or before the submission, else the first version with points after it. Every other mark, including
    bulk-written ones without history, is taken as it stands."""
    History = Mark.history.model
    later = History.objects.filter(
        id=OuterRef("id"), history_date__gt=OuterRef("assignment__submitted_at")
    )
    rows = (
        History.objects.filter(
            Exists(later),
            Assignment.submitted_q("assignment"),
            assignment__paper__problem__competition=competition,
            history_type__in=("+", "~"),
        )
        .annotate(
            on_time=ExpressionWrapper(
                Q(history_date__lte=F("assignment__submitted_at")), output_field=BooleanField()
            )
        )
        .order_by("history_date", "history_id")
        .values_list("assignment_id", "criterion_id", "points", "on_time")
    )
    before: dict[tuple[int, int], Decimal | None] = {}
    first: dict[tuple[int, int], Decimal | None] = {}
    for assignment_id, criterion_id, points, on_time in rows:
        key = (assignment_id, criterion_id)
        if on_time:
            before[key] = points
        elif points is not None:  # get_or_create writes an empty version first
            first.setdefault(key, points)
    changed = (before.keys() | first.keys()) & current.keys()
    return current | {key: before[key] if key in before else first[key] for key in changed}


def problem_agreement(
    competition: Competition,
    *,
    resamples: int = 2_000,
    seed: int = 2026,
    criterion_resamples: int | None = None,
    criterion_icc: bool = False,
) -> list[ProblemAgreement]:
    """Return the juror agreement of every problem with papers, in problem order, in a constant
    number of queries (8). Per criterion, the intervals use criterion_resamples (default: as
    many as the problems'; a criterion has as many papers as its problem, so they share the
    draws) and ICC is added only when asked."""
    if criterion_resamples is None:
        criterion_resamples = resamples
    problems = list(competition.problems.order_by("number"))
    juries = {j.problem_id: j for j in ProblemJury.objects.filter(problem__in=problems)}
    criteria_of = current_rubrics(problems)
    papers_of: dict[int, list[int]] = defaultdict(list)
    for pk, problem_id in (
        Paper.objects.filter(problem__competition=competition)
        .order_by("code")
        .values_list("pk", "problem_id")
    ):
        papers_of[problem_id].append(pk)

    expected: Counter[int] = Counter()  # paper id -> assigned jurors
    submitted: dict[int, Submitted] = {}
    names: dict[int, tuple[str, str]] = {}  # juror id -> (display name, username)
    for pk, paper_id, juror_id, at, first, last, username in (
        Assignment.objects.filter(paper__problem__competition=competition)
        .order_by("submitted_at", "pk")
        .values_list(
            "pk",
            "paper_id",
            "juror_id",
            "submitted_at",
            "juror__first_name",
            "juror__last_name",
            "juror__username",
        )
    ):
        expected[paper_id] += 1
        if at is not None:
            submitted[pk] = Submitted(pk, paper_id, juror_id, at)
            names[juror_id] = (display_name(first, last, username), username)

    current: dict[tuple[int, int], Decimal | None] = dict(
        (((a, c), points))
        for a, c, points in Mark.objects.submitted()
        .filter(assignment__paper__problem__competition=competition)
        .values_list("assignment_id", "criterion_id", "points")
    )
    first_marks = _marks_as_submitted(current, competition)

    # Per paper, its submitted assignments in submission order: the ICC's juror slots.
    slots_of: dict[int, list[Submitted]] = defaultdict(list)
    for a in submitted.values():  # already in submission order
        slots_of[a.paper_id].append(a)

    labels = _labels(names)
    gathered = []
    for problem in problems:
        papers = papers_of.get(problem.pk)
        if not papers:
            continue
        jury = juries.get(problem.pk)
        gathered.append(
            gather_cells(
                problem,
                papers=papers,
                criteria=criteria_of.get(problem.pk, []),
                tolerance=jury.tolerance if jury else ProblemJury().tolerance,
                finalized=bool(jury and jury.finalized_at),
                expected=expected,
                slots_of=slots_of,
                first_marks=first_marks,
                current=current,
            )
        )
    return problem_figures(
        gathered,
        labels=labels,
        resamples=resamples,
        criterion_resamples=criterion_resamples,
        seed=seed,
        criterion_icc=criterion_icc,
    )


def _labels(names: dict[int, tuple[str, str]]) -> dict[int, str]:
    """Return each juror's display name, with the username added where two names coincide."""
    counts = Counter(name.casefold() for name, _ in names.values())
    return {
        pk: name if counts[name.casefold()] == 1 or name == username else f"{name} ({username})"
        for pk, (name, username) in names.items()
    }

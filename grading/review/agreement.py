"""Juror agreement per problem and criterion: discrepant cells before consensus, Krippendorff's
alpha, ICC(2,k), each juror's deviation from the final marks (issue 8, item 8).

A cell is one criterion of one paper. Every figure rests on the jurors' marks *as submitted*:
a juror's independent verdict, before discussion moved it (a revision after submitting is
recorded in the mark's history, and agreement measured on revised marks would only measure
the consensus). Drafts never count: a juror's unsubmitted marks are private. Jurors are named,
so this is for organizers and the chair only; the caller checks the role.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

from django.db.models import BooleanField, Exists, ExpressionWrapper, F, OuterRef, Q

from puzzles.models import Competition

from ..consensus import DISCREPANT, cell_state
from ..models import Assignment, Mark, Paper, ProblemJury, Resolution
from ..selectors import current_rubrics
from .stats import (
    DiscrepancyRate,
    Reliability,
    rater_deviation,
    reliabilities,
)

Interval = tuple[float, float]
Cell = tuple[int, int]  # (paper id, criterion id)


@dataclass(frozen=True)
class JurorAgreement:
    """One juror's mean signed and absolute difference from the final marks, worded."""

    name: str
    mean: float | None
    mean_abs: float | None
    n: int
    sentence: str  # without a subject: "marks 0.5 points above the agreed marks ..."

    def as_json(self) -> dict:
        return {
            "name": self.name,
            "mean": self.mean,
            "mean_abs": self.mean_abs,
            "n": self.n,
            "sentence": self.sentence,
        }


@dataclass(frozen=True)
class CriterionAgreement:
    """The agreement figures of one criterion code of a problem."""

    code: str
    discrepancy_rate: float | None
    discrepant: int
    compared: int
    alpha: float | None
    alpha_ci: Interval | None
    n_cells: int  # cells with at least two submitted marks (alpha's units)
    icc: float | None = None
    icc_ci: Interval | None = None
    resamples: int = 0  # bootstrap resamples behind the intervals
    note: str | None = None

    def as_json(self) -> dict:
        return {
            "code": self.code,
            "discrepancy_rate": self.discrepancy_rate,
            "discrepant": self.discrepant,
            "compared": self.compared,
            "alpha": self.alpha,
            "alpha_ci": _pair(self.alpha_ci),
            "icc": self.icc,
            "icc_ci": _pair(self.icc_ci),
            "n_cells": self.n_cells,
            "resamples": self.resamples,
            "note": self.note,
        }


@dataclass(frozen=True)
class ProblemAgreement:
    """A problem's juror agreement; `note` says what the figures rest on and what is missing."""

    problem: int  # the problem's number
    title: str
    finalized: bool
    tolerance: Decimal
    discrepancy: DiscrepancyRate
    alpha: Reliability
    icc: Reliability
    k: int  # juror slots per cell in the ICC
    jurors: tuple[JurorAgreement, ...]
    criteria: tuple[CriterionAgreement, ...]
    cells: int  # papers x criteria
    revised: int  # submitted marks changed since (revisions after discussion)
    note: str | None

    @property
    def provisional(self) -> bool:
        return not self.finalized

    @property
    def discrepancy_rate(self) -> float | None:
        return self.discrepancy.rate

    def as_json(self) -> dict:
        return {
            "problem": self.problem,
            "title": self.title,
            "provisional": self.provisional,
            "tolerance": float(self.tolerance),
            "alpha": self.alpha.value,
            "alpha_ci": _pair(self.alpha.ci),
            "icc": self.icc.value,
            "icc_ci": _pair(self.icc.ci),
            "icc_k": self.k,
            "resamples": self.alpha.resamples,
            "alpha_note": self.alpha.note,
            "icc_note": self.icc.note,
            "discrepancy_rate": self.discrepancy.rate,
            "discrepant": self.discrepancy.discrepant,
            "compared": self.discrepancy.compared,
            "cells": self.cells,
            "revised": self.revised,
            "jurors": [j.as_json() for j in self.jurors],
            "criteria": [c.as_json() for c in self.criteria],
            "note": self.note,
        }


def _pair(interval: Interval | None) -> list[float] | None:
    return None if interval is None else [interval[0], interval[1]]


def display_name(first: str, last: str, username: str) -> str:
    """Return what User.get_full_name() would, or the username when that is empty."""
    return f"{first} {last}".strip() or username


# --- the data ------------------------------------------------------------------------------------


@dataclass
class _Submitted:
    """A submitted assignment: whose, and when."""

    pk: int
    paper_id: int
    juror_id: int
    submitted_at: object


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
            assignment__paper__problem__competition=competition,
            assignment__submitted_at__isnull=False,
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
    number of queries (9). Per criterion, the intervals use criterion_resamples (default: at
    most 2,000, as many criteria cost as much again as their problem) and ICC is added only
    when asked."""
    if criterion_resamples is None:
        criterion_resamples = min(resamples, 2_000)
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
    submitted: dict[int, _Submitted] = {}
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
            submitted[pk] = _Submitted(pk, paper_id, juror_id, at)
            names[juror_id] = (display_name(first, last, username), username)

    current: dict[tuple[int, int], Decimal | None] = dict(
        (((a, c), points))
        for a, c, points in Mark.objects.submitted()
        .filter(assignment__paper__problem__competition=competition)
        .values_list("assignment_id", "criterion_id", "points")
    )
    first_marks = _marks_as_submitted(current, competition)
    decisions: dict[Cell, Decimal] = {
        (p, c): points
        for p, c, points in Resolution.objects.filter(
            paper__problem__competition=competition
        ).values_list("paper_id", "criterion_id", "points")
    }

    # Per paper, its submitted assignments in submission order: the ICC's juror slots.
    slots_of: dict[int, list[_Submitted]] = defaultdict(list)
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
            _gather(
                problem,
                papers=papers,
                criteria=criteria_of.get(problem.pk, []),
                tolerance=jury.tolerance if jury else ProblemJury().tolerance,
                finalized=bool(jury and jury.finalized_at),
                expected=expected,
                slots_of=slots_of,
                first_marks=first_marks,
                current=current,
                decisions=decisions,
            )
        )
    return _figures(
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


@dataclass
class _Gathered:
    """One problem's cells, read from the loaded marks: what its figures are computed from."""

    problem: object
    criteria: list
    tolerance: Decimal
    finalized: bool
    k: int
    units: dict[str, list[list[float | None]]]  # code -> alpha units
    rows: dict[str, list[list[float | None]]]  # code -> ICC rows
    counted: dict[str, list[int]]  # code -> [discrepant, compared]
    by_juror: dict[int, dict[Cell, Decimal | None]]
    finals: dict[Cell, Decimal]
    cells: int
    extra: int
    revised: int
    unmarked: int

    @property
    def codes(self) -> list[str]:
        return [c.code for c in self.criteria]


def _gather(
    problem,
    *,
    papers: list[int],
    criteria: list,
    tolerance: Decimal,
    finalized: bool,
    expected: Counter,
    slots_of: dict[int, list[_Submitted]],
    first_marks: dict,
    current: dict,
    decisions: dict,
) -> _Gathered:
    """Sort one problem's loaded marks into its cells (no query)."""
    # k: the usual number of submitted jurors of a paper (the larger one on a tie).
    sizes = Counter(len(slots_of.get(p, [])) for p in papers)
    k = max((n for n in sizes if n >= 2), key=lambda n: (sizes[n], n), default=0)

    units: dict[str, list[list[float | None]]] = defaultdict(list)
    rows: dict[str, list[list[float | None]]] = defaultdict(list)
    counted: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    by_juror: dict[int, dict[Cell, Decimal | None]] = defaultdict(dict)
    finals: dict[Cell, Decimal] = {}
    extra = revised = unmarked = 0
    for paper_id in papers:
        slots = slots_of.get(paper_id, [])
        for criterion in criteria:
            cell = (paper_id, criterion.pk)
            marks = {
                a.juror_id: first_marks[(a.pk, criterion.pk)]
                for a in slots
                if (a.pk, criterion.pk) in first_marks
            }
            now = {
                a.juror_id: current[(a.pk, criterion.pk)]
                for a in slots
                if (a.pk, criterion.pk) in current
            }
            revised += sum(now[j] != marks[j] for j in marks)
            values = [v for v in marks.values() if v is not None]
            if not values:
                unmarked += 1
                continue
            # The statistics work in floats: convert each mark once, not in every figure.
            floats = {j: None if v is None else float(v) for j, v in marks.items()}
            units[criterion.code].append(list(floats.values()))
            before = None
            if len(values) >= 2:
                # The consensus rule itself, on the marks as submitted and without decisions.
                before = cell_state(
                    submitted=marks,
                    expected=expected[paper_id],
                    decision=None,
                    tolerance=tolerance,
                    step=criterion.step,
                )
                counted[criterion.code][0] += before.status == DISCREPANT
                counted[criterion.code][1] += 1
            if k:
                row = [floats.get(a.juror_id) for a in slots[:k]]
                extra += max(0, len(slots) - k)
                rows[criterion.code].append(row + [None] * (k - len(row)))
            decision = decisions.get(cell)
            state = (
                before  # the same rule on the same marks: unrevised and undecided
                if before is not None and decision is None and now == marks
                else cell_state(
                    submitted=now,
                    expected=expected[paper_id],
                    decision=decision,
                    tolerance=tolerance,
                    step=criterion.step,
                )
            )
            if state.resolved:
                finals[cell] = state.final
            for juror_id, points in marks.items():
                by_juror[juror_id][cell] = points

    return _Gathered(
        problem=problem,
        criteria=criteria,
        tolerance=tolerance,
        finalized=finalized,
        k=k,
        units=units,
        rows=rows,
        counted=counted,
        by_juror=by_juror,
        finals=finals,
        cells=len(papers) * len(criteria),
        extra=extra,
        revised=revised,
        unmarked=unmarked,
    )


def _figures(
    gathered: list[_Gathered],
    *,
    labels: dict[int, str],
    resamples: int,
    criterion_resamples: int,
    seed: int,
    criterion_icc: bool,
) -> list[ProblemAgreement]:
    """Compute the problems' figures; the bootstraps of all problems share their draws, and
    so do those of all criteria (stats.reliabilities)."""
    alphas, iccs = reliabilities(
        alphas=[[u for code in g.codes for u in g.units[code]] for g in gathered],
        iccs=[[r for code in g.codes for r in g.rows[code]] for g in gathered if g.k],
        resamples=resamples,
        seed=seed,
    )
    with_icc = [g for g in gathered if g.k]
    icc_of = dict(zip(map(id, with_icc), iccs, strict=True))
    criterion_cells = [(g, code) for g in gathered for code in g.codes]
    criterion_alphas, criterion_iccs = reliabilities(
        alphas=[g.units[code] for g, code in criterion_cells],
        iccs=[g.rows[code] for g, code in criterion_cells if criterion_icc and g.k],
        resamples=criterion_resamples,
        seed=seed,
    )
    criterion_icc_of = dict(
        zip(
            [(id(g), code) for g, code in criterion_cells if criterion_icc and g.k],
            criterion_iccs,
            strict=True,
        )
    )
    criterion_alpha_of = dict(
        zip([(id(g), code) for g, code in criterion_cells], criterion_alphas, strict=True)
    )
    out = []
    for g, alpha in zip(gathered, alphas, strict=True):
        icc = icc_of.get(id(g)) or Reliability(
            None, None, 0, note="No paper has submitted marks from two jurors yet."
        )
        jurors = sorted(
            (
                JurorAgreement(labels[d.rater], d.mean, d.mean_abs, d.n, d.sentence)
                for d in rater_deviation(g.by_juror, g.finals)
            ),
            key=lambda j: j.name.casefold(),
        )
        discrepant = sum(g.counted[code][0] for code in g.codes)
        compared = sum(g.counted[code][1] for code in g.codes)
        out.append(
            ProblemAgreement(
                problem=g.problem.number,
                title=g.problem.title,
                finalized=g.finalized,
                tolerance=g.tolerance,
                discrepancy=_rate(discrepant, compared),
                alpha=alpha,
                icc=icc,
                k=g.k,
                jurors=tuple(jurors),
                criteria=tuple(
                    _criterion(
                        code,
                        g.counted[code],
                        alpha=criterion_alpha_of[(id(g), code)],
                        icc=criterion_icc_of.get((id(g), code)),
                        resamples=criterion_resamples,
                    )
                    for code in g.codes
                ),
                cells=g.cells,
                revised=g.revised,
                note=_notes(
                    finalized=g.finalized,
                    criteria=g.criteria,
                    k=g.k,
                    icc=icc,
                    extra=g.extra,
                    revised=g.revised,
                    unmarked=g.unmarked,
                    decided=len(g.finals),
                ),
            )
        )
    return out


def _rate(discrepant: int, compared: int) -> DiscrepancyRate:
    if not compared:
        return DiscrepancyRate(None, 0, 0, "No cell has submitted marks from two jurors yet.")
    return DiscrepancyRate(discrepant / compared, discrepant, compared)


def _criterion(
    code: str,
    counted: list[int],
    *,
    alpha: Reliability,
    icc: Reliability | None,
    resamples: int,
) -> CriterionAgreement:
    rate = _rate(*counted)
    return CriterionAgreement(
        code=code,
        discrepancy_rate=rate.rate,
        discrepant=rate.discrepant,
        compared=rate.compared,
        alpha=alpha.value,
        alpha_ci=alpha.ci,
        n_cells=alpha.units,
        icc=icc.value if icc else None,
        icc_ci=icc.ci if icc else None,
        resamples=resamples,
        note=_join([alpha.note, icc.note if icc else None]),
    )


def _notes(
    *,
    finalized: bool,
    criteria: list,
    k: int,
    icc: Reliability,
    extra: int,
    revised: int,
    unmarked: int,
    decided: int,
) -> str | None:
    notes = []
    if not criteria:
        notes.append("The problem has no rubric yet.")
    if not finalized:
        notes.append(
            "Provisional: the problem is not finalized; deviations are measured against "
            f"the {decided} cells agreed or decided so far."
        )
    notes.append("Figures use the marks as the jurors submitted them, before discussion.")
    if revised:
        notes.append(
            f"{_plural(revised, 'submitted mark')} {'was' if revised == 1 else 'were'} "
            f"revised since and {'counts' if revised == 1 else 'count'} here as first submitted."
        )
    if k:
        notes.append(
            f"ICC(2,{k}) pairs each paper's first, second{', ...' if k > 2 else ''} juror to "
            "submit (the juror slots), whoever they are"
            + (
                f"; {_plural(icc.left_out, 'cell')} with fewer marks left out"
                if icc.left_out
                else ""
            )
            + (f"; {_plural(extra, 'further mark')} beyond slot {k} not used" if extra else "")
            + "."
        )
    if unmarked:
        notes.append(f"{_plural(unmarked, 'cell')} without any submitted mark yet.")
    return _join(notes)


def _plural(n: int, word: str) -> str:
    return f"{n} {word if n == 1 else word + 's'}"


def _join(notes: Iterable[str | None]) -> str | None:
    text = " ".join(n for n in notes if n)
    return text or None

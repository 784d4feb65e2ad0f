"""Juror agreement per problem and criterion: discrepant cells before consensus, Krippendorff's
alpha, ICC(A,k) and ICC(A,1), and each juror's severity (issue 8, item 8; issue 20, part 4).

A cell is one criterion of one paper. Every figure rests on the jurors' marks *as submitted*:
a juror's independent verdict, before discussion moved it (a revision after submitting is
recorded in the mark's history, and agreement measured on revised marks would only measure
the consensus). Drafts never count: a juror's unsubmitted marks are private. Jurors are named,
so this is for organizers and the chair only; the caller checks the role.

A problem's figures pool its criteria on marks as a share of each criterion's maximum (points /
maximum), so that a 10-point criterion does not outweigh a 1-point one and the figures measure
the jurors rather than how the criteria's scales differ; a criterion's own figures are on its
points (alpha and ICC do not change when one criterion's marks are divided by its maximum).
Every interval resamples papers, each with all its cells (SCALE and RESAMPLING say so).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, replace
from decimal import Decimal

from django.db.models import BooleanField, Exists, ExpressionWrapper, F, OuterRef, Q

from puzzles.models import Competition

from ..consensus import DISCREPANT, cell_state
from ..models import Assignment, Mark, Paper, ProblemJury
from ..selectors import current_rubrics
from .stats import (
    DiscrepancyRate,
    Icc,
    JurorEffect,
    Ratings,
    Reliability,
    effect_sentence,
    juror_effects_of_many,
    reliabilities,
)

Interval = tuple[float, float]
Cell = tuple[int, int]  # (paper id, criterion id)

# An interval's ends are drawn again with more resamples while their Monte-Carlo error could
# move the second decimal the pages print (few papers: cheap, and there it is largest).
MC_TARGET = 0.005
MAX_RESAMPLES = 100_000

SCALE = (
    "Problem figures pool the criteria on marks as a share of each criterion's maximum; "
    "a criterion's figures are on its points."
)
RESAMPLING = (
    "Intervals are 95% bootstrap intervals that resample papers, each with all its cells "
    "(a cluster bootstrap): with 10 papers or fewer, the exact bootstrap distribution over every "
    "distinct resample; otherwise percentiles of random resamples, with the Monte-Carlo error "
    "of their ends, and more resamples (up to 100,000) where that error exceeds 0.005."
)
ICC_METHOD = (
    "ICC(A,k) = ICC(2,k) is the reliability of the mean of k jurors' marks; ICC(A,1) = ICC(2,1) "
    "that of one juror's mark (two-way random effects, absolute agreement; McGraw & Wong 1996)."
)
SEVERITY_METHOD = (
    "Juror severity: a two-way additive model, mark = cell effect + juror effect, fitted by "
    "least squares to the marks as submitted (shares of each criterion's maximum), on the cells "
    "two or more jurors marked; effects are against the average juror of a group linked by "
    "shared papers, or, in a group of two, the difference between them, the only thing the data "
    "identify; intervals resample papers."
)


@dataclass(frozen=True)
class JurorAgreement:
    """One juror's severity (stats.severity.JurorEffect), named and worded."""

    name: str
    kind: str  # "group", "pair" or "alone" (stats.severity)
    peers: tuple[str, ...]
    effect: float | None  # share of a criterion's maximum, + more lenient
    ci: Interval | None
    cells: int  # cells shared with another juror
    papers: int
    sentence: str  # without a subject: "marks 0.040 of a criterion's maximum above ..."
    method: str | None = None  # how the interval was drawn

    @property
    def n(self) -> int:
        return self.cells

    def as_json(self) -> dict:
        return {
            "name": self.name,
            "kind": self.kind,
            "peers": list(self.peers),
            "effect": self.effect,
            "effect_ci": _pair(self.ci),
            "effect_scale": "share of a criterion's maximum",
            "cells": self.cells,
            "papers": self.papers,
            "sentence": self.sentence,
            "method": self.method,
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
    resamples: int = 0  # bootstrap resamples behind the intervals (distinct ones when exact)
    note: str | None = None
    maximum: float | None = None
    exact: bool = False  # the exact bootstrap distribution (few papers)
    mc_error: float | None = None  # Monte-Carlo error of the alpha interval's ends
    method: str | None = None  # how the alpha interval was drawn
    icc_single: float | None = None  # ICC(A,1), with icc when asked
    icc_single_ci: Interval | None = None

    def as_json(self) -> dict:
        return {
            "code": self.code,
            "maximum": self.maximum,
            "scale": "points",
            "discrepancy_rate": self.discrepancy_rate,
            "discrepant": self.discrepant,
            "compared": self.compared,
            "alpha": self.alpha,
            "alpha_ci": _pair(self.alpha_ci),
            "icc": self.icc,
            "icc_ci": _pair(self.icc_ci),
            "icc_single": self.icc_single,
            "icc_single_ci": _pair(self.icc_single_ci),
            "n_cells": self.n_cells,
            "resamples": self.resamples,
            "resampling_unit": "paper",
            "exact": self.exact,
            "mc_error": self.mc_error,
            "method": self.method,
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
    alpha: Reliability  # on shares of each criterion's maximum, intervals over papers
    icc: Reliability  # ICC(A,k) = ICC(2,k), on the same shares
    k: int  # juror slots per cell in the ICC
    jurors: tuple[JurorAgreement, ...]
    criteria: tuple[CriterionAgreement, ...]
    cells: int  # papers x criteria
    revised: int  # submitted marks changed since (revisions after discussion)
    note: str | None
    icc_single: Reliability | None = None  # ICC(A,1) = ICC(2,1): one juror's mark
    scale: str = SCALE
    resampling: str = RESAMPLING

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
            "icc_single": self.icc_single.value if self.icc_single else None,
            "icc_single_ci": _pair(self.icc_single.ci) if self.icc_single else None,
            "icc_method": ICC_METHOD,
            "scale": self.scale,
            "resampling_unit": "paper",
            "resampling": self.resampling,
            "papers": self.alpha.clusters,
            "resamples": self.alpha.resamples,
            "exact": self.alpha.exact,
            "alpha_mc_error": self.alpha.mc_error,
            "alpha_interval_method": self.alpha.method,
            "icc_interval_method": self.icc.method,
            "alpha_note": self.alpha.note,
            "icc_note": self.icc.note,
            "severity_method": SEVERITY_METHOD,
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
    """One problem's cells, read from the loaded marks: what its figures are computed from.

    Per criterion code, its cells' marks in points (alpha units, ICC rows) and each cell's
    paper; `shares` is every criterion's cells on shares of its maximum, with `share_papers`,
    for the problem's figures; `severity` holds (paper, cell, juror, share) rows."""

    problem: object
    criteria: list
    tolerance: Decimal
    finalized: bool
    k: int
    units: dict[str, list[list[float | None]]]
    rows: dict[str, list[list[float | None]]]
    papers: dict[str, list[int]]  # code -> the paper of each unit and row
    counted: dict[str, list[int]]  # code -> [discrepant, compared]
    shares: list[list[float | None]]
    share_rows: list[list[float | None]]
    share_papers: list[int]
    share_row_papers: list[int]
    severity: list[tuple[int, Cell, int, float]]
    cells: int
    extra: int
    revised: int
    unmarked: int
    without_maximum: list[str]  # codes left out of the problem's figures (maximum 0)

    @property
    def codes(self) -> list[str]:
        return [c.code for c in self.criteria]

    @property
    def scale(self) -> float:
        """The sum of the criteria's maxima (a whole paper's points)."""
        return float(sum(c.maximum for c in self.criteria))


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
) -> _Gathered:
    """Sort one problem's loaded marks into its cells (no query)."""
    # k: the usual number of submitted jurors of a paper (the larger one on a tie).
    sizes = Counter(len(slots_of.get(p, [])) for p in papers)
    k = max((n for n in sizes if n >= 2), key=lambda n: (sizes[n], n), default=0)

    units: dict[str, list[list[float | None]]] = defaultdict(list)
    rows: dict[str, list[list[float | None]]] = defaultdict(list)
    papers_by_code: dict[str, list[int]] = defaultdict(list)
    counted: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    shares: list[list[float | None]] = []
    share_rows: list[list[float | None]] = []
    share_papers: list[int] = []
    share_row_papers: list[int] = []
    severity: list[tuple[int, Cell, int, float]] = []
    extra = revised = unmarked = 0
    without_maximum = [c.code for c in criteria if not c.maximum]
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
            maximum = float(criterion.maximum) if criterion.maximum else None
            units[criterion.code].append(list(floats.values()))
            papers_by_code[criterion.code].append(paper_id)
            if maximum:
                share = {j: None if v is None else v / maximum for j, v in floats.items()}
                shares.append(list(share.values()))
                share_papers.append(paper_id)
                severity.extend((paper_id, cell, j, v) for j, v in share.items() if v is not None)
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
                row += [None] * (k - len(row))
                rows[criterion.code].append(row)
                if maximum:
                    share_rows.append([None if v is None else v / maximum for v in row])
                    share_row_papers.append(paper_id)

    return _Gathered(
        problem=problem,
        criteria=criteria,
        tolerance=tolerance,
        finalized=finalized,
        k=k,
        units=units,
        rows=rows,
        papers=papers_by_code,
        counted=counted,
        shares=shares,
        share_rows=share_rows,
        share_papers=share_papers,
        share_row_papers=share_row_papers,
        severity=severity,
        cells=len(papers) * len(criteria),
        extra=extra,
        revised=revised,
        unmarked=unmarked,
        without_maximum=without_maximum,
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
    with_icc = [g for g in gathered if g.k]
    problem_alphas = [Ratings(g.shares, g.share_papers) for g in gathered]
    problem_iccs = [Ratings(g.share_rows, g.share_row_papers) for g in with_icc]
    criterion_cells = [(g, code) for g in gathered for code in g.codes]
    icc_cells = [(g, code) for g, code in criterion_cells if criterion_icc and g.k]
    criterion_alphas = [Ratings(g.units[code], g.papers[code]) for g, code in criterion_cells]
    criterion_iccs = [Ratings(g.rows[code], g.papers[code]) for g, code in icc_cells]

    def draw(alphas, iccs, resamples):
        return reliabilities(
            alphas=alphas,
            iccs=iccs,
            resamples=resamples,
            seed=seed,
            mc_target=MC_TARGET,
            max_resamples=max(resamples, MAX_RESAMPLES),
        )

    if criterion_resamples == resamples:  # one bootstrap: a criterion has its problem's papers
        got_alphas, got_iccs = draw(
            problem_alphas + criterion_alphas, problem_iccs + criterion_iccs, resamples
        )
        alphas, criterion_got = got_alphas[: len(gathered)], got_alphas[len(gathered) :]
        iccs, criterion_icc_got = got_iccs[: len(with_icc)], got_iccs[len(with_icc) :]
    else:
        alphas, iccs = draw(problem_alphas, problem_iccs, resamples)
        criterion_got, criterion_icc_got = draw(
            criterion_alphas, criterion_iccs, criterion_resamples
        )
    icc_of = dict(zip(map(id, with_icc), iccs, strict=True))
    criterion_icc_of = dict(
        zip([(id(g), code) for g, code in icc_cells], criterion_icc_got, strict=True)
    )
    criterion_alpha_of = dict(
        zip([(id(g), code) for g, code in criterion_cells], criterion_got, strict=True)
    )
    effects_of = juror_effects_of_many(
        [g.severity for g in gathered], resamples=resamples, seed=seed
    )
    out = []
    for g, alpha, effects in zip(gathered, alphas, effects_of, strict=True):
        none = Reliability(None, None, 0, note="No paper has submitted marks from two jurors yet.")
        pair = icc_of.get(id(g)) or Icc(none, none)
        jurors = sorted(
            (_juror(e, labels, g.scale) for e in effects), key=lambda j: j.name.casefold()
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
                icc=pair.average,
                icc_single=pair.single,
                k=g.k,
                jurors=tuple(jurors),
                criteria=tuple(
                    _criterion(
                        criterion,
                        g.counted[criterion.code],
                        alpha=criterion_alpha_of[(id(g), criterion.code)],
                        icc=criterion_icc_of.get((id(g), criterion.code)),
                    )
                    for criterion in g.criteria
                ),
                cells=g.cells,
                revised=g.revised,
                note=_notes(
                    finalized=g.finalized,
                    criteria=g.criteria,
                    k=g.k,
                    icc=pair.average,
                    extra=g.extra,
                    revised=g.revised,
                    unmarked=g.unmarked,
                    without_maximum=g.without_maximum,
                ),
            )
        )
    return out


def _juror(effect: JurorEffect, labels: dict[int, str], scale: float) -> JurorAgreement:
    named = replace(
        effect, rater=labels[effect.rater], peers=tuple(labels[p] for p in effect.peers)
    )
    return JurorAgreement(
        name=named.rater,
        kind=named.kind,
        peers=named.peers,
        effect=named.effect,
        ci=named.ci,
        cells=named.cells,
        papers=named.papers,
        sentence=effect_sentence(named, scale=scale or None),
        method=named.method,
    )


def _rate(discrepant: int, compared: int) -> DiscrepancyRate:
    if not compared:
        return DiscrepancyRate(None, 0, 0, "No cell has submitted marks from two jurors yet.")
    return DiscrepancyRate(discrepant / compared, discrepant, compared)


def _criterion(
    criterion,
    counted: list[int],
    *,
    alpha: Reliability,
    icc: Icc | None,
) -> CriterionAgreement:
    rate = _rate(*counted)
    return CriterionAgreement(
        code=criterion.code,
        discrepancy_rate=rate.rate,
        discrepant=rate.discrepant,
        compared=rate.compared,
        alpha=alpha.value,
        alpha_ci=alpha.ci,
        n_cells=alpha.units,
        icc=icc.average.value if icc else None,
        icc_ci=icc.average.ci if icc else None,
        icc_single=icc.single.value if icc else None,
        icc_single_ci=icc.single.ci if icc else None,
        resamples=alpha.resamples,
        note=_join([alpha.note, icc.average.note if icc else None]),
        maximum=float(criterion.maximum),
        exact=alpha.exact,
        mc_error=alpha.mc_error,
        method=alpha.method,
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
    without_maximum: list[str],
) -> str | None:
    notes = []
    if not criteria:
        notes.append("The problem has no rubric yet.")
    if not finalized:
        notes.append(
            "Provisional: the problem is not finalized; its figures change as marks come in."
        )
    notes.append("Figures use the marks as the jurors submitted them, before discussion.")
    if without_maximum:
        notes.append(
            f"{_plural(len(without_maximum), 'criterion')} with a maximum of 0 "
            f"({', '.join(without_maximum)}) left out of the problem's figures."
        )
    if revised:
        notes.append(
            f"{_plural(revised, 'submitted mark')} {'was' if revised == 1 else 'were'} "
            f"revised since and {'counts' if revised == 1 else 'count'} here as first submitted."
        )
    if k:
        notes.append(
            f"ICC(A,{k}) and ICC(A,1) pair each paper's first, second{', ...' if k > 2 else ''} "
            "juror to submit (the juror slots), whoever they are"
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
    many = word[:-2] + "a" if word.endswith("ion") else word + "s"  # criterion -> criteria
    return f"{n} {word if n == 1 else many}"


def _join(notes: Iterable[str | None]) -> str | None:
    text = " ".join(n for n in notes if n)
    return text or None

"""The result review: jury totals against automatic scores, medals, criterion difficulty.

`review_build` computes a `Review` from the marks as they stand (frozen dataclasses, plain
values); `review_cached` serves it, with its charts, from Django's cache. The page, the JSON
report (`Review.as_json`) and `manage.py report` all read the same `Review`.

Cache key: ``ioleval:review:v2:<competition id>:<resamples>:<fingerprint>`` for the review,
the same with ``:charts`` appended for its SVG charts (and ``:body:<role>`` for the page's
rendered body), where the fingerprint is `grading.review.selectors.review_fingerprint` (one
query over the latest marks, submissions, decisions, finalizations, rubrics, contestants,
automatic figures, systems and thresholds). Any change to what the review reads makes a new
key, so nothing has to be deleted: stale entries age out after CACHE_SECONDS. The page shows
the latest review while a task computes the new one (`review_state`, below); for that the
worker and the web processes share one cache (CACHE_URL).

Faults: while the shared cache cannot be reached, reviews are kept in the process's own
memory (`review_cache`) and the page computes the review in the request; after a failure
the process leaves the shared cache alone for a while (`ioleval.shared_cache`), so that a
cache that hangs costs a page one timeout, not one per read; while the broker
cannot be reached, the page computes it in the request too, and a finalization leaves it to
the page (logged, never an error of the finalization, which has committed).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from decimal import Decimal

from celery import current_app
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from ioleval.celery import QueueUnavailable
from ioleval.progress import DONE, RUNNING, STALLED, Progress
from ioleval.shared_cache import CACHE_DOWN, FallbackCache
from ioleval.wording import interval_text, p_method_text, p_text
from puzzles.models import Competition

from . import charts
from .agreement import ProblemAgreement, problem_agreement
from .observations import TagCounts, tag_counts
from .selectors import ReviewData, review_data, review_fingerprint
from .stats import (
    Columns,
    Correlation,
    CriterionDifficulty,
    competition_ranks,
    correlations,
    criterion_difficulty,
    medal,
    placements,
    spread,
)

logger = logging.getLogger(__name__)

CACHE_VERSION = 3  # 3: exact small-sample p-values, methods named, ranges as shares
CACHE_SECONDS = 24 * 60 * 60
DIVERGENT_PAPERS = 10  # the most divergent papers listed
SEED = 2026


@dataclass(frozen=True)
class SystemReview:
    """One system selected for the jury, with both verdicts and its placement."""

    system: str
    tier: str
    external: bool  # its automatic figures were computed elsewhere and imported
    auto_score: float | None  # GM, 0-100
    exact_match: float | None  # 0-100
    chrf: float | None  # 0-100
    auto_by_problem: dict[int, float | None]
    jury_total: float | None
    jury_by_problem: dict[int, float | None]
    auto_rank: int | None
    jury_rank: int | None
    medal: str | None
    equivalent_rank: int | None
    percentile: float | None  # share of contestants it beats, 0-100
    contestants: int
    papers: dict[int, str]  # problem number -> paper code

    @property
    def placement_text(self) -> str:
        """Return the equivalent rank as the paper writes it: '4th of 255'."""
        if self.equivalent_rank is None:
            return ""
        return f"{ordinal(self.equivalent_rank)} of {self.contestants}"

    @property
    def medal_text(self) -> str:
        return (self.medal or "").replace("_", " ")


@dataclass(frozen=True)
class ProblemReview:
    number: int
    title: str
    maximum: float
    counted: bool
    finalized: bool


@dataclass(frozen=True)
class Divergence:
    """Automatic minus jury for one paper, both on 0-100 (positive: the metric is kinder)."""

    paper: str
    problem: int
    system: str
    auto: float
    jury: float
    difference: float
    url: str  # the problem's comparison sheet, at the paper's row


@dataclass(frozen=True)
class Ranges:
    """The spread (max - min) of the jury totals in points and of the automatic scores on
    0-100, and each as a share (0-1) of its own scale (the jury's: `Review.jury_maximum`)."""

    jury: float | None
    auto: float | None
    sentence: str
    jury_share: float | None = None
    auto_share: float | None = None


@dataclass(frozen=True)
class CriterionPoint:
    criterion: str  # 'P3.b'
    models: float | None
    humans: float | None


# Per-problem Spearman and Kendall get bootstrap intervals (above ten systems; up to ten they
# are Fisher's, drawn for nothing) up to this many systems: at hundreds the interval is
# narrow, the p-value says as much, and drawing it for every problem would cost more than the
# rest of the review together (benchmarks/README.md, review_scale.py).
PROBLEM_INTERVALS_UP_TO = 50


@dataclass(frozen=True)
class ProblemCorrelation:
    problem: int
    correlation: Correlation

    @property
    def sentence(self) -> str:
        return correlation_sentence(self.correlation)


@dataclass(frozen=True)
class Review:
    """The whole review of one competition, as the page, the JSON and the report show it."""

    competition: str
    slug: str
    systems: tuple[SystemReview, ...]
    problems: tuple[ProblemReview, ...]
    jury_maximum: float | None  # the jury's scale (None: none yet)
    correlation: Correlation
    # Per counted problem: the problem's automatic score against its jury points (0-100).
    problem_correlations: tuple[ProblemCorrelation, ...]
    ranges: Ranges
    divergences: tuple[Divergence, ...]  # every paper with both figures
    divergent_papers: tuple[Divergence, ...]  # the largest |difference| first
    criteria: tuple[CriterionPoint, ...]
    difficulty: CriterionDifficulty
    thresholds: dict[str, float | None]  # those medals are given by (none above the scale)
    contestant_totals: tuple[float, ...]
    provisional: bool
    unfinalized: tuple[int, ...]
    notes: tuple[str, ...]
    resamples: int
    # Juror agreement per problem (grading.review.agreement) and the jury's observation tags
    # (grading.review.observations); review_build adds them, they need their own queries.
    agreement: tuple[ProblemAgreement, ...] = field(default_factory=tuple)
    observations: TagCounts | None = None
    built_at: datetime | None = None  # when review_build computed it
    scale: str = ""  # the jury's scale and where it comes from (grading.scale)
    scale_source: str = ""

    @property
    def problem_intervals(self) -> bool:
        """Whether the per-problem correlations have bootstrap intervals (few enough systems)."""
        return len(self.systems) <= PROBLEM_INTERVALS_UP_TO

    @property
    def problem_intervals_note(self) -> str:
        """Say why the per-problem Spearman and Kendall have no intervals ("" when they have)."""
        if self.problem_intervals:
            return ""
        return (
            f"Bootstrap intervals of Spearman and Kendall per problem are drawn up to "
            f"{PROBLEM_INTERVALS_UP_TO} systems; over {len(self.systems)} they are narrow and the "
            "p-value tells as much."
        )

    @property
    def provisional_sentence(self) -> str:
        """Say which problems keep the review provisional ("" once all are finalized)."""
        if not self.unfinalized:
            return ""
        many = len(self.unfinalized) > 1
        numbers = ", ".join(str(n) for n in self.unfinalized)
        return (
            f"Provisional: problem{'s' if many else ''} {numbers} {'are' if many else 'is'} "
            "not finalized yet; the figures use the submitted and agreed marks as they stand."
        )

    @property
    def correlation_sentence(self) -> str:
        return correlation_sentence(self.correlation)

    @property
    def systems_columns(self) -> int:
        """Return the systems table's column count: ten, and one per counted problem."""
        return 10 + sum(1 for p in self.problems if p.counted)

    @property
    def difficulty_sentence(self) -> str:
        return difficulty_sentence(self.difficulty)

    def as_json(self) -> dict:
        """Return the review as the JSON report's plain data (issue 8, item 11)."""
        c = self.correlation
        d = self.difficulty
        return {
            "competition": self.slug,
            "provisional": self.provisional,
            "unfinalized_problems": list(self.unfinalized),
            "provisional_note": self.provisional_sentence or None,
            "jury_maximum": self.jury_maximum,
            "scale": {"points": self.jury_maximum, "source": self.scale_source},
            "systems": [
                {
                    "system": s.system,
                    "tier": s.tier,
                    "auto_score": _round(s.auto_score),
                    "exact_match": _round(s.exact_match),
                    "chrf": _round(s.chrf),
                    "jury_total": _round(s.jury_total),
                    "auto_rank": s.auto_rank,
                    "jury_rank": s.jury_rank,
                    "medal": s.medal,
                    "equivalent_rank": s.equivalent_rank,
                    "percentile": _round(s.percentile),
                    "external": s.external,
                    "by_problem": {
                        str(n): {
                            "auto_score": _round(s.auto_by_problem.get(n)),
                            "jury": _round(s.jury_by_problem.get(n)),
                        }
                        for n in sorted(set(s.auto_by_problem) | set(s.jury_by_problem))
                    },
                }
                for s in self.systems
            ],
            "correlation": _correlation_json(c),
            "correlation_by_problem": {
                str(p.problem): _correlation_json(p.correlation) for p in self.problem_correlations
            },
            "ranges": {
                "jury": _round(self.ranges.jury),
                "auto": _round(self.ranges.auto),
                "jury_share": _round(self.ranges.jury_share),
                "auto_share": _round(self.ranges.auto_share),
                "sentence": self.ranges.sentence,
            },
            "divergent_papers": [
                {
                    "paper": p.paper,
                    "problem": p.problem,
                    "system": p.system,
                    "auto_score": _round(p.auto),
                    "jury": _round(p.jury),
                    "difference": _round(p.difference),
                }
                for p in self.divergent_papers
            ],
            "medal_thresholds": self.thresholds,
            "contestants": len(self.contestant_totals),
            "criterion_difficulty": {
                "n": d.n,
                "spearman": _round(d.spearman),
                "spearman_p": _round(d.spearman_p, 6),
                "spearman_p_method": d.spearman_p_method,
                "spearman_ci": _interval(d.spearman_ci),
                "spearman_ci_method": d.spearman_ci_method,
                "criteria": [
                    {
                        "criterion": p.criterion,
                        "models": _round(p.models),
                        "humans": _round(p.humans),
                    }
                    for p in self.criteria
                ],
                "harder_for_models": [g.code for g in d.harder_for_models],
                "harder_for_humans": [g.code for g in d.harder_for_humans],
                "margin": d.margin,
                "note": d.note,
            },
            "agreement": [a.as_json() for a in self.agreement],
            "observations": self.observations.as_json() if self.observations else None,
            "notes": list(self.notes),
        }


# The charts of the review: name -> what it shows (the page's alternative text).
CHARTS = {
    "scatter": "Automatic score against jury total, one point per system.",
    "divergence": "Automatic score minus jury points, per problem and system.",
    "placement": "The contestants' totals with the medal thresholds and the systems placed.",
    "difficulty": "Share of each criterion's points: AI systems against contestants.",
    "agreement": "Juror agreement per problem: alpha and ICC with their intervals.",
}


@dataclass(frozen=True)
class ReviewCharts:
    """The review's charts as inline SVG from grading.review.charts (safe to put in a page)."""

    scatter: str
    divergence: str
    placement: str
    difficulty: str
    agreement: str = ""


@dataclass(frozen=True)
class ReviewPage:
    review: Review
    charts: ReviewCharts | None
    key: str = ""  # the cache key of this state of the review (the page caches its HTML by it)


# --- building ------------------------------------------------------------------------------


def review_build(*, competition: Competition, resamples: int = 10_000) -> Review:
    """Compute the review of a competition from its marks as they stand."""
    review = review_from_data(review_data(competition), resamples=resamples)
    return replace(
        review,
        agreement=tuple(problem_agreement(competition, resamples=resamples, seed=SEED)),
        observations=tag_counts(competition),
        built_at=timezone.now(),
    )


def review_from_data(data: ReviewData, *, resamples: int = 10_000) -> Review:
    """Compute the review from gathered inputs (no queries)."""
    contestants = [float(t) for t in data.contestant_totals]
    thresholds = {k: _float(v) for k, v in data.scale.applied().items()}
    counted = [p.number for p in data.problems if p.counted]
    rows = []
    by_problem = [{n: _float(s.by_problem.get(n)) for n in counted} for s in data.systems]
    jury_totals = [
        None if not values or None in values else sum(values)
        for values in (list(p.values()) for p in by_problem)
    ]
    places = placements(jury_totals, contestants)  # the contestants sorted once
    for system, jury_by_problem, jury_total, place in zip(
        data.systems, by_problem, jury_totals, places, strict=True
    ):
        auto = data.auto.get(system.system_id)
        overall = auto.overall if auto else None
        rows.append(
            {
                "system": system.name,
                "tier": system.tier,
                "external": bool(auto and auto.external),
                "auto_score": _percent(overall.score if overall else None),
                "exact_match": _percent(overall.exact_match if overall else None),
                "chrf": _percent(overall.chrf if overall else None),
                "auto_by_problem": {
                    n: _percent(auto.per_problem[n].score)
                    for n in counted
                    if auto and n in auto.per_problem
                },
                "jury_total": jury_total,
                "jury_by_problem": jury_by_problem,
                "medal": medal(jury_total, thresholds),
                "equivalent_rank": place.equivalent_rank,
                "percentile": place.percentile,
                "contestants": place.n,
                "papers": system.papers,
            }
        )
    auto_ranks = competition_ranks([r["auto_score"] for r in rows])
    jury_ranks = competition_ranks([r["jury_total"] for r in rows])
    systems = tuple(
        SystemReview(**row, auto_rank=a, jury_rank=j)
        for row, a, j in zip(rows, auto_ranks, jury_ranks, strict=True)
    )
    systems = tuple(
        sorted(
            systems,
            key=lambda s: (s.jury_total is None, -(s.jury_total or 0), s.system.casefold()),
        )
    )
    maxima = {p.number: float(p.maximum) for p in data.problems}
    overall_columns = Columns(
        [s.auto_score for s in systems],
        [s.jury_total for s in systems],
        names=("automatic scores", "jury totals"),
        items=("system", "systems"),
    )
    problem_columns = [
        Columns(
            [s.auto_by_problem.get(number) for s in systems],
            [
                None
                if s.jury_by_problem.get(number) is None or not maxima[number]
                else s.jury_by_problem[number] / maxima[number] * 100
                for s in systems
            ],
            names=(
                f"automatic scores of problem {number}",
                f"jury points of problem {number}",
            ),
            items=("system", "systems"),
        )
        for number in counted
    ]
    problem_intervals = len(systems) <= PROBLEM_INTERVALS_UP_TO
    if problem_intervals:  # one call: the bootstraps (same systems, same seed) share draws
        correlation, *by_problem = correlations(
            [overall_columns, *problem_columns], resamples=resamples, seed=SEED
        )
    else:
        [correlation] = correlations([overall_columns], resamples=resamples, seed=SEED)
        by_problem = correlations(problem_columns, resamples=0, seed=SEED)
    problem_correlations = tuple(
        ProblemCorrelation(number, c) for number, c in zip(counted, by_problem, strict=True)
    )
    divergences = _divergences(data, systems)
    criteria, difficulty = _difficulty(data, resamples=resamples)
    unfinalized = data.unfinalized
    return Review(
        competition=data.name,
        slug=data.slug,
        systems=systems,
        problems=tuple(
            ProblemReview(p.number, p.title, float(p.maximum), p.counted, p.finalized)
            for p in data.problems
        ),
        jury_maximum=_float(data.jury_maximum),
        scale=data.scale.text,
        scale_source=data.scale.source if data.jury_maximum is not None else "",
        correlation=correlation,
        problem_correlations=problem_correlations,
        ranges=_ranges(systems, _float(data.jury_maximum)),
        divergences=divergences,
        divergent_papers=tuple(
            sorted(divergences, key=lambda d: (-abs(d.difference), d.paper))[:DIVERGENT_PAPERS]
        ),
        criteria=criteria,
        difficulty=difficulty,
        thresholds=thresholds,
        contestant_totals=tuple(contestants),
        provisional=bool(unfinalized),
        unfinalized=unfinalized,
        notes=tuple(_notes(data, systems, thresholds, contestants)),
        resamples=resamples,
    )


def _divergences(data: ReviewData, systems: tuple[SystemReview, ...]) -> tuple[Divergence, ...]:
    maxima = {p.number: p.maximum for p in data.problems}
    sheets = {
        p.number: reverse("grading:sheet", args=[data.slug, p.number])
        for p in data.problems
        if p.counted
    }
    found = []
    for number in sheets:
        for s in systems:
            auto, points = s.auto_by_problem.get(number), s.jury_by_problem.get(number)
            code = s.papers.get(number)
            if auto is None or points is None or code is None or not maxima[number]:
                continue
            jury = points / float(maxima[number]) * 100
            found.append(
                Divergence(
                    paper=code,
                    problem=number,
                    system=s.system,
                    auto=auto,
                    jury=jury,
                    difference=auto - jury,
                    url=f"{sheets[number]}#paper-{code}",
                )
            )
    return tuple(found)


def _difficulty(
    data: ReviewData, *, resamples: int
) -> tuple[tuple[CriterionPoint, ...], CriterionDifficulty]:
    labels = list(data.model_fractions)
    labels += [label for label in data.human_fractions if label not in data.model_fractions]

    def key(label: str) -> tuple[int, str]:
        number = label[1:].split(".", 1)[0]  # 'P3.b' -> 3
        return (int(number) if number.isdigit() else 0), label

    points = tuple(
        CriterionPoint(
            label, _float(data.model_fractions.get(label)), _float(data.human_fractions.get(label))
        )
        for label in sorted(labels, key=key)
    )
    return points, criterion_difficulty(
        data.model_fractions, data.human_fractions, resamples=resamples, seed=SEED
    )


def _ranges(systems: tuple[SystemReview, ...], jury_maximum: float | None) -> Ranges:
    """Say how far the jury totals and the automatic scores spread, each as a share of its own
    scale: the jury's points (`jury_maximum`), the automatic scores' 0-100."""
    jury = spread([s.jury_total for s in systems])
    auto = spread([s.auto_score for s in systems])
    jury_share = jury / jury_maximum if jury is not None and jury_maximum else None
    auto_share = auto / 100 if auto is not None else None
    parts = []
    if jury_share is not None:
        parts.append(
            f"the jury's totals span {jury_share:.0%} of its {jury_maximum:g}-point scale "
            f"({jury:.1f} points)"
        )
    elif jury is not None:
        parts.append(f"the jury's totals span {jury:.1f} points (no scale set to compare with)")
    if auto_share is not None:
        parts.append(
            f"the automatic scores {auto_share:.0%} of theirs (0-100)"
            if parts
            else f"the automatic scores span {auto_share:.0%} of their 0-100 scale"
        )
    if not parts:
        sentence = "Ranges need at least two systems with figures on each scale."
    else:
        sentence = ", ".join(parts)
        sentence = sentence[0].upper() + sentence[1:]
        if jury is None:
            sentence += "; the jury's range needs at least two jury totals"
        elif auto is None:
            sentence += "; the automatic range needs at least two automatic scores"
        sentence += "."
    return Ranges(jury, auto, sentence, jury_share, auto_share)


def _notes(
    data: ReviewData,
    systems: tuple[SystemReview, ...],
    thresholds: Mapping[str, float | None],
    contestants: list[float],
) -> list[str]:
    notes = []
    if not systems:
        notes.append("No system has been selected for the jury yet.")
    if data.estimated_cells:
        n = data.estimated_cells
        notes.append(
            f"{_plural(n, 'cell')} not agreed yet {'counts' if n == 1 else 'count'} the mean "
            f"of {'its' if n == 1 else 'their'} submitted marks."
        )
    if data.papers_missing:
        shown = ", ".join(data.papers_missing[:10]) + (
            " …" if len(data.papers_missing) > 10 else ""
        )
        notes.append(
            f"{_plural(len(data.papers_missing), 'paper')} without marks on some criterion "
            f"({shown}): {'its system has' if len(data.papers_missing) == 1 else 'their systems have'}"
            " no jury total yet."
        )
    external = [s.system for s in systems if s.external]
    if external:
        notes.append(
            f"Automatic figures of {', '.join(external)} were computed elsewhere and imported "
            "(labelled external)."
        )
    no_auto = [s.system for s in systems if s.auto_score is None]
    if no_auto:
        notes.append(f"No automatic figures for {', '.join(no_auto)}.")
    if not any(v is not None for _, v in data.scale.thresholds):
        notes.append("No medal thresholds are set, so no medals are given.")
    notes.extend(data.scale.warnings)  # a threshold above the scale, and how to fix it
    if not contestants:
        notes.append(
            "No contestant totals have been imported: no equivalent ranks or percentiles"
            + (", medals from the thresholds alone." if systems else ".")
        )
    if not data.human_fractions:
        notes.append(
            "No contestants' criterion points have been imported, so criterion difficulty "
            "cannot be compared with the humans'."
        )
    return notes


# --- the charts and the cache --------------------------------------------------------------


def review_charts(review: Review) -> ReviewCharts:
    """Draw the review's charts (inline SVG)."""
    c = review.correlation
    note = f"Spearman rho = {c.spearman:.2f}, n = {c.n}" if c.spearman is not None else f"n = {c.n}"
    d = review.difficulty
    difficulty_note = (
        f"Spearman rho = {d.spearman:.2f}, {p_method_text(d.spearman_p, d.spearman_p_method)}, "
        f"n = {d.n}"
        if d.spearman is not None
        else ""
    )
    problem_names = {p.number: f"P{p.number}" for p in review.problems}
    return ReviewCharts(
        scatter=charts.jury_vs_auto_scatter(
            [
                charts.SystemScore(s.system, s.auto_score, s.jury_total, s.external)
                for s in review.systems
            ],
            jury_maximum=review.jury_maximum or 100.0,
            fit_line=c.pearson is not None,
            note=note,
        ),
        divergence=charts.divergence_bars(
            [
                charts.Divergence(problem_names[d.problem], d.system, d.difference)
                for d in sorted(review.divergences, key=lambda d: d.problem)
            ]
        ),
        placement=charts.placement_histogram(
            review.contestant_totals,
            review.thresholds,
            [
                charts.SystemScore(s.system, s.auto_score, s.jury_total, s.external)
                for s in review.systems
            ],
            maximum=review.jury_maximum or 100.0,
        ),
        difficulty=charts.difficulty_scatter(
            [charts.CriterionDifficulty(p.criterion, p.humans, p.models) for p in review.criteria],
            note=difficulty_note,
        ),
        agreement=charts.agreement_bars(
            [
                charts.Agreement(f"P{a.problem}", a.alpha.value, a.alpha.ci, a.icc.value, a.icc.ci)
                for a in review.agreement
            ]
        ),
    )


# Reviews while the shared cache is down: this process's memory, a few at a time
# (ioleval.shared_cache says how a cache that fails is left alone for a while).
review_cache = FallbackCache("the review", timeout=CACHE_SECONDS, max_entries=60)


def review_cache_key(competition: Competition, *, resamples: int, fingerprint: str) -> str:
    """Return the review's cache key (the module docstring explains it)."""
    return f"ioleval:review:v{CACHE_VERSION}:{competition.pk}:{resamples}:{fingerprint}"


def review_cached(
    *, competition: Competition, resamples: int = 10_000, with_charts: bool = True
) -> ReviewPage:
    """Return the review of the marks as they stand (and its charts) from the cache, building
    what is missing here and now (the JSON, the PDF, the exports and `manage.py report`)."""
    key = review_cache_key(
        competition, resamples=resamples, fingerprint=review_fingerprint(competition)
    )
    review = review_cache.get(key)
    if review is None:
        review = review_build(competition=competition, resamples=resamples)
        _keep(competition, key, review)
    drawn = None
    if with_charts:
        drawn = review_charts_of(key, review)
    return ReviewPage(review, drawn, key)


def review_charts_of(key: str, review: Review) -> ReviewCharts:
    """Return the charts of the review cached under key, drawing them once."""
    drawn = review_cache.get(f"{key}:charts")
    if drawn is None:
        drawn = review_charts(review)
        review_cache.set(f"{key}:charts", drawn, CACHE_SECONDS)
    return drawn


def _keep(competition: Competition, key: str, review: Review) -> None:
    """Cache a review under its key and remember it as the competition's latest."""
    review_cache.set(key, review, CACHE_SECONDS)
    review_cache.set(_latest_key(competition, review.resamples), key, CACHE_SECONDS)


# --- the page: never built while an organizer waits -----------------------------------------
#
# At IOL scale a review takes seconds to compute (the bootstraps, 24,000 marks), so the page
# does not compute it: when the marks have moved since the last review, it shows that last
# review, says so, and has a task compute the new one (a worker's; without a broker, Celery
# runs it in the request, as before). The page polls (ioleval.progress) and reloads when the
# review of the marks as they stand is there.

BUILD_LOCK_SECONDS = 10 * 60  # a lost build (a killed worker) is started again after this
STALLED_SECONDS = 2 * 60  # a build running longer than this is shown as stalled


@dataclass(frozen=True)
class ReviewState:
    """What the review page shows: the review of the marks as they stand (`fresh`), or while
    that one is computed, the latest one computed before (`shown` is its key), or none yet."""

    key: str  # the cache key of the marks as they stand
    shown: str  # the key of the review shown ("" when none has been computed yet)
    progress: Progress  # DONE when the review shown is the fresh one

    @property
    def fresh(self) -> bool:
        return self.shown == self.key


def review_state(*, competition: Competition, resamples: int = 10_000) -> ReviewState:
    """Return what the page can show now, starting the computation of the review of the
    marks as they stand unless it is cached or already being computed."""
    key = review_cache_key(
        competition, resamples=resamples, fingerprint=review_fingerprint(competition)
    )
    try:
        cached = review_cache.shared("has_key", key)
    except CACHE_DOWN:  # no worker could hand its review to this process: build it here
        logger.warning("review of %s: the cache cannot be reached; computed here", competition.slug)
        if review_cache.memory.get(key) is None:
            review_cache.memory.set(key, review_build(competition=competition, resamples=resamples))
        return ReviewState(key, key, Progress(DONE))
    if not cached:
        _refresh(competition, resamples)  # without a worker (or broker), built here and now
    if review_cache.shared("has_key", key):
        return ReviewState(key, key, Progress(DONE))
    latest = review_cache.shared("get", _latest_key(competition, resamples))
    shown = latest if latest and review_cache.shared("has_key", latest) else ""
    started = review_cache.shared("get", _lock_key(competition, resamples))
    stalled = started is not None and time.time() - started > STALLED_SECONDS
    return ReviewState(key, shown, Progress(STALLED if stalled else RUNNING))


def review_load(key: str) -> Review | None:
    """Return the review cached under key (None once it has aged out)."""
    return review_cache.get(key) if key else None


def review_refresh(*, competition_id: int, resamples: int) -> str:
    """Compute and cache the review of the marks as they stand (the task's body); return its
    key. The lock that kept other requests from starting the same work is released."""
    try:
        competition = Competition.objects.get(pk=competition_id)
        review_cached(competition=competition, resamples=resamples)
        return review_cache_key(
            competition, resamples=resamples, fingerprint=review_fingerprint(competition)
        )
    finally:
        review_cache.shared("delete", _lock_key_of(competition_id, resamples))


def review_refresh_soon(competition: Competition, *, resamples: int = 10_000) -> None:
    """With a worker, have the review computed once the transaction commits (after a
    finalization, so that it is there when the chair opens it); without one, or when it
    cannot be queued, leave it to the first view of the page.

    The action that called it has committed by then: a broker or cache that is down is
    logged (robust), never an error of the action."""
    if _with_worker():
        transaction.on_commit(
            lambda: _refresh(competition, resamples, here_if_unqueued=False), robust=True
        )


def _with_worker() -> bool:
    """Whether tasks go to a worker (a broker is configured), not run in the caller."""
    return not current_app.conf.task_always_eager


def _refresh(competition: Competition, resamples: int, *, here_if_unqueued: bool = True) -> None:
    """Start one computation of the competition's review, unless one is running; when it
    cannot be queued, compute it here (or, without here_if_unqueued, leave it to the page)."""
    from ..tasks import review_refresh_task

    lock = _lock_key(competition, resamples)
    if not review_cache.shared("add", lock, time.time(), BUILD_LOCK_SECONDS):
        return
    try:
        review_refresh_task.delay(competition.pk, resamples)
    except QueueUnavailable:  # the broker is down: compute it here, not never
        if here_if_unqueued:
            logger.warning("review of %s: computed in the request", competition.slug)
            review_refresh(competition_id=competition.pk, resamples=resamples)
        else:
            logger.warning("review of %s: left to the page", competition.slug)
            review_cache.shared("delete", lock)


def _latest_key(competition: Competition, resamples: int) -> str:
    return f"ioleval:review:v{CACHE_VERSION}:{competition.pk}:{resamples}:latest"


def _lock_key(competition: Competition, resamples: int) -> str:
    return _lock_key_of(competition.pk, resamples)


def _lock_key_of(competition_id: int, resamples: int) -> str:
    return f"ioleval:review:v{CACHE_VERSION}:{competition_id}:{resamples}:building"


# --- wording and numbers -------------------------------------------------------------------


def ordinal(n: int) -> str:
    """Return 1st, 2nd, 3rd, 4th, 11th, 21st..."""
    if 10 <= n % 100 <= 20:
        suffix = "th"
    else:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def correlation_sentence(c: Correlation) -> str:
    """Say the correlation in words, each figure with its p-value and interval and their
    methods, or why there is none."""
    if c.spearman is None:
        return c.note or "No correlation can be given."
    methods = {c.spearman_p_method, c.pearson_p_method, c.kendall_p_method}
    shared = methods.pop() if len(methods) == 1 else None  # one method: named once, at the end

    def figure(name: str, value: float, p: float | None, method: str | None, ci, ci_method):
        interval = interval_text(ci, ci_method)
        text = f"{name} = {value:.2f}" + (f" ({interval})" if interval else "")
        return f"{text}, {p_text(p) if shared else p_method_text(p, method)}"

    text = (
        f"Over {c.n} systems, the jury's ranking and the automatic one agree with "
        + figure(
            "Spearman rho",
            c.spearman,
            c.spearman_p,
            c.spearman_p_method,
            c.spearman_ci,
            c.spearman_ci_method,
        )
        + "; "
        + figure(
            "Pearson r",
            c.pearson,
            c.pearson_p,
            c.pearson_p_method,
            c.pearson_ci,
            c.pearson_ci_method,
        )
        + "; "
        + figure(
            "Kendall tau",
            c.kendall,
            c.kendall_p,
            c.kendall_p_method,
            c.kendall_ci,
            c.kendall_ci_method,
        )
        + (f" (p-values by {shared})." if shared else ".")
    )
    if c.n < 10:
        if c.spearman_ci is not None:
            text += f" With n = {c.n} the interval is wide: read it rather than the point value."
        else:
            text += (
                f" With n = {c.n} and no interval for rho, read its exact p-value rather than "
                "the point value."
            )
    return text


def difficulty_sentence(d: CriterionDifficulty) -> str:
    if d.spearman is None:
        return d.note or "Criterion difficulty cannot be compared."
    interval = interval_text(d.spearman_ci, d.spearman_ci_method)
    text = (
        f"Over {d.n} criteria, what is hard for models and what is hard for contestants "
        f"agree with Spearman rho = {d.spearman:.2f}"
        + (f" ({interval})" if interval else "")
        + f", {p_method_text(d.spearman_p, d.spearman_p_method)}."
    )
    if d.harder_for_models:
        text += " Much harder for models: " + ", ".join(g.code for g in d.harder_for_models) + "."
    if d.harder_for_humans:
        text += (
            " Much harder for contestants: " + ", ".join(g.code for g in d.harder_for_humans) + "."
        )
    return text


def _correlation_json(c: Correlation) -> dict:
    return {
        "n": c.n,
        "spearman": _round(c.spearman),
        "spearman_p": _round(c.spearman_p, 6),
        "spearman_p_method": c.spearman_p_method,
        "spearman_ci": _interval(c.spearman_ci),
        "spearman_ci_method": c.spearman_ci_method,
        "pearson": _round(c.pearson),
        "pearson_p": _round(c.pearson_p, 6),
        "pearson_p_method": c.pearson_p_method,
        "pearson_ci": _interval(c.pearson_ci),
        "pearson_ci_method": c.pearson_ci_method,
        "kendall": _round(c.kendall),
        "kendall_p": _round(c.kendall_p, 6),
        "kendall_p_method": c.kendall_p_method,
        "kendall_ci": _interval(c.kendall_ci),
        "kendall_ci_method": c.kendall_ci_method,
        "resamples": c.resamples,
        "note": c.note,
    }


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _float(value: Decimal | float | None) -> float | None:
    return None if value is None else float(value)


def _percent(value: float | None) -> float | None:
    return None if value is None else value * 100


def _round(value: float | None, digits: int = 4) -> float | None:
    if value is None or not math.isfinite(value):
        return None
    return round(value, digits)


def _interval(value) -> list[float] | None:
    if value is None:
        return None
    return [_round(value[0]), _round(value[1])]

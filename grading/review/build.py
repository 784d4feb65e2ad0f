"""Computing the result review: `review_build` gathers the marks as they stand
(grading.review.selectors) and computes a `Review` (grading.review.model) from them;
`review_charts` draws its charts. No cache here: grading.review.cache keeps what is built."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from decimal import Decimal

from django.urls import reverse
from django.utils import timezone

from ioleval.wording import p_method_text, plural
from puzzles.models import Competition

from . import charts, model
from .agreement import problem_agreement
from .model import (
    CriterionPoint,
    Divergence,
    ProblemCorrelation,
    ProblemReview,
    Ranges,
    Review,
    ReviewCharts,
    SystemReview,
)
from .observations import tag_counts
from .selectors import ReviewData, review_data
from .stats import (
    Columns,
    CriterionDifficulty,
    competition_ranks,
    correlations,
    criterion_difficulty,
    medal,
    placements,
    spread,
)
from .wording import ranges_sentence

DIVERGENT_PAPERS = 10  # the most divergent papers listed
SEED = 2026


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
    problem_intervals = len(systems) <= model.PROBLEM_INTERVALS_UP_TO
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
    """Return how far the jury totals and the automatic scores spread, each also as a share
    of its own scale: the jury's points (`jury_maximum`), the automatic scores' 0-100."""
    jury = spread([s.jury_total for s in systems])
    auto = spread([s.auto_score for s in systems])
    jury_share = jury / jury_maximum if jury is not None and jury_maximum else None
    auto_share = auto / 100 if auto is not None else None
    sentence = ranges_sentence(
        jury=jury,
        auto=auto,
        jury_share=jury_share,
        auto_share=auto_share,
        jury_maximum=jury_maximum,
    )
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
            f"{plural(n, 'cell')} not agreed yet {'counts' if n == 1 else 'count'} the mean "
            f"of {'its' if n == 1 else 'their'} submitted marks."
        )
    if data.papers_missing:
        shown = ", ".join(data.papers_missing[:10]) + (
            " …" if len(data.papers_missing) > 10 else ""
        )
        notes.append(
            f"{plural(len(data.papers_missing), 'paper')} without marks on some criterion "
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


def _float(value: Decimal | float | None) -> float | None:
    return None if value is None else float(value)


def _percent(value: float | None) -> float | None:
    return None if value is None else value * 100

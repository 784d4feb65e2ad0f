"""The result review as the page, the JSON report and the PDF show it: frozen dataclasses of
plain values (`Review` and its parts), and `Review.as_json`, the JSON report's data.

`grading.review.build` computes a `Review`; `grading.review.cache` serves it; the sentences
its properties say come from `grading.review.wording`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime

from .agreement import ProblemAgreement
from .observations import TagCounts
from .stats import Correlation, CriterionDifficulty
from .wording import correlation_sentence, difficulty_sentence, ordinal


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


def _round(value: float | None, digits: int = 4) -> float | None:
    if value is None or not math.isfinite(value):
        return None
    return round(value, digits)


def _interval(value) -> list[float] | None:
    if value is None:
        return None
    return [_round(value[0]), _round(value[1])]

"""The techniques page (issue 12, item 5): adoption and within-team effect per technique, on
the private score (the IOL-AI paper's) and on the public score, in three queries (runs,
tags, techniques) plus the competition the view gets; the JSON of `manage.py report` comes
from the same page."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from ioleval.multiplicity import ALPHA, HOLM, describe, family_size

from ...models import Competition, Run, Technique
from ..stats.techniques import (
    CONFIDENCE,
    RESAMPLES,
    SEED,
    TaggedRun,
    TechniqueEffect,
    effect_sentence,
    technique_effects,
)

# The IOL-AI paper's effects are on the private score: it comes first, the public after.
PRIVATE = "private"
PUBLIC = "public"
SCORES = (PRIVATE, PUBLIC)
SCORE_LABELS = {
    PRIVATE: "private score (the IOL-AI paper's)",
    PUBLIC: "public score",
}

EXPORT_HEADER = [
    "score",
    "technique",
    "teams_using",
    "teams_with_scored_runs",
    "adoption",
    "runs_tagged",
    "teams_with_both",
    "effect",
    "ci_low",
    "ci_high",
    "p",
    "p_method",
    "p_holm",
    "flagged_holm",
    "note",
]


@dataclass(frozen=True)
class TechniqueRow:
    effect: TechniqueEffect
    sentence: str


@dataclass(frozen=True)
class ScoreEffects:
    """Every technique's figures on one score, with the multiplicity family they form."""

    score: str  # PRIVATE or PUBLIC
    scored_runs: int  # runs with this score
    rows: list[TechniqueRow]

    @property
    def label(self) -> str:
        return SCORE_LABELS[self.score]

    @property
    def effects(self) -> list[TechniqueEffect]:
        return [r.effect for r in self.rows]

    @property
    def tested(self) -> int:
        """Return how many techniques were tested: the Holm family's size."""
        return family_size([e.p for e in self.effects])

    @property
    def flagged(self) -> int:
        return sum(e.flagged for e in self.effects)

    @property
    def multiplicity(self) -> str:
        return describe([e.p for e in self.effects])


@dataclass(frozen=True)
class TechniquesPage:
    competition: Competition
    teams: list[str]  # teams with runs (scored or failed), to tag
    runs: int
    scored_runs: int
    tagged_runs: int  # runs, scored or failed, with at least one technique
    scores: list[ScoreEffects]  # private first, then public
    resamples: int
    method: str

    @property
    def techniques(self) -> list[str]:
        return [e.technique for e in self.scores[0].effects]

    def on(self, score: str) -> ScoreEffects:
        return next(s for s in self.scores if s.score == score)

    @property
    def has_effects(self) -> bool:
        return bool(self.techniques)

    def export_rows(self) -> list[list[object]]:
        return [
            [
                part.score,
                e.technique,
                e.teams_using,
                e.teams_scored,
                e.adoption,
                e.runs_tagged,
                e.n,
                e.effect,
                e.low,
                e.high,
                e.p,
                e.p_method,
                e.p_adjusted,
                "" if e.p is None else ("yes" if e.flagged else "no"),
                e.note,
            ]
            for part in self.scores
            for e in part.effects
        ]


def techniques_page(
    competition: Competition, *, resamples: int = RESAMPLES, method: str = "percentile"
) -> TechniquesPage:
    runs = list(
        Run.objects.submissions()
        .filter(system__competition=competition)
        .order_by("system__name", "run_index")
        .values_list("pk", "system__name", "run_index", "status", "public_score", "private_score")
    )
    tagged: dict[int, set[str]] = defaultdict(set)
    for run_id, name in Run.techniques.through.objects.filter(
        run__system__competition=competition, run__condition=""
    ).values_list("run_id", "technique__name"):
        tagged[run_id].add(name)
    names = list(Technique.objects.filter(competition=competition).values_list("name", flat=True))
    scores = []
    for score in SCORES:
        facts = [
            TaggedRun(team=team, run=index, score=value, techniques=frozenset(tagged.get(pk, ())))
            for pk, team, index, value in _scored(runs, score)
        ]
        effects = technique_effects(facts, techniques=names, resamples=resamples, method=method)
        rows = [TechniqueRow(e, effect_sentence(e, score=score)) for e in effects]
        scores.append(ScoreEffects(score=score, scored_runs=len(facts), rows=rows))
    return TechniquesPage(
        competition=competition,
        teams=list(dict.fromkeys(team for _, team, *_ in runs)),
        runs=len(runs),
        scored_runs=sum(1 for _, _, _, status, *_ in runs if status == Run.Status.SCORED),
        tagged_runs=sum(1 for pk, *_ in runs if tagged.get(pk)),
        scores=scores,
        resamples=resamples,
        method=method,
    )


def _scored(runs: list[tuple], score: str) -> list[tuple[int, str, int, float]]:
    """Return (pk, team, run index, score) of the scored runs that have `score`."""
    column = 5 if score == PRIVATE else 4
    return [
        (row[0], row[1], row[2], row[column])
        for row in runs
        if row[3] == Run.Status.SCORED and row[column] is not None
    ]


def teams_with_runs(competition: Competition) -> list[str]:
    """The names of the competition's teams with runs (ablation runs aside), the choices of
    the tag form."""
    return list(
        Run.objects.submissions()
        .filter(system__competition=competition)
        .order_by("system__name")
        .values_list("system__name", flat=True)
        .distinct()
    )


def techniques_json(competition: Competition) -> dict:
    """The techniques section of `manage.py report`: the page's figures as plain data, on
    the private score (the IOL-AI paper's) first, then on the public score."""
    page = techniques_page(competition)
    return {
        "scores": list(SCORES),
        "effect": "mean over teams of (mean score of the team's runs with the technique "
        "minus mean without it)",
        "interval": {
            "confidence": CONFIDENCE,
            "method": page.method,
            "resamples": page.resamples,
            "seed": SEED,
        },
        "test": "sign-flip permutation test of the mean difference over teams, two-sided "
        "(exact up to 2^n <= resamples, else random with the seed)",
        "multiplicity": f"{HOLM}: each score's techniques are one family; flagged when the "
        f"adjusted p-value is at most {ALPHA:g}",
        "runs": page.runs,
        "scored_runs": page.scored_runs,
        "by_score": [
            {
                "score": part.score,
                "scored_runs": part.scored_runs,
                "tested": part.tested,
                "flagged": part.flagged,
                "multiplicity": part.multiplicity,
                "techniques": [
                    {
                        "technique": e.technique,
                        "teams_using": e.teams_using,
                        "teams_with_scored_runs": e.teams_scored,
                        "adoption": e.adoption,
                        "runs_tagged": e.runs_tagged,
                        "n": e.n,
                        "effect": e.effect,
                        "ci_low": e.low,
                        "ci_high": e.high,
                        "p": e.p,
                        "p_method": e.p_method,
                        "p_holm": e.p_adjusted,
                        "flagged_holm": e.flagged,
                        "note": e.note,
                        "teams": [
                            {
                                "team": d.team,
                                "runs_with": d.runs_with,
                                "runs_without": d.runs_without,
                                "difference": d.difference,
                            }
                            for d in e.differences
                        ],
                    }
                    for e in part.effects
                ],
            }
            for part in page.scores
        ],
    }

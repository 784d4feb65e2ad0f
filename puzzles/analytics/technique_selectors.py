"""The techniques page (issue 12, item 5): adoption and within-team effect per technique, in
three queries (runs, tags, techniques) plus the competition the view gets; the JSON of
`manage.py report` comes from the same page."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from ..models import Competition, Run, Technique
from .stats.techniques import (
    CONFIDENCE,
    RESAMPLES,
    SEED,
    TaggedRun,
    TechniqueEffect,
    effect_sentence,
    technique_effects,
)

EXPORT_HEADER = [
    "technique",
    "teams_using",
    "teams_with_scored_runs",
    "adoption",
    "runs_tagged",
    "teams_with_both",
    "effect",
    "ci_low",
    "ci_high",
    "note",
]


@dataclass(frozen=True)
class TechniqueRow:
    effect: TechniqueEffect
    sentence: str


@dataclass(frozen=True)
class TechniquesPage:
    competition: Competition
    teams: list[str]  # teams with runs (scored or failed), to tag
    runs: int
    scored_runs: int
    tagged_runs: int  # runs, scored or failed, with at least one technique
    rows: list[TechniqueRow]
    resamples: int
    method: str

    @property
    def effects(self) -> list[TechniqueEffect]:
        return [r.effect for r in self.rows]

    def export_rows(self) -> list[list[object]]:
        return [
            [
                e.technique,
                e.teams_using,
                e.teams_scored,
                e.adoption,
                e.runs_tagged,
                e.n,
                e.effect,
                e.low,
                e.high,
                e.note,
            ]
            for e in self.effects
        ]


def techniques_page(
    competition: Competition, *, resamples: int = RESAMPLES, method: str = "percentile"
) -> TechniquesPage:
    runs = list(
        Run.objects.submissions()
        .filter(system__competition=competition)
        .order_by("system__name", "run_index")
        .values_list("pk", "system__name", "run_index", "status", "public_score")
    )
    tagged: dict[int, set[str]] = defaultdict(set)
    for run_id, name in Run.techniques.through.objects.filter(
        run__system__competition=competition, run__condition=""
    ).values_list("run_id", "technique__name"):
        tagged[run_id].add(name)
    names = list(Technique.objects.filter(competition=competition).values_list("name", flat=True))
    facts = [
        TaggedRun(team=team, run=index, score=score, techniques=frozenset(tagged.get(pk, ())))
        for pk, team, index, status, score in runs
        if status == Run.Status.SCORED and score is not None
    ]
    effects = technique_effects(facts, techniques=names, resamples=resamples, method=method)
    return TechniquesPage(
        competition=competition,
        teams=list(dict.fromkeys(team for _, team, _, _, _ in runs)),
        runs=len(runs),
        scored_runs=len(facts),
        tagged_runs=sum(1 for pk, *_ in runs if tagged.get(pk)),
        rows=[TechniqueRow(e, effect_sentence(e)) for e in effects],
        resamples=resamples,
        method=method,
    )


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
    """The techniques section of `manage.py report`: the page's figures as plain data."""
    page = techniques_page(competition)
    return {
        "score": "public",
        "effect": "mean over teams of (mean score of the team's runs with the technique "
        "minus mean without it)",
        "interval": {
            "confidence": CONFIDENCE,
            "method": page.method,
            "resamples": page.resamples,
            "seed": SEED,
        },
        "runs": page.runs,
        "scored_runs": page.scored_runs,
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
            for e in page.effects
        ],
    }

"""The tiers page: leaderboard scores by tier, the per-tier table and the per-task heat map
split by tier, in the queries of `leaderboard` (a constant number)."""

from __future__ import annotations

from dataclasses import dataclass

from ...models import Competition, System
from ...selectors import leaderboard
from ..stats.tiers import TierStats, tier_stats

EXPORT_HEADER = ["tier", "tier_label", "n", "median", "mean", "min", "max"]
TIER_LABELS = dict(System.Tier.choices)


@dataclass(frozen=True)
class TierSystem:
    """One system's row of the heat map: its overall score and its task scores (0-1), in
    the page's task order."""

    name: str
    score: float
    task_scores: list[float]


@dataclass(frozen=True)
class TierGroup:
    """One tier: its label, its summary figures and its systems, best first."""

    tier: str
    label: str
    stats: TierStats
    systems: list[TierSystem]


@dataclass(frozen=True)
class TiersPage:
    competition: Competition
    metric: str
    tasks: list[str]
    groups: list[TierGroup]
    oracles: list[str]

    @property
    def columns(self) -> int:
        """The heat map's column count: system, score, one per task."""
        return 2 + len(self.tasks)

    def strips(self) -> list[tuple[str, tuple[float, ...], float]]:
        """Return ("label (n)", scores, median) per tier, in the page's order, for the chart."""
        return [(f"{g.label} ({g.stats.n})", g.stats.scores, g.stats.median) for g in self.groups]

    def export_rows(self) -> list[list[object]]:
        return [
            [
                g.tier,
                g.label,
                g.stats.n,
                g.stats.median,
                g.stats.mean,
                g.stats.minimum,
                g.stats.maximum,
            ]
            for g in self.groups
        ]


def tiers_page(competition: Competition, *, metric: str = "iol2026") -> TiersPage:
    """Group the leaderboard's systems (official answers, all tasks) by tier; oracle
    ensembles are upper bounds, not systems, so they are left out and named."""
    tasks, rows = leaderboard(competition, metric=metric)
    oracles = sorted(r.system for r in rows if r.oracle)
    rows = [r for r in rows if not r.oracle]
    ids = [t.external_id for t in tasks]
    stats = tier_stats((r.tier, r.overall.score) for r in rows)
    groups = [
        TierGroup(
            tier=s.tier,
            label=TIER_LABELS.get(s.tier, s.tier),
            stats=s,
            systems=[
                TierSystem(r.system, r.overall.score, [r.task_scores[i] for i in ids])
                for r in rows
                if r.tier == s.tier
            ],
        )
        for s in stats
    ]
    return TiersPage(competition, metric, ids, groups, oracles)

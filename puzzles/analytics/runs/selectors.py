"""The runs page: submission statistics and the selection check, in one query for the runs
(plus the competition the view gets)."""

from __future__ import annotations

from dataclasses import dataclass

from ...models import Competition, Run
from ..stats.runs import (
    Agreement,
    DayCount,
    RankCorrelation,
    RunFacts,
    SelectionCheck,
    TeamRuns,
    agreement,
    failures_by_family,
    per_day,
    rank_correlation,
    selection_checks,
    team_runs,
    undated,
)

FAILURE_LABELS = dict(Run.Failure.choices)
EXPORT_HEADER = [
    "team",
    "selected_run",
    "selected_public",
    "selected_private",
    "best_public_run",
    "best_public",
    "best_private_run",
    "best_private",
    "public_gain_missed",
    "private_gain_missed",
    "public_best_is_private_best",
    "selected_by",
    "best_public_runs",
    "best_private_runs",
]


@dataclass(frozen=True)
class FamilyCount:
    family: str
    label: str
    runs: int


@dataclass(frozen=True)
class TeamRow:
    """A team's line of the submissions table, its failures in the page's family order."""

    team: TeamRuns
    failures: list[int]


@dataclass(frozen=True)
class RunsPage:
    competition: Competition
    runs: int
    failed: int
    families: list[FamilyCount]
    teams: list[TeamRow]
    days: list[DayCount]
    undated: int  # runs without a known submission time, not in `days`
    checks: list[SelectionCheck]
    agreement: Agreement
    correlation: RankCorrelation

    def export_rows(self) -> list[list[object]]:
        def yes_no(value: bool | None) -> str:
            return "" if value is None else ("yes" if value else "no")

        return [
            [
                c.team,
                c.selected_run,
                c.selected_public,
                c.selected_private,
                c.best_public_run,
                c.best_public,
                c.best_private_run,
                c.best_private,
                c.public_gain_missed,
                c.private_gain_missed,
                yes_no(c.public_best_is_private_best),
                "" if c.selected_run is None else ("best public" if c.fallback else "team"),
                "; ".join(map(str, c.best_public_runs)),
                "; ".join(map(str, c.best_private_runs)),
            ]
            for c in self.checks
        ]


def runs_page(competition: Competition) -> RunsPage:
    facts = [
        RunFacts(*row)
        for row in Run.objects.submissions()
        .filter(system__competition=competition)
        .order_by("system__name", "run_index")
        .values_list(
            "system__name",
            "run_index",
            "submitted_at",
            "status",
            "failure",
            "public_score",
            "private_score",
            "selected_for_private",
            "board_fallback",
        )
    ]
    by_family = failures_by_family(facts)
    families = [FamilyCount(f, str(FAILURE_LABELS.get(f, f)), n) for f, n in by_family.items()]
    teams = [TeamRow(t, [t.failures.get(f.family, 0) for f in families]) for t in team_runs(facts)]
    return RunsPage(
        competition=competition,
        runs=len(facts),
        failed=sum(by_family.values()),
        families=families,
        teams=teams,
        days=per_day(facts),
        undated=undated(facts),
        checks=selection_checks(facts),
        agreement=agreement(facts),
        correlation=rank_correlation(facts),
    )

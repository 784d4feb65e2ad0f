"""The demo competition's runs, all invented and loaded through the ordinary importer
(idempotent: an import replaces the competition's runs): several runs per team."""

from __future__ import annotations

import io

from ...models import Competition, System
from .imports import runs_import

RUNS_PER_TEAM = 5
FAILURES = ("environment", "runtime", "limit", "packaging", "other")


def _runs_csv(teams: list[str]) -> str:
    """Each team submits RUNS_PER_TEAM runs over a week; a few fail, each family turns up;
    the private score moves a little against the public one, so that a team's selected run
    (its last scored one) is not always its best."""
    lines = ["team,run,submitted_at,status,failure,public,private,selected,submission_id"]
    for t, team in enumerate(teams):
        scored = [k for k in range(1, RUNS_PER_TEAM + 1) if (t + k) % 4 != 0 or k == RUNS_PER_TEAM]
        for k in range(1, RUNS_PER_TEAM + 1):
            when = f"2026-03-{1 + (t + 2 * k) % 8:02d}T{8 + (t * 3 + k) % 12:02d}:{(7 * t) % 60:02d}:00Z"
            if k in scored:
                public = 0.3 + 0.04 * ((t * 5 + k * 3) % 10)
                private = public + 0.03 * (((t + k * 2) % 5) - 2)
                cells = f"scored,,{public:.3f},{private:.3f},{int(k == scored[-1])}"
            else:
                cells = f"failed,{FAILURES[t % len(FAILURES)]},,,0"
            lines.append(f'"{team}",{k},{when},{cells},demo-{t + 1}-{k}')
    return "\n".join(lines) + "\n"


def runs_demo_load(competition: Competition) -> None:
    """Import invented runs for every system of the competition but oracle ensembles."""
    teams = sorted(
        System.objects.filter(competition=competition, oracle=False).values_list("name", flat=True)
    )
    if teams:
        runs_import(
            competition=competition,
            stream=io.StringIO(_runs_csv(teams)),
            file="demo-runs.csv",
        )

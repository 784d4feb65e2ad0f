"""The demo competition's technique tags, all invented, added through the tagging service
(idempotent: a tag already there stays). Call after `runs_demo_load`, which replaces the
runs and so drops their tags.

The demo runs of team t (teams in name order) are runs 1-5, of which one or none failed.
The tags give the page every case: "chain of thought" on runs 3-5 of every team and
"self-consistency voting" on runs 2 and 4 of two teams in three (effects over n >= 3 teams,
with intervals), "JSON output" on every run of every other team (adoption without a
within-team comparison) and "retry loop" on the last run of the first team (n = 1: an
effect without an interval)."""

from __future__ import annotations

from ...models import Competition, Run
from .services import tags_add

CHAIN = "chain of thought"
VOTING = "self-consistency voting"
JSON = "JSON output"
RETRY = "retry loop"


def _techniques(t: int, k: int) -> list[str]:
    """The techniques of run k of the t-th team."""
    names = []
    if k >= 3:
        names.append(CHAIN)
    if k in (2, 4) and t % 3 != 2:
        names.append(VOTING)
    if t % 2 == 0:
        names.append(JSON)
    if t == 0 and k == 5:
        names.append(RETRY)
    return names


def techniques_demo_load(competition: Competition) -> None:
    """Tag the competition's runs with invented techniques."""
    runs = Run.objects.filter(system__competition=competition).values_list(
        "pk", "system__name", "run_index"
    )
    teams = {team: t for t, team in enumerate(sorted({team for _, team, _ in runs}))}
    tags_add(
        competition=competition,
        tags=[(pk, name) for pk, team, k in runs for name in _techniques(teams[team], k)],
    )

"""The demo competition's oracle: the best systems of its board combined, saved through the
ordinary service (idempotent: `oracle_create` replaces an oracle of the same name)."""

from __future__ import annotations

from ...models import Competition
from .selectors import competition_figures
from .services import OracleSaved, oracle_create

DEMO_ORACLE = "Oracle (demo)"
DEMO_MEMBERS = 3


def oracle_demo_members(competition: Competition, *, count: int = DEMO_MEMBERS) -> list[str]:
    """Return the `count` best systems of the board (score, then name) that are not oracles,
    have an output for every task and miss some points: an oracle over a system with full
    marks is that system alone, and would show no member's share."""
    data = competition_figures(competition)
    every = {t.external_id for t in data.tasks}
    complete = [
        r
        for r in data.rows
        if not r.oracle
        and r.overall.score < 1.0
        and every
        and every <= set(data.figures.get(r.system, {}))
    ]
    complete.sort(key=lambda r: (-r.overall.score, r.system))
    return [r.system for r in complete[:count]]


def oracle_demo_load(competition: Competition) -> OracleSaved | None:
    """Save the demo's oracle of its best complete systems; None when there are fewer
    than two, or when the demo already has that oracle (a second `manage.py demo` keeps its
    outputs, as it keeps every other system's)."""
    members = oracle_demo_members(competition)
    if len(members) < 2:
        return None
    saved = competition.systems.filter(name=DEMO_ORACLE, oracle=True).first()
    if saved is not None and saved.oracle_of == members:
        return None
    return oracle_create(competition=competition, members=members, name=DEMO_ORACLE)

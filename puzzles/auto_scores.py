"""Each system's automatic figures to show: computed from its outputs, else imported (no ORM).

The rule: a system with outputs here shows its computed figures (official stage), whatever
was imported for it; a system without outputs shows the figures imported for it, labelled
external; a system with neither has none.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from .leaderboard import EMPTY_CELL, Cell, TaskInfo
from .metrics import aggregate

COMPUTED = "computed"
EXTERNAL = "external"
NONE = "none"


@dataclass(frozen=True)
class Figures:
    """Automatic figures on the 0-1 scale; an import may leave EM and chrF out."""

    score: float
    exact_match: float | None = None
    chrf: float | None = None


@dataclass
class AutoScore:
    """One system's automatic figures, overall and per problem number."""

    system_id: int
    system: str
    tier: str
    source: str  # COMPUTED, EXTERNAL or NONE
    overall: Figures | None
    per_problem: dict[int, Figures] = field(default_factory=dict)

    @property
    def external(self) -> bool:
        """Tell whether the figures were computed elsewhere and imported."""
        return self.source == EXTERNAL


@dataclass(frozen=True)
class SystemEntry:
    id: int
    name: str
    tier: str
    has_outputs: bool


def auto_scores(
    *,
    tasks: list[TaskInfo],
    problem_of: Mapping[int, int],
    systems: Iterable[SystemEntry],
    cells: Mapping[tuple[int, int], Cell],
    imported: Mapping[int, Mapping[int | None, Figures]],
) -> list[AutoScore]:
    """Return each system's figures by the rule above, in the order of `systems`.

    `problem_of` maps a task id to its problem number; `imported` maps a system id to its
    imported figures by problem number (None: the whole competition).
    """
    by_problem: dict[int, list[TaskInfo]] = {}
    for task in tasks:
        by_problem.setdefault(problem_of[task.id], []).append(task)
    result = []
    for system in systems:
        if system.has_outputs:
            overall = _computed(system.id, tasks, cells)
            per_problem = {
                number: _computed(system.id, group, cells)
                for number, group in sorted(by_problem.items())
            }
            result.append(
                AutoScore(system.id, system.name, system.tier, COMPUTED, overall, per_problem)
            )
            continue
        figures = imported.get(system.id, {})
        # The whole competition's figures sit under None, which does not sort with numbers.
        per_problem = {n: figures[n] for n in sorted(n for n in figures if n is not None)}
        source = EXTERNAL if figures else NONE
        result.append(
            AutoScore(system.id, system.name, system.tier, source, figures.get(None), per_problem)
        )
    return result


def _computed(system_id: int, tasks: list[TaskInfo], cells) -> Figures:
    rows = []
    for task in tasks:
        cell = cells.get((system_id, task.id), EMPTY_CELL)
        rows.append((task.weight, cell.em, cell.chrf))
    figures = aggregate(rows)
    return Figures(figures.score, figures.exact_match, figures.chrf)

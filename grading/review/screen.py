"""The explanation screen: every system's explanations checked before choosing whom to send
to the jury (missing, empty, duplicated across tasks, templated), as a sortable table.

Explanations are untrusted text: the page shows them only as bounded excerpts, escaped by
the template; the exports go through ioleval.spreadsheet.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from puzzles.models import Competition, Output, Task

from ..models import Paper
from .stats import ExplanationScreen, explanation_screen

KINDS = ("missing", "empty", "duplicated", "templated")
EXCERPT_CHARS = 200

# ?sort= values the page accepts (a leading "-" sorts descending); anything else is the default.
SORT_COLUMNS = ("system", "tier", *KINDS, "flagged")
DEFAULT_SORT = "-flagged"


@dataclass(frozen=True)
class FlaggedTask:
    """One task of a system whose explanation the screen flags, with why and how it reads."""

    label: str
    external_id: str
    kinds: tuple[str, ...]
    excerpt: str | None


@dataclass(frozen=True)
class ExplanationRow:
    """One system's line of the screen."""

    system_id: int
    system: str
    tier: str
    external: bool
    selected: bool
    screen: ExplanationScreen
    flagged: tuple[FlaggedTask, ...]

    def share(self, kind: str) -> float | None:
        """Return the share (0-1) of the competition's tasks flagged as kind."""
        return self.screen.share(kind)

    @property
    def shares(self) -> dict[str, float | None]:
        """Return the share of every kind, and of any flag, by name."""
        return {kind: self.share(kind) for kind in (*KINDS, "flagged")}


def excerpt(text: str | None, *, limit: int = EXCERPT_CHARS) -> str | None:
    """Return text with its spaces collapsed, cut to about limit characters."""
    if text is None:
        return None
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    return flat[: limit - 1].rstrip() + "…"


def explanation_screen_rows(competition: Competition) -> list[ExplanationRow]:
    """Screen every system of the competition over its tasks in order (4 queries).

    A task the system gave no output for counts as missing.
    """
    tasks = list(
        Task.objects.filter(problem__competition=competition)
        .order_by("problem__number", "number")
        .values_list("pk", "problem__number", "number", "external_id")
    )
    systems = list(
        competition.systems.order_by("name").values_list("pk", "name", "tier", "external")
    )
    texts: dict[tuple[int, int], str] = {
        (system_id, task_id): explanation
        for system_id, task_id, explanation in Output.objects.filter(
            system__competition=competition
        ).values_list("system_id", "task_id", "explanation")
    }
    selected = set(
        Paper.objects.filter(problem__competition=competition).values_list("system_id", flat=True)
    )
    rows = []
    for system_id, name, tier, external in systems:
        explanations = [texts.get((system_id, task[0])) for task in tasks]
        screen = explanation_screen(explanations)
        rows.append(
            ExplanationRow(
                system_id=system_id,
                system=name,
                tier=tier,
                external=external,
                selected=system_id in selected,
                screen=screen,
                flagged=_flagged(screen, tasks, explanations),
            )
        )
    return rows


def _flagged(
    screen: ExplanationScreen, tasks: Sequence[tuple], explanations: Sequence[str | None]
) -> tuple[FlaggedTask, ...]:
    flagged = []
    for i in screen.flagged:
        _pk, problem, number, external_id = tasks[i]
        kinds = tuple(kind for kind in KINDS if i in getattr(screen, kind))
        flagged.append(
            FlaggedTask(
                label=f"{problem}.{number}",
                external_id=external_id,
                kinds=kinds,
                excerpt=excerpt(explanations[i]),
            )
        )
    return tuple(flagged)


def sort_key_parse(value: str | None) -> str:
    """Return the sort the page asked for if the whitelist has it, else the default."""
    if value and value.removeprefix("-") in SORT_COLUMNS:
        return value
    return DEFAULT_SORT


def explanation_rows_sorted(rows: Sequence[ExplanationRow], sort: str) -> list[ExplanationRow]:
    """Return rows sorted by a whitelisted column; ties keep the systems' names in order."""
    sort = sort_key_parse(sort)
    column, descending = sort.removeprefix("-"), sort.startswith("-")
    by_name = sorted(rows, key=lambda r: (r.system.casefold(), r.system))
    if column == "system":
        return list(reversed(by_name)) if descending else by_name
    if column == "tier":
        return sorted(by_name, key=lambda r: r.tier, reverse=descending)
    # Systems without tasks (share None) go last either way.
    present = [r for r in by_name if r.share(column) is not None]
    absent = [r for r in by_name if r.share(column) is None]
    return sorted(present, key=lambda r: r.share(column), reverse=descending) + absent


EXPORT_HEADER = (
    "system",
    "tier",
    "external",
    "selected",
    "tasks",
    *(f"{kind}_share" for kind in (*KINDS, "flagged")),
    *(f"{kind}_tasks" for kind in KINDS),
)


def _export_rows(rows: Sequence[ExplanationRow]) -> list[list[object]]:
    table = []
    for row in rows:
        labels = {kind: [] for kind in KINDS}
        for task in row.flagged:
            for kind in task.kinds:
                labels[kind].append(task.label)
        table.append(
            [
                row.system,
                row.tier,
                "yes" if row.external else "no",
                "yes" if row.selected else "no",
                row.screen.n,
                *(
                    None if row.share(k) is None else round(row.share(k), 4)
                    for k in (*KINDS, "flagged")
                ),
                *(" ".join(labels[kind]) for kind in KINDS),
            ]
        )
    return table


def explanation_screen_table(rows: Sequence[ExplanationRow]) -> tuple[list[str], list[list]]:
    """Return the screen's export: its header and one row per system."""
    return list(EXPORT_HEADER), _export_rows(rows)

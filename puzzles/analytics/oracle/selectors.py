"""Reads for the oracle ensemble: members' figures, the page's choices, preview and list."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...leaderboard import BoardRow, SystemInfo, TaskInfo, board_rows
from ...models import Competition, System, Task
from ...selectors import board_cells, competition_tasks
from ..stats.oracle import TIE_RULE, Oracle, TaskFigure, oracle_combine


@dataclass(frozen=True)
class OracleListed:
    """A saved oracle: its name, members and board score."""

    name: str
    members: list[str]
    score: float


@dataclass
class OraclePage:
    competition: Competition
    tasks: list[Task]
    # Systems an oracle may combine (not oracles), best board score first.
    candidates: list[BoardRow]
    oracles: list[OracleListed]
    preview: Oracle | None = None
    chosen: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class CompetitionFigures:
    """Everything an oracle needs of a competition, in three queries."""

    tasks: list[Task]
    systems: list[System]
    figures: dict[str, dict[str, TaskFigure]]
    rows: list[BoardRow]

    def combine(self, members: list[str]) -> Oracle:
        return oracle_combine(
            members=members,
            tasks=[(t.external_id, t.weight) for t in self.tasks],
            figures=self.figures,
        )


def competition_figures(competition: Competition) -> CompetitionFigures:
    """Return the tasks, systems, each system's per-task figures (official stage, iol2026)
    and the board rows, as the leaderboard computes them."""
    tasks = competition_tasks(competition)
    systems = list(
        System.objects.filter(competition=competition)
        .only("pk", "name", "team", "tier", "oracle", "oracle_of", "external")
        .order_by("name")
    )
    cells = board_cells(competition)
    external_of = {t.pk: t.external_id for t in tasks}
    name_of = {s.pk: s.name for s in systems}
    figures: dict[str, dict[str, TaskFigure]] = {}
    for (system_id, task_id), cell in cells.items():
        if system_id in name_of and task_id in external_of:
            figures.setdefault(name_of[system_id], {})[external_of[task_id]] = TaskFigure(
                cell.em, cell.chrf
            )
    rows = board_rows(
        tasks=[TaskInfo(t.pk, t.external_id, t.weight, t.split) for t in tasks],
        systems=[
            SystemInfo(id=s.pk, name=s.name, team=s.team, tier=s.tier, oracle=s.oracle)
            for s in systems
        ],
        cells=cells,
    )
    return CompetitionFigures(tasks=tasks, systems=systems, figures=figures, rows=rows)


def saved_oracles(data: CompetitionFigures) -> list[OracleListed]:
    """Return the competition's saved oracles with their members and board scores."""
    score_of = {r.system: r.overall.score for r in data.rows}
    return [
        OracleListed(name=s.name, members=list(s.oracle_of), score=score_of.get(s.name, 0.0))
        for s in data.systems
        if s.oracle
    ]


def oracle_page(competition: Competition, *, members: list[str] | None = None) -> OraclePage:
    """Return the oracle page: candidates by score, saved oracles, and the preview of
    `members` (in the candidates' order, which decides only the columns: the oracle does
    not depend on it) when two or more are chosen."""
    data = competition_figures(competition)
    candidates = [r for r in data.rows if not r.oracle and (r.system in data.figures)]
    known = [r.system for r in candidates]
    chosen = [name for name in known if name in set(members or [])]
    preview = data.combine(chosen) if len(chosen) >= 2 else None
    return OraclePage(
        competition=competition,
        tasks=data.tasks,
        candidates=candidates,
        oracles=saved_oracles(data),
        preview=preview,
        chosen=chosen,
    )


def oracle_table(oracle: Oracle) -> tuple[list[str], list[list]]:
    """Return the preview as a table: one row a task (supplier, its figures, the members
    tied with it, the member the attainable maximum takes, each member's score), then the
    oracle's overall row and the attainable maximum's, 0-1 scale."""
    header = ["task", "weight", "member", "score", "exact_match", "chrf", "tied_with"]
    header += ["member_at_maximum"] + [f"score_{m}" for m in oracle.members]
    body: list[list] = [
        [t.task, t.weight, t.member or "", t.score, round(t.em, 4), round(t.chrf, 4)]
        + ["; ".join(t.tied), t.maximum_member or ""]
        + ["" if s is None else s for s in t.member_scores]
        for t in oracle.tasks
    ]
    weight = sum(t.weight for t in oracle.tasks)
    blank = [""] * len(oracle.members)
    body.append(
        ["overall", weight, "oracle (upper bound)"]
        + list(oracle.overall.as_tuple())
        + [f"{oracle.ties} task(s) tied; rule: {TIE_RULE}", ""]
        + [s.overall.score for s in oracle.shares]
    )
    body.append(
        ["attainable maximum", weight, "best choice of one member per task"]
        + list(oracle.maximum.as_tuple())
        + [f"found by: {oracle.maximum_method}", ""]
        + blank
    )
    return header, body

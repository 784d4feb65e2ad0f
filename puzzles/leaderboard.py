"""The automatic leaderboard as pure computation over per-output figures (no ORM)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from .metrics import Aggregate, aggregate, geometric_mean

SPLITS = ("all", "public", "private")
BOARD_COLUMNS = (
    "rank",
    "system",
    "team",
    "tier",
    "score",
    "exact_match",
    "chrf",
    "public_score",
    "public_exact_match",
    "public_chrf",
    "private_split_score",
    "private_split_exact_match",
    "private_split_chrf",
    "line_format_match_rate",
    "clean_format_rate",
    "empty_predictions",
    "explanation_rate",
)


@dataclass(frozen=True)
class TaskInfo:
    """What aggregation needs of a task."""

    id: int
    external_id: str
    weight: float
    split: str


@dataclass(frozen=True)
class Cell:
    """One system's figures on one task (a missing output is an empty cell)."""

    em: float = 0.0
    chrf: float = 0.0
    item_count_matches: bool = False
    clean_json_list: bool = False
    empty: bool = True
    has_explanation: bool = False


EMPTY_CELL = Cell()


@dataclass
class BoardRow:
    """One system's line on the board."""

    system_id: int
    system: str
    team: str
    tier: str
    overall: Aggregate
    public: Aggregate
    private: Aggregate
    line_format_match_rate: float
    clean_format_rate: float
    empty_predictions: int
    explanation_rate: float
    task_scores: dict[str, float] = field(default_factory=dict)
    rank: int = 0
    oracle: bool = False

    def split(self, name: str) -> Aggregate:
        return {"all": self.overall, "public": self.public, "private": self.private}[name]

    def as_dict(self) -> dict[str, object]:
        """Return the row as the `score` command prints it (0-1 scale)."""
        values = (
            self.rank,
            self.system,
            self.team,
            self.tier,
            *self.overall.as_tuple(),
            *self.public.as_tuple(),
            *self.private.as_tuple(),
            self.line_format_match_rate,
            self.clean_format_rate,
            self.empty_predictions,
            self.explanation_rate,
        )
        return dict(zip(BOARD_COLUMNS, values, strict=True))


@dataclass(frozen=True)
class SystemInfo:
    id: int
    name: str
    team: str = ""
    tier: str = ""
    oracle: bool = False


def board_rows(
    *,
    tasks: list[TaskInfo],
    systems: Iterable[SystemInfo],
    cells: Mapping[tuple[int, int], Cell],
    rank_by: str = "all",
) -> list[BoardRow]:
    """Aggregate every system over all, public and private tasks and rank by one split."""
    rows: list[BoardRow] = []
    n_tasks = len(tasks)
    for system in systems:
        by_split: dict[str, list[tuple[float, float, float]]] = {s: [] for s in SPLITS}
        matches = clean = empty = explained = 0
        task_scores: dict[str, float] = {}
        for task in tasks:
            cell = cells.get((system.id, task.id), EMPTY_CELL)
            figure = (task.weight, cell.em, cell.chrf)
            by_split["all"].append(figure)
            by_split[task.split].append(figure)
            matches += cell.item_count_matches
            clean += cell.clean_json_list
            empty += cell.empty
            explained += cell.has_explanation
            task_scores[task.external_id] = round(geometric_mean(cell.em, cell.chrf), 4)
        rows.append(
            BoardRow(
                system_id=system.id,
                system=system.name,
                team=system.team,
                tier=system.tier,
                overall=aggregate(by_split["all"]),
                public=aggregate(by_split["public"]),
                private=aggregate(by_split["private"]),
                line_format_match_rate=_rate(matches, n_tasks),
                clean_format_rate=_rate(clean, n_tasks),
                empty_predictions=empty,
                explanation_rate=_rate(explained, n_tasks),
                task_scores=task_scores,
                oracle=system.oracle,
            )
        )
    return rank_rows(rows, rank_by=rank_by)


def rank_rows(rows: list[BoardRow], *, rank_by: str = "all") -> list[BoardRow]:
    """Sort by the split's score (then EM, then name); equal scores share a rank."""
    rows.sort(key=lambda r: (-r.split(rank_by).score, -r.split(rank_by).exact_match, r.system))
    previous: float | None = None
    for position, row in enumerate(rows, start=1):
        score = row.split(rank_by).score
        if score != previous:
            rank = position
            previous = score
        row.rank = rank
    return rows


def board_sort(rows: list[BoardRow], *, sort: str = "", group: bool = False) -> list[BoardRow]:
    """Return the rows ordered by a column (`score`, `-score`: descending, `task_<id>`), then
    grouped by tier if asked; an unknown column keeps the board's order. Sorts are stable."""
    rows = list(rows)
    key = sort.lstrip("-")
    if key.startswith("task_"):
        task = key.removeprefix("task_")
        rows.sort(key=lambda r: r.task_scores.get(task, 0.0), reverse=sort.startswith("-"))
    elif key in BOARD_COLUMNS:
        rows.sort(key=lambda r: r.as_dict()[key], reverse=sort.startswith("-"))
    if group:
        rows.sort(key=lambda r: r.tier)
    return rows


def _rate(count: int, total: int) -> float:
    return round(count / total, 4) if total else 0.0


def rank_changes(before: list[BoardRow], after: list[BoardRow]) -> list[dict[str, object]]:
    """List systems whose score or rank differs between two boards."""
    old = {r.system_id: r for r in before}
    changes: list[dict[str, object]] = []
    for row in after:
        prior = old.get(row.system_id)
        if prior is None:
            continue
        if prior.overall.score != row.overall.score or prior.rank != row.rank:
            changes.append(
                {
                    "system": row.system,
                    "score_before": prior.overall.score,
                    "score_after": row.overall.score,
                    "rank_before": prior.rank,
                    "rank_after": row.rank,
                }
            )
    return changes

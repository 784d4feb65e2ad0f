"""The leaderboard as a table for its CSV and XLSX downloads (ioleval.tables)."""

from __future__ import annotations

from .leaderboard import BOARD_COLUMNS, BoardRow


def board_table(rows: list[BoardRow], task_ids: list[str]) -> tuple[list[str], list[list]]:
    """Return the board's header and rows, one column per figure and per task."""
    header = list(BOARD_COLUMNS) + [f"task_{t}" for t in task_ids]
    body = [
        list(r.as_dict().values()) + [r.task_scores.get(t, 0.0) for t in task_ids] for r in rows
    ]
    return header, body

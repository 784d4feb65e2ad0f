"""Leaderboard tables as CSV and XLSX files (text cells neutralized: ioleval.spreadsheet)."""

from __future__ import annotations

from ioleval.spreadsheet import csv_text, xlsx_bytes

from .leaderboard import BOARD_COLUMNS, BoardRow


def board_table(rows: list[BoardRow], task_ids: list[str]) -> tuple[list[str], list[list]]:
    """Return the board's header and rows, one column per figure and per task."""
    header = list(BOARD_COLUMNS) + [f"task_{t}" for t in task_ids]
    body = [
        list(r.as_dict().values()) + [r.task_scores.get(t, 0.0) for t in task_ids] for r in rows
    ]
    return header, body


def board_csv(rows: list[BoardRow], task_ids: list[str]) -> str:
    """Render the board as CSV text."""
    return csv_text(*board_table(rows, task_ids))


def board_xlsx(rows: list[BoardRow], task_ids: list[str], *, title: str = "leaderboard") -> bytes:
    """Render the board as an XLSX workbook."""
    return xlsx_bytes(*board_table(rows, task_ids), title=title, freeze_panes="B2")

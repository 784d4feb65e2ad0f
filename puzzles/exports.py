"""Leaderboard tables as CSV and XLSX files."""

from __future__ import annotations

import csv
import io

from openpyxl import Workbook

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
    header, body = board_table(rows, task_ids)
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(header)
    writer.writerows(body)
    return buffer.getvalue()


def board_xlsx(rows: list[BoardRow], task_ids: list[str], *, title: str = "leaderboard") -> bytes:
    """Render the board as an XLSX workbook."""
    header, body = board_table(rows, task_ids)
    workbook = Workbook()
    sheet = workbook.active
    sheet.title = title[:31]
    sheet.append(header)
    for row in body:
        sheet.append(row)
    sheet.freeze_panes = "B2"
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()

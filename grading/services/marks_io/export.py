"""Marks out: every mark and final mark of a competition as rows, CSV or XLSX (organizers
only: the rows name the systems)."""

from __future__ import annotations

from ioleval.spreadsheet import csv_text, xlsx_bytes
from puzzles.models import Competition

from ...models import Mark
from .rows import MARK_COLUMNS


def marks_rows(competition: Competition) -> tuple[list[str], list[list]]:
    """Return every mark and final mark as rows (organizers only: it names the systems)."""
    header = list(MARK_COLUMNS) + ["paper", "status", "submitted_at"]
    rows: list[list] = []
    marks = (
        Mark.objects.filter(assignment__paper__problem__competition=competition)
        .select_related(
            "assignment__paper__system",
            "assignment__paper__problem",
            "assignment__juror",
            "criterion",
        )
        .order_by(
            "assignment__paper__problem__number",
            "assignment__paper__system__name",
            "criterion__order",
            "assignment__juror__username",
        )
    )
    for m in marks:
        a = m.assignment
        rows.append(
            [
                a.paper.system.name,
                a.paper.problem.number,
                m.criterion.code,
                a.juror.username,
                m.points,
                m.comment,
                a.paper.code,
                "submitted" if a.submitted_at else "draft",
                a.submitted_at.isoformat() if a.submitted_at else "",
            ]
        )
    from ...selectors import cells_read, problem_juries

    problems = list(competition.problems.order_by("number").select_related("jury"))
    juries = problem_juries(problems)
    read = cells_read(problems)
    for problem in problems:
        # Final marks are final once the chair finalizes; before that they are provisional.
        status = "final" if juries[problem.pk].finalized_at else "provisional"
        for paper in read[problem.pk].papers:
            for cell in paper.cells:
                if cell.state.final is not None:
                    rows.append(
                        [
                            paper.paper.system.name,
                            problem.number,
                            cell.criterion.code,
                            "(final)",
                            cell.state.final,
                            cell.state.status,
                            paper.paper.code,
                            status,
                            "",
                        ]
                    )
    return header, rows


def marks_csv(competition: Competition) -> str:
    """Render all marks as CSV (text that a spreadsheet would run is neutralized)."""
    return csv_text(*marks_rows(competition))


def marks_xlsx(competition: Competition) -> bytes:
    """Render all marks as an XLSX workbook (text is stored as text, never as a formula)."""
    header, rows = marks_rows(competition)
    rows = [[float(v) if hasattr(v, "as_tuple") else v for v in row] for row in rows]
    return xlsx_bytes(header, rows, title="marks")

"""Reads of the jury, one module per page or concern; import them from here.

Each runs a fixed number of queries whatever the number of papers. The pages (papers, grade,
by_criterion, sheet, chair, thread, awaiting, totals, jury_overview, distinct, loads,
contestants) build on the reads they share (rubrics, answers, cells, suggested, scale,
blind); the modules import one another without a cycle (tests/test_app_boundaries.py).
"""

from __future__ import annotations

from .answers import (
    HELD_ELSEWHERE_NOTE,
    answers_held_elsewhere,
    external_system_ids,
    paper_answers,
    paper_answers_of,
    paper_held_elsewhere,
    papers_recognisable,
)
from .awaiting import juror_awaiting
from .blind import NotBlind, not_blind, papers_still_graded, review_closed_text
from .by_criterion import by_criterion_page
from .cells import CELL_SOURCES, cell_inputs, cells_read, paper_cells, problem_juries, problem_jury
from .chair import DecidePanel, chair_overview_page, decide_panel, juror_progress, next_discrepancy
from .contestants import (
    contestant_criterion_shares,
    contestant_totals,
    contestants_summary,
    review_inputs_page,
)
from .distinct import STAGES, distinct_page, group_answers, proposals_pending
from .grade import grading_page, next_unfinished_code
from .jury_overview import jury_overview_page
from .loads import JurorLoad, group_candidates, juror_loads
from .papers import chair_sheets, juror_papers
from .rubrics import criteria_not_marked, current_rubrics, rubric_criteria, rubric_current
from .scale import jury_scale, rubric_totals, rubrics_scale_lines, scale_status
from .sheet import SheetFilters, comparison_sheet, problem_unresolved, sheet_page
from .suggested import suggestion_of
from .thread import ThreadPage, thread_page
from .totals import competition_still_grading, final_totals, problems_finalized, totals_page

__all__ = [
    "CELL_SOURCES",
    "DecidePanel",
    "HELD_ELSEWHERE_NOTE",
    "JurorLoad",
    "NotBlind",
    "STAGES",
    "SheetFilters",
    "ThreadPage",
    "answers_held_elsewhere",
    "by_criterion_page",
    "cell_inputs",
    "cells_read",
    "chair_overview_page",
    "chair_sheets",
    "comparison_sheet",
    "competition_still_grading",
    "contestant_criterion_shares",
    "contestant_totals",
    "contestants_summary",
    "criteria_not_marked",
    "current_rubrics",
    "decide_panel",
    "distinct_page",
    "external_system_ids",
    "final_totals",
    "grading_page",
    "group_answers",
    "group_candidates",
    "juror_awaiting",
    "juror_loads",
    "juror_papers",
    "juror_progress",
    "jury_overview_page",
    "jury_scale",
    "next_discrepancy",
    "next_unfinished_code",
    "not_blind",
    "paper_answers",
    "paper_answers_of",
    "paper_cells",
    "paper_held_elsewhere",
    "papers_recognisable",
    "papers_still_graded",
    "problem_juries",
    "problem_jury",
    "problem_unresolved",
    "problems_finalized",
    "proposals_pending",
    "review_closed_text",
    "review_inputs_page",
    "rubric_criteria",
    "rubric_current",
    "rubric_totals",
    "rubrics_scale_lines",
    "scale_status",
    "sheet_page",
    "suggestion_of",
    "thread_page",
    "totals_page",
]

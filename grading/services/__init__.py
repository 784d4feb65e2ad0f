"""Writes of the jury: rubrics, papers, assignments, marks, consensus, marks in and out."""

from .consensus import problem_finalize, problem_reopen, problem_set_tolerance
from .marks import (
    DEFAULT_TAGS,
    assignment_submit,
    comment_post,
    criterion_decide,
    mark_revise,
    mark_save,
    mark_save_by_code,
    points_parse,
    tags_configure,
    tags_ensure_defaults,
    tags_set,
)
from .marks_io import MarksImport, marks_csv, marks_import, marks_rows, marks_xlsx
from .papers import AssignmentReport, jurors_assign, paper_code, papers_create, problem_jurors_set
from .rubrics import (
    CriterionSpec,
    RubricChange,
    rubric_change_preview,
    rubric_current,
    rubric_replace,
    rubrics_export,
    rubrics_import,
    rubrics_read,
)

__all__ = [
    "DEFAULT_TAGS",
    "AssignmentReport",
    "CriterionSpec",
    "MarksImport",
    "RubricChange",
    "assignment_submit",
    "comment_post",
    "criterion_decide",
    "jurors_assign",
    "mark_revise",
    "mark_save",
    "mark_save_by_code",
    "marks_csv",
    "marks_import",
    "marks_rows",
    "marks_xlsx",
    "paper_code",
    "papers_create",
    "points_parse",
    "problem_finalize",
    "problem_jurors_set",
    "problem_reopen",
    "problem_set_tolerance",
    "rubric_change_preview",
    "rubric_current",
    "rubric_replace",
    "rubrics_export",
    "rubrics_import",
    "rubrics_read",
    "tags_configure",
    "tags_ensure_defaults",
    "tags_set",
]

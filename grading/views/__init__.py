"""Views of the jury, by role."""

from .by_criterion import by_criterion
from .chair import (
    chair_overview,
    finalize,
    sheet,
    sheet_decide,
    sheet_next,
    thread,
    thread_post,
    tolerance,
)
from .distinct import distinct_answers, proposal_create
from .juror import grade, juror_home, mark_save, submit, tags_save
from .organizer import (
    assign,
    jury_overview,
    marks_export,
    marks_upload,
    rubric_edit,
    rubrics_json,
    rubrics_upload,
    select_systems,
    set_group,
    tags_config,
    totals,
)
from .pdf import (
    batch_resume,
    batch_start,
    batch_status,
    batch_zip,
    packet_download,
    paper_download,
    paper_text_download,
)
from .review_inputs import contestants_upload, review_inputs, system_scores_upload
from .review_screen import explanations, explanations_export

__all__ = [
    "batch_resume",
    "batch_start",
    "batch_status",
    "batch_zip",
    "by_criterion",
    "packet_download",
    "proposal_create",
    "paper_download",
    "paper_text_download",
    "assign",
    "chair_overview",
    "contestants_upload",
    "distinct_answers",
    "explanations",
    "explanations_export",
    "review_inputs",
    "system_scores_upload",
    "finalize",
    "grade",
    "juror_home",
    "jury_overview",
    "mark_save",
    "marks_export",
    "marks_upload",
    "rubric_edit",
    "rubrics_json",
    "rubrics_upload",
    "select_systems",
    "set_group",
    "sheet",
    "sheet_decide",
    "sheet_next",
    "submit",
    "tags_save",
    "thread",
    "thread_post",
    "tags_config",
    "tolerance",
    "totals",
]

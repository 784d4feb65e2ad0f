from django.urls import path, register_converter

from . import views
from .review import views as review_views


class PaperCodeConverter:
    """A paper code such as P3-7KQ2; anything else (a NUL above all) is no URL of ours."""

    regex = "[A-Za-z0-9-]+"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(PaperCodeConverter, "code")

app_name = "grading"

urlpatterns = [
    path("jury/", views.juror_home, name="home"),
    path("jury/papers/<code:code>/", views.grade, name="grade"),
    path("jury/papers/<code:code>/marks/<int:criterion_id>/", views.mark_save, name="mark"),
    path("jury/papers/<code:code>/submit/", views.submit, name="submit"),
    path("jury/papers/<code:code>/paper.pdf", views.paper_download, name="paper_pdf"),
    path("jury/papers/<code:code>/paper.txt", views.paper_text_download, name="paper_text"),
    path("jury/problems/<int:problem_id>/packet.pdf", views.packet_download, name="packet_pdf"),
    path(
        "jury/problems/<int:problem_id>/criteria/<int:criterion_id>/",
        views.by_criterion,
        name="by_criterion",
    ),
    path("jury/papers/<code:code>/tags/", views.tags_save, name="tags"),
    path("jury/problems/<int:problem_id>/answers/", views.distinct_answers, name="distinct_first"),
    path(
        "jury/problems/<int:problem_id>/answers/<int:task_number>/<int:item_number>/",
        views.distinct_answers,
        name="distinct",
    ),
    path(
        "jury/problems/<int:problem_id>/answers/<int:task_number>/<int:item_number>/propose/",
        views.proposal_create,
        name="propose",
    ),
    path("jury/papers/<code:code>/criteria/<int:criterion_id>/", views.thread, name="thread"),
    path(
        "jury/papers/<code:code>/criteria/<int:criterion_id>/<str:action>/",
        views.thread_post,
        name="thread_post",
    ),
    path("c/<slug:slug>/jury/", views.jury_overview, name="jury"),
    path("c/<slug:slug>/jury/select/", views.select_systems, name="select"),
    path("c/<slug:slug>/jury/group/", views.set_group, name="group"),
    path("c/<slug:slug>/jury/assign/", views.assign, name="assign"),
    path("c/<slug:slug>/jury/tags/", views.tags_config, name="tags_config"),
    path("c/<slug:slug>/jury/rubrics.json", views.rubrics_json, name="rubrics_json"),
    path("c/<slug:slug>/jury/rubrics/", views.rubrics_upload, name="rubrics_upload"),
    path("c/<slug:slug>/jury/marks/", views.marks_upload, name="marks_upload"),
    path("c/<slug:slug>/jury/marks.<fmt:fmt>", views.marks_export, name="marks_export"),
    path("c/<slug:slug>/jury/totals/", views.totals, name="totals"),
    path("c/<slug:slug>/review/", review_views.review, name="review"),
    path(
        "c/<slug:slug>/review/progress/",
        review_views.review_progress,
        name="review_progress",
    ),
    path("c/<slug:slug>/review.json", review_views.review_json, name="review_json"),
    path("c/<slug:slug>/review.pdf", review_views.review_report_pdf, name="review_pdf"),
    path(
        "c/<slug:slug>/review/charts/<slug:name>.svg",
        review_views.review_chart,
        name="review_chart",
    ),
    path("c/<slug:slug>/review/inputs/", views.review_inputs, name="review_inputs"),
    path(
        "c/<slug:slug>/review/inputs/system-scores/",
        views.system_scores_upload,
        name="system_scores_upload",
    ),
    path(
        "c/<slug:slug>/review/inputs/contestants/",
        views.contestants_upload,
        name="contestants_upload",
    ),
    path("c/<slug:slug>/review/explanations/", views.explanations, name="explanations"),
    path(
        "c/<slug:slug>/review/explanations.<fmt:fmt>",
        views.explanations_export,
        name="explanations_export",
    ),
    # After explanations_export: `review/explanations.csv` is that route's, not a table.
    path(
        "c/<slug:slug>/review/<slug:table>.<fmt:fmt>",
        review_views.review_table_export,
        name="review_table",
    ),
    path("c/<slug:slug>/jury/pdf/", views.batch_start, name="pdf_batch"),
    path("c/<slug:slug>/jury/pdf/<str:task_id>/", views.batch_status, name="pdf_batch_status"),
    path("c/<slug:slug>/jury/pdf/<str:task_id>/papers.zip", views.batch_zip, name="pdf_batch_zip"),
    path(
        "c/<slug:slug>/jury/pdf/<str:task_id>/resume/", views.batch_resume, name="pdf_batch_resume"
    ),
    path("c/<slug:slug>/jury/problems/<int:number>/rubric/", views.rubric_edit, name="rubric"),
    path("c/<slug:slug>/jury/problems/<int:number>/sheet/", views.sheet, name="sheet"),
    path(
        "c/<slug:slug>/jury/problems/<int:number>/overview/",
        views.chair_overview,
        name="chair_overview",
    ),
    path(
        "c/<slug:slug>/jury/problems/<int:number>/sheet/next/",
        views.sheet_next,
        name="sheet_next",
    ),
    path(
        "c/<slug:slug>/jury/problems/<int:number>/sheet/<code:code>/<int:criterion_id>/",
        views.sheet_decide,
        name="sheet_decide",
    ),
    path("c/<slug:slug>/jury/problems/<int:number>/finalize/", views.finalize, name="finalize"),
    path("c/<slug:slug>/jury/problems/<int:number>/tolerance/", views.tolerance, name="tolerance"),
]

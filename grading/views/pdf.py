"""PDF papers: a juror's paper and packet, a paper's full text, the organizers' batches."""

from __future__ import annotations

from django.http import Http404, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from ioleval.http import HtmxHttpRequest, attachment, post_redirect
from ioleval.progress import job_start, poll_response
from ioleval.roles import CHAIR, JUROR, ORGANIZER, role_required
from puzzles.selectors import competition_get

from .. import access, batches
from ..errors import GradingError
from ..pdf import packet_pdf, paper_filename, paper_pdf, paper_text


@require_GET
@role_required(JUROR, CHAIR, ORGANIZER)
def paper_download(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """One paper's PDF: for its jurors, and for organizers any paper."""
    paper = access.pdf_paper(request.user, code)
    return attachment(paper_pdf(paper), paper_filename(paper), "application/pdf")


@require_GET
@role_required(JUROR, CHAIR)
def packet_download(request: HtmxHttpRequest, problem_id: int) -> HttpResponse:
    problem = access.packet_problem(request.user, problem_id)
    return attachment(
        packet_pdf(request.user, problem), f"problem-{problem.number}-packet.pdf", "application/pdf"
    )


@require_GET
@role_required(JUROR, CHAIR, ORGANIZER)
def paper_text_download(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """The paper's answers and explanations in full: the download that cut text points to.

    Whoever reads the paper's text on a page gets it: its jurors, and chairs and organizers
    as they reach its discussion threads.
    """
    paper = access.text_paper(request.user, code)
    return attachment(paper_text(paper), f"{paper.code}.txt", "text/plain; charset=utf-8")


def _batch(slug: str, batch: str):
    """Return (competition, manifest) of a batch, or 404."""
    competition = competition_get(slug)
    try:
        return competition, batches.batch_manifest(batches.batch_dir(batch), competition)
    except GradingError:
        raise Http404("no such batch") from None


@require_POST
@role_required(ORGANIZER)
def batch_start(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """Queue one rendering task per problem, so that several workers share the batch."""
    competition = competition_get(slug)
    return job_start(
        request,
        lambda: batches.batch_start(competition=competition),
        follow=lambda batch: redirect("grading:pdf_batch_status", slug=slug, task_id=batch),
        refused=reverse("grading:jury", args=[slug]),
    )


@require_GET
@role_required(ORGANIZER)
def batch_status(request: HtmxHttpRequest, slug: str, task_id: str) -> HttpResponse:
    competition, manifest = _batch(slug, task_id)
    state = batches.batch_state(task_id, manifest)
    context = {
        "competition": competition,
        "batch": state,
        "progress": state.progress,
        "poll_id": "batch",
        "poll_url": reverse("grading:pdf_batch_status", args=[slug, task_id]),
        "body": "grading/partials/_pdf_batch_status.html",
    }
    return poll_response(request, "grading/pdf_batch.html", context)


@require_POST
@role_required(ORGANIZER)
def batch_resume(request: HtmxHttpRequest, slug: str, task_id: str) -> HttpResponse:
    """Queue again the problems of a stalled or failed batch whose papers are missing."""
    competition, _ = _batch(slug, task_id)

    def act() -> str:
        numbers = batches.batch_resume(competition=competition, batch=task_id)
        return f"Resumed: problem {', '.join(str(n) for n in numbers)} queued again."

    return post_redirect(request, act, reverse("grading:pdf_batch_status", args=[slug, task_id]))


@require_GET
@role_required(ORGANIZER)
def batch_zip(request: HtmxHttpRequest, slug: str, task_id: str) -> HttpResponse:
    _, manifest = _batch(slug, task_id)
    try:
        content, filename = batches.batch_zip(task_id, manifest, slug=slug)
    except GradingError as error:
        raise Http404(str(error)) from None
    return attachment(content, filename, "application/zip")

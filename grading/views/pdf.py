"""PDF papers: a juror's paper and packet, and the organizers' batch with progress."""

from __future__ import annotations

import io
import json
import re
import uuid
import zipfile
from pathlib import Path

from celery.result import AsyncResult
from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from ioleval.celery import app as celery_app
from ioleval.http import attachment
from ioleval.roles import CHAIR, JUROR, ORGANIZER, role_required
from puzzles.models import Problem
from puzzles.selectors import competition_get

from ..models import Assignment, Paper
from ..pdf import packet_pdf, paper_filename, paper_pdf
from ..selectors import assignment_for
from ..tasks import render_papers_task

_TASK_ID = re.compile(r"^[0-9a-f]{32}$")
MANIFEST = "batch.json"


@require_GET
@role_required(JUROR, CHAIR)
def paper_download(request: HttpRequest, code: str) -> HttpResponse:
    assignment = assignment_for(request.user, code)
    return attachment(
        paper_pdf(assignment.paper), paper_filename(assignment.paper), "application/pdf"
    )


@require_GET
@role_required(JUROR, CHAIR)
def packet_download(request: HttpRequest, problem_id: int) -> HttpResponse:
    problem = get_object_or_404(Problem, pk=problem_id)
    if not Assignment.objects.filter(paper__problem=problem, juror=request.user).exists():
        raise PermissionDenied
    return attachment(
        packet_pdf(request.user, problem), f"problem-{problem.number}-packet.pdf", "application/pdf"
    )


def _batch_dir(task_id: str) -> Path:
    if not _TASK_ID.fullmatch(task_id):
        raise Http404
    return Path(settings.MEDIA_ROOT) / "papers" / task_id


def _problem_numbers(competition) -> list[int]:
    return sorted(
        competition.problems.filter(papers__isnull=False)
        .distinct()
        .values_list("number", flat=True)
    )


@require_POST
@role_required(ORGANIZER)
def batch_start(request: HttpRequest, slug: str) -> HttpResponse:
    """Queue one rendering task per problem, so that several workers share the batch.

    The batch's directory gets a manifest (the problems and how many papers to expect), so
    that its progress is read from the files written, with or without a result backend.
    """
    competition = competition_get(slug)
    batch = uuid.uuid4().hex
    out = _batch_dir(batch)
    out.mkdir(parents=True)
    numbers = _problem_numbers(competition)
    total = Paper.objects.filter(problem__competition=competition).count()
    manifest = {"competition": competition.pk, "problems": numbers, "total": total}
    (out / MANIFEST).write_text(json.dumps(manifest))
    for n in numbers:
        render_papers_task.apply_async(args=[competition.pk, str(out), n], task_id=f"{batch}-{n}")
    return redirect("grading:pdf_batch_status", slug=slug, task_id=batch)


@require_GET
@role_required(ORGANIZER)
def batch_status(request: HttpRequest, slug: str, task_id: str) -> HttpResponse:
    competition = competition_get(slug)
    directory = _batch_dir(task_id)
    manifest = _manifest(directory, competition)
    done = len(list(directory.glob("*.pdf")))
    failed = False
    if celery_app.conf.result_backend:  # without one (tasks run in-process) no task state
        results = [AsyncResult(f"{task_id}-{n}", app=celery_app) for n in manifest["problems"]]
        failed = any(r.failed() for r in results)
    ready = failed or done >= manifest["total"]
    context = {
        "competition": competition,
        "task_id": task_id,
        "ready": ready,
        "failed": failed,
        "count": done,
        "done": done,
        "total": manifest["total"],
    }
    template = "grading/pdf_batch.html#status" if request.htmx else "grading/pdf_batch.html"
    response = render(request, template, context)
    if request.htmx and ready:
        response.status_code = 286  # stop polling
    return response


def _manifest(directory: Path, competition) -> dict:
    """Return the batch's manifest, or 404 when there is none for this competition."""
    try:
        manifest = json.loads((directory / MANIFEST).read_text())
    except FileNotFoundError:
        raise Http404("no such batch") from None
    if manifest["competition"] != competition.pk:
        raise Http404("no such batch")
    return manifest


@require_GET
@role_required(ORGANIZER)
def batch_zip(request: HttpRequest, slug: str, task_id: str) -> HttpResponse:
    directory = _batch_dir(task_id)
    _manifest(directory, competition_get(slug))
    files = sorted(directory.glob("*.pdf")) if directory.is_dir() else []
    if not files:
        raise Http404("no papers rendered under this batch")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in files:
            archive.write(path, path.name)
    return attachment(buffer.getvalue(), f"{slug}-papers.zip", "application/zip")

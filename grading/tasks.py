"""Celery tasks of the jury: thin wrappers that take ids and call grading.pdf; the review's
refresh task lives with its lock in grading.review.refresh and is imported here so that
Celery's autodiscovery (which imports `<app>.tasks`) registers it."""

from __future__ import annotations

import logging
import uuid
from pathlib import Path

from celery import shared_task
from django.contrib.auth import get_user_model
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from ioleval.celery import connection_errors
from puzzles.models import Competition, Problem

from .pdf import competition_papers, packet_pdf, papers_write
from .review.refresh import review_refresh_task  # noqa: F401  (registered for autodiscovery)

logger = logging.getLogger(__name__)


@shared_task(bind=True)
def render_papers_task(
    self, competition_id: int, out_dir: str, problem_number: int | None = None
) -> int:
    """Write the missing `<code>.pdf` of every paper (of one problem, if given); return how many.

    Idempotent: a paper whose PDF is already in out_dir is skipped, so that a task delivered
    again after its worker was lost (acks_late) or queued again by a resume carries on. A
    paper that fails leaves `<code>.error` and the others are still written. Reports
    PROGRESS with meta {"done", "total"} after each paper, for a polling page; that report
    is advisory (the batch's files are the truth): when the result backend cannot take it,
    a warning is logged and the papers are still rendered.
    """
    competition = Competition.objects.get(pk=competition_id)
    papers = competition_papers(competition, problem_number)

    def progress(done: int, total: int) -> None:
        if not self.request.id:  # called directly (not enqueued), there is no state to update
            return
        try:
            self.update_state(state="PROGRESS", meta={"done": done, "total": total})
        except connection_errors():  # the settings' result backend fails fast, for the web
            logger.warning(
                "task %s: progress %d of %d not recorded (result backend unreachable)",
                self.request.id,
                done,
                total,
            )

    progress(0, len(papers))
    written = papers_write(papers, Path(out_dir), on_progress=progress, skip_written=True)
    return len(written)


@shared_task
def render_packet_task(juror_id: int, problem_id: int) -> str:
    """Store the juror's packet for the problem as packets/<uuid>.pdf; return its storage name."""
    juror = get_user_model().objects.get(pk=juror_id)
    problem = Problem.objects.get(pk=problem_id)
    content = ContentFile(packet_pdf(juror, problem))
    return default_storage.save(f"packets/{uuid.uuid4().hex}.pdf", content)

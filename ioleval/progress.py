"""One progress mechanism for background jobs: a state, one polling partial, 286 at the end.

A job is started through `job_start`, which turns a start that is refused (an AppError:
the broker cannot be reached, QueueUnavailable) into a message and a redirect, so that no
view catches it itself. A page that follows a job (a PDF batch, a rescoring) puts `progress` (a Progress),
`poll_id`, `poll_url` and `body` (the template of what it shows inside) in its context and
includes `partials/_progress.html`; the polling view answers with `poll_response`, which
renders that partial alone for htmx and stops the polling once the job is finished.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django_htmx.http import HTMX_STOP_POLLING, HttpResponseClientRedirect

from .celery import connection_errors
from .errors import AppError
from .http import HtmxHttpRequest

logger = logging.getLogger(__name__)

PARTIAL = "partials/_progress.html"

RUNNING = "running"
DONE = "done"
FAILED = "failed"
STALLED = "stalled"  # nothing happened for a while and nothing says it still runs
UNKNOWN = "unknown"  # no record of the job (e.g. in-process results lost by a restart)
UNREACHABLE = "unreachable"  # the result backend cannot be reached: asked again later


@dataclass(frozen=True)
class Progress:
    """Where a background job stands; done and total count its steps when it reports them."""

    state: str
    done: int | None = None
    total: int | None = None

    @property
    def finished(self) -> bool:
        """Return True once nothing more will happen without someone acting."""
        return self.state in (DONE, FAILED, UNKNOWN)

    @property
    def poll_seconds(self) -> int:
        """Return how often a page polls: slower while the job looks stalled."""
        return 5 if self.state in (STALLED, UNREACHABLE) else 1


def task_progress(result) -> Progress:
    """Return a Celery task's progress from its result (eager, or from the result backend).

    A task that reports PROGRESS with meta {"done", "total"} gets those counts; a finished
    task's result counts as its done steps when it is an int.

    Each read of a pending result's state or info asks the backend again, and the task can
    finish between two reads (state PROGRESS, then info its int result), so the info is read
    once and judged by what it is. A result backend that cannot be reached gives UNREACHABLE.
    """
    try:
        state = result.state
        info = result.info if state in ("SUCCESS", "PROGRESS") else None
    except connection_errors():
        logger.warning("the Celery result backend cannot be reached")
        return Progress(UNREACHABLE)
    return _progress(state, info)


def _progress(state: str, info) -> Progress:
    if state == "SUCCESS":
        value = info
        count = value if isinstance(value, int) else None
        return Progress(DONE, count, count)
    if state in ("FAILURE", "REVOKED"):
        return Progress(FAILED)
    if state == "PROGRESS":
        if isinstance(info, dict):
            return Progress(RUNNING, info.get("done"), info.get("total"))
    return Progress(RUNNING)


def poll_response(request: HtmxHttpRequest, template: str, context: dict[str, Any]) -> HttpResponse:
    """Render the page, or for htmx only its polling partial, 286 once the job is finished."""
    progress: Progress = context["progress"]
    if not request.htmx:
        return render(request, template, context)
    response = render(request, PARTIAL, context)
    if progress.finished:
        response.status_code = HTMX_STOP_POLLING
    return response


def job_start(
    request: HtmxHttpRequest,
    start: Callable[[], str],
    *,
    follow: Callable[[str], HttpResponse],
    refused: str,
) -> HttpResponse:
    """Start a job and answer with `follow(job id)`; a refusal is a message on `refused`.

    The refusal (an AppError, such as QueueUnavailable) has started nothing; for htmx the
    browser goes to `refused` (a page, not a fragment swapped into the form)."""
    try:
        job = start()
    except AppError as exc:
        messages.error(request, exc.for_page)
        return HttpResponseClientRedirect(refused) if request.htmx else redirect(refused)
    return follow(job)

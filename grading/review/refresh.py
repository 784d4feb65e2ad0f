"""The review page is never built while an organizer waits: the refresh of the result review
in a Celery task, under one lock, started from one place (`review_refresh_start`).

At IOL scale a review takes seconds to compute (the bootstraps, 24,000 marks), so the page
does not compute it: when the marks have moved since the last review, it shows that last
review, says so (`review_state`), and has a task compute the new one (a worker's; without a
broker, Celery runs it in the request, as before). The page polls (ioleval.progress) and
reloads when the review of the marks as they stand is there. After a finalization
(grading.signals.problem_finalized, connected in grading/apps.py) a worker computes it
before anyone asks, so that it is there when the chair opens the page.

Faults: while the shared cache cannot be reached, the page computes the review in the
request; while the broker cannot be reached, the page computes it in the request too, and a
finalization leaves it to the page (logged, never an error of the finalization, which has
committed).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from celery import current_app, shared_task

from ioleval.celery import QueueUnavailable
from ioleval.progress import DONE, RUNNING, STALLED, Progress
from ioleval.shared_cache import CACHE_DOWN
from puzzles.models import Competition

from . import build
from .cache import CACHE_VERSION, latest_key, review_cache, review_cached, review_key

logger = logging.getLogger(__name__)

RESAMPLES = 10_000  # what the page shows, so what a refresh after a finalization computes
BUILD_LOCK_SECONDS = 10 * 60  # a lost build (a killed worker) is started again after this
STALLED_SECONDS = 2 * 60  # a build running longer than this is shown as stalled


@dataclass(frozen=True)
class ReviewState:
    """What the review page shows: the review of the marks as they stand (`fresh`), or while
    that one is computed, the latest one computed before (`shown` is its key), or none yet."""

    key: str  # the cache key of the marks as they stand
    shown: str  # the key of the review shown ("" when none has been computed yet)
    progress: Progress  # DONE when the review shown is the fresh one

    @property
    def fresh(self) -> bool:
        return self.shown == self.key


def review_state(*, competition: Competition, resamples: int = RESAMPLES) -> ReviewState:
    """Return what the page can show now, starting the computation of the review of the
    marks as they stand unless it is cached or already being computed."""
    key = review_key(competition, resamples=resamples)
    try:
        cached = review_cache.shared("has_key", key)
    except CACHE_DOWN:  # no worker could hand its review to this process: build it here
        logger.warning("review of %s: the cache cannot be reached; computed here", competition.slug)
        if review_cache.memory.get(key) is None:
            review_cache.memory.set(
                key, build.review_build(competition=competition, resamples=resamples)
            )
        return ReviewState(key, key, Progress(DONE))
    if not cached:
        review_refresh_start(competition, resamples)  # without a worker: built here and now
    if review_cache.shared("has_key", key):
        return ReviewState(key, key, Progress(DONE))
    latest = review_cache.shared("get", latest_key(competition, resamples))
    shown = latest if latest and review_cache.shared("has_key", latest) else ""
    started = review_cache.shared("get", _lock_key(competition, resamples))
    stalled = started is not None and time.time() - started > STALLED_SECONDS
    return ReviewState(key, shown, Progress(STALLED if stalled else RUNNING))


def review_refresh(*, competition_id: int, resamples: int) -> str:
    """Compute and cache the review of the marks as they stand (the task's body); return its
    key. The lock that kept other requests from starting the same work is released."""
    try:
        competition = Competition.objects.get(pk=competition_id)
        review_cached(competition=competition, resamples=resamples)
        return review_key(competition, resamples=resamples)
    finally:
        review_cache.shared("delete", _lock_key_of(competition_id, resamples))


# Named as when it lived in grading/tasks.py, which imports it for Celery's autodiscovery.
@shared_task(name="grading.tasks.review_refresh_task")
def review_refresh_task(competition_id: int, resamples: int) -> str:
    """Compute and cache a competition's result review and its charts; return its cache key."""
    return review_refresh(competition_id=competition_id, resamples=resamples)


def review_refresh_start(
    competition: Competition, resamples: int, *, here_if_unqueued: bool = True
) -> None:
    """Start one computation of the competition's review, unless one is running; when it
    cannot be queued, compute it here (or, without here_if_unqueued, leave it to the page)."""
    lock = _lock_key(competition, resamples)
    if not review_cache.shared("add", lock, time.time(), BUILD_LOCK_SECONDS):
        return
    try:
        review_refresh_task.delay(competition.pk, resamples)
    except QueueUnavailable:  # the broker is down: compute it here, not never
        if here_if_unqueued:
            logger.warning("review of %s: computed in the request", competition.slug)
            review_refresh(competition_id=competition.pk, resamples=resamples)
        else:
            logger.warning("review of %s: left to the page", competition.slug)
            review_cache.shared("delete", lock)


def review_refresh_after_finalize(sender, *, problem, **kwargs) -> None:
    """With a worker, have the review computed now that a finalization has committed (so that
    it is there when the chair opens it); without one, or when it cannot be queued, leave it
    to the first view of the page. A receiver of grading.signals.problem_finalized.

    The finalization has committed by then: a broker or cache that is down is logged
    (grading.signals sends it robustly), never an error of the finalization."""
    if _with_worker():
        review_refresh_start(problem.competition, RESAMPLES, here_if_unqueued=False)


def _with_worker() -> bool:
    """Whether tasks go to a worker (a broker is configured), not run in the caller."""
    return not current_app.conf.task_always_eager


def _lock_key(competition: Competition, resamples: int) -> str:
    return _lock_key_of(competition.pk, resamples)


def _lock_key_of(competition_id: int, resamples: int) -> str:
    return f"ioleval:review:v{CACHE_VERSION}:{competition_id}:{resamples}:building"

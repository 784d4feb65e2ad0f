"""Concurrent jobs for the tests of concurrent writes (which run on PostgreSQL only: mark them
with the `postgres_only` fixture of tests/conftest.py)."""

from __future__ import annotations

import threading
from collections.abc import Callable

from django.db import connections, transaction
from django.utils import timezone

from grading.errors import GradingError
from grading.models import ProblemJury


def run_concurrently(jobs: list[Callable[[], object]], *, together: bool = True) -> None:
    """Run each job in its own thread (and database connection) and wait for them all; with
    `together`, they start at once (a barrier), else as they come (jobs order themselves
    with events). An exception in any job fails the test."""
    barrier = threading.Barrier(len(jobs)) if together else None
    errors: list[BaseException] = []

    def runner(job):
        try:
            if barrier is not None:
                barrier.wait()
            job()
        except BaseException as exc:  # noqa: BLE001 - reported to the test below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=runner, args=(job,)) for job in jobs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors


def during_finalization(problem, act) -> list[str]:
    """Run `act` while a finalization of the problem holds its jury row, and return what it
    said: "done", or its refusal."""
    locked, release = threading.Event(), threading.Event()
    outcome: list[str] = []

    def finalize():
        with transaction.atomic():
            jury = ProblemJury.objects.select_for_update().get(problem=problem)
            locked.set()
            release.wait(10)
            jury.finalized_at = timezone.now()
            jury.save()

    def acting():
        locked.wait(10)
        try:
            outcome.append(act())
        except GradingError as exc:
            outcome.append(exc.message)

    def releaser():
        locked.wait(10)
        threading.Event().wait(0.5)  # let the act reach the lock and wait there
        release.set()

    run_concurrently([finalize, acting, releaser])
    return outcome

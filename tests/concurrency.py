"""Concurrent jobs for the tests of concurrent writes (which run on PostgreSQL only: mark them
with the `postgres_only` fixture of tests/conftest.py)."""

from __future__ import annotations

import threading
from collections.abc import Callable

from django.db import connections


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

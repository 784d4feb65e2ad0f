"""A Celery task's progress as a page shows it, including a task that finishes mid-read."""

from __future__ import annotations

from ioleval.progress import DONE, FAILED, RUNNING, UNREACHABLE, Progress, task_progress


class _Backend:
    """Answer each read of a pending result from the backend as it stands at that moment."""

    def __init__(self, *metas: tuple[str, object]):
        self.metas = list(metas)

    def read(self) -> tuple[str, object]:
        return self.metas.pop(0) if len(self.metas) > 1 else self.metas[0]


class _Result:
    """The three properties task_progress reads; each asks the backend again, as Celery's do."""

    def __init__(self, backend: _Backend):
        self.backend = backend

    @property
    def state(self):
        return self.backend.read()[0]

    @property
    def info(self):
        return self.backend.read()[1]

    result = info


def test_a_task_reporting_progress_gives_its_counts():
    result = _Result(_Backend(("PROGRESS", {"done": 3, "total": 14})))
    assert task_progress(result) == Progress(RUNNING, 3, 14)


def test_a_task_that_finishes_while_its_progress_is_read_shows_what_was_read():
    """The worker test's failure: info was a dict when checked and the int result when used."""
    reporting = ("PROGRESS", {"done": 13, "total": 14})
    result = _Result(_Backend(reporting, reporting, ("SUCCESS", 14)))
    assert task_progress(result) == Progress(RUNNING, 13, 14)


def test_a_task_that_finishes_between_the_state_and_the_info_reads_is_still_running():
    result = _Result(_Backend(("PROGRESS", {"done": 13, "total": 14}), ("SUCCESS", 14)))
    assert task_progress(result) == Progress(RUNNING)


def test_a_finished_task_counts_its_int_result_as_done_steps():
    assert task_progress(_Result(_Backend(("SUCCESS", 14)))) == Progress(DONE, 14, 14)
    assert task_progress(_Result(_Backend(("SUCCESS", "ok")))) == Progress(DONE)


def test_failed_and_revoked_tasks_are_failed_and_unknown_states_running():
    assert task_progress(_Result(_Backend(("FAILURE", ValueError())))).state == FAILED
    assert task_progress(_Result(_Backend(("REVOKED", None)))).state == FAILED
    assert task_progress(_Result(_Backend(("PENDING", None)))) == Progress(RUNNING)
    assert task_progress(_Result(_Backend(("STARTED", {"pid": 1})))) == Progress(RUNNING)


class _Unreachable:
    """A result whose backend cannot be reached: reading its state raises a socket error."""

    @property
    def state(self):
        raise ConnectionRefusedError(111, "Connection refused")


def test_a_backend_without_connection_errors_of_its_own_still_gives_unreachable(monkeypatch):
    """The result backend of `make run` (cache+memory://, Celery's CacheBackend) has no
    `connection_errors`: asking for them raised AttributeError. CI's backend is Redis,
    which has them, so the test puts a cache backend in its place."""
    from celery.backends.cache import CacheBackend
    from kombu.exceptions import OperationalError

    from ioleval.celery import app, connection_errors

    cache_backend = CacheBackend(app=app, url="memory://")
    monkeypatch.setattr(type(app), "backend", property(lambda self: cache_backend))
    assert app.backend is cache_backend
    assert not hasattr(app.backend, "connection_errors")
    assert OperationalError in connection_errors() and OSError in connection_errors()
    assert task_progress(_Unreachable()) == Progress(UNREACHABLE)

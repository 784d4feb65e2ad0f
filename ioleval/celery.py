"""The Celery app; tasks run in-process unless CELERY_BROKER_URL names a broker.

Every task is queued through `QueuedTask.apply_async` (`.delay` included): when the broker
or the result backend cannot be reached within the settings' short timeouts
(`CELERY_TIMEOUT`), it raises `QueueUnavailable`, an AppError that pages show as a refusal
and commands as an error, instead of Celery's own errors (kombu's OperationalError, or the
RuntimeError of the Redis result backend's retry limit) reaching the user as a 500.
"""

from __future__ import annotations

import logging
import os

from celery import Celery, Task
from kombu.exceptions import OperationalError

from .errors import AppError

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ioleval.settings.local")

logger = logging.getLogger(__name__)


class QueueUnavailable(AppError):
    """A background job could not be queued (broker or result backend down); nothing was."""


def connection_errors() -> tuple[type[BaseException], ...]:
    """Return what queueing a task, or reading its state, raises when the broker or the
    result backend cannot be reached (the Redis result backend gives up with a bare
    RuntimeError, "Retry limit exceeded ..."; nothing else there raises one). Only some
    result backends name errors of their own (Redis does; the cache backend of `make run`,
    cache+memory://, and the database ones do not)."""
    own = getattr(app.backend, "connection_errors", ())
    return (OperationalError, OSError, RuntimeError, *own)


def _unavailable() -> QueueUnavailable:
    return QueueUnavailable(
        "the task queue (Celery broker) cannot be reached, so nothing was started;"
        " try again once it is back",
        field="queue",
    )


def queue_check() -> None:
    """Raise QueueUnavailable unless the broker and the result backend answer (within the
    settings' timeouts), as queueing a task needs; without a broker (eager) there is
    nothing to reach. For an action that must not begin (clear files, say) when its tasks
    cannot be queued."""
    if app.conf.task_always_eager:
        return
    try:
        with app.connection_for_write() as connection:
            connection.ensure_connection(
                max_retries=1, interval_start=0, interval_step=0.2, interval_max=0.2
            )
        app.backend.get_task_meta("ioleval-queue-check")  # a task state read, as pages do
    except connection_errors() as error:
        logger.warning("the Celery broker or result backend cannot be reached: %s", error)
        raise _unavailable() from None


class QueuedTask(Task):
    """A task whose queueing fails with QueueUnavailable when the broker cannot be reached."""

    def apply_async(self, args=None, kwargs=None, **options):
        """Queue the task (or run it here when eager); QueueUnavailable if it cannot be sent."""
        if self.app.conf.task_always_eager:  # it runs here: its errors are its own
            return super().apply_async(args, kwargs, **options)
        try:
            return super().apply_async(args, kwargs, **options)
        except connection_errors():
            logger.exception("could not queue %s", self.name)
            raise _unavailable() from None


app = Celery("ioleval", task_cls=QueuedTask)
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

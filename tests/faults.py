"""A broker or cache that is down, for the fault tests: unreachable URLs, or a silent server."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator

from django.test import override_settings

from ioleval.celery import app as celery_app

# Nothing listens on port 1: connections are refused at once.
UNREACHABLE = "redis://127.0.0.1:1/0"


def _forget_connections() -> None:
    """Drop Celery's broker pool, producer pool and result backend, made from the old URL."""
    celery_app._pool = None
    celery_app.amqp._producer_pool = None
    celery_app._backend_cache = None
    celery_app._local.__dict__.pop("backend", None)


@contextlib.contextmanager
def broker_at(url: str) -> Iterator[None]:
    """Send tasks to the broker (and result backend) at url, as with CELERY_BROKER_URL=url.

    Celery prefers the environment's CELERY_BROKER_URL (set by .ci/run) to its broker_url
    setting, not to broker_write_url and broker_read_url: those are set too."""
    conf = celery_app.conf
    saved = conf.broker_url, conf.result_backend, conf.task_always_eager
    saved_urls = conf.get("broker_write_url"), conf.get("broker_read_url")
    conf.broker_url = conf.result_backend = url
    conf["broker_write_url"] = conf["broker_read_url"] = url
    conf.task_always_eager = False
    _forget_connections()
    try:
        yield
    finally:
        conf.broker_url, conf.result_backend, conf.task_always_eager = saved
        conf["broker_write_url"], conf["broker_read_url"] = saved_urls
        _forget_connections()


def redis_cache_at(url: str):
    """Return override_settings for a Redis cache at url, with the settings' socket timeouts."""
    from django.conf import settings

    options = settings.REDIS_CACHE_OPTIONS
    assert settings.CACHES["default"]["BACKEND"].endswith("LocMemCache")  # tests' own default
    return override_settings(
        CACHES={
            "default": {
                "BACKEND": "django.core.cache.backends.redis.RedisCache",
                "LOCATION": url,
                "OPTIONS": options,
            }
        }
    )


@contextlib.contextmanager
def silent_server() -> Iterator[str]:
    """Yield the redis:// URL of a server that accepts connections and never answers (a hung
    Redis), on a free port of 127.0.0.1; close it afterwards."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def serve() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            with contextlib.suppress(OSError):
                accepted.append(listener.accept()[0])

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"redis://127.0.0.1:{listener.getsockname()[1]}/0"
    finally:
        stop.set()
        thread.join(timeout=5)
        for connection in accepted:
            connection.close()
        listener.close()

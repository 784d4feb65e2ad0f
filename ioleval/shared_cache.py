"""The shared cache (Django's default: Redis in production) for figures that can be computed
again, with this process's memory standing in when it cannot be reached.

A page that keeps a slow computation in the cache (the result review, the context lab's
deletion comparison) reads and writes through a `FallbackCache`: a read or write the shared
cache fails goes to the process's own memory instead, so the page computes in the request
rather than failing. Once the shared cache has failed, this process leaves it alone for
RETRY_SECONDS: a cache that hangs costs each call its socket timeout, and a page makes
several calls, so it pays for one slow call, not one a read.
"""

from __future__ import annotations

import logging
import time

from django.conf import settings
from django.core.cache import cache
from django.core.cache.backends.locmem import LocMemCache
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

# What a shared cache that is down raises (Django's Redis backend: redis-py's errors).
CACHE_DOWN = (RedisError, OSError)
RETRY_SECONDS = 30
_down_until: dict[str, float] = {}  # the cache's backend and location -> when to ask again


class SharedCacheDown(ConnectionError):
    """The shared cache failed a moment ago, so it was not asked (a CACHE_DOWN error)."""


def _cache_name() -> str:
    default = settings.CACHES["default"]
    return f"{default['BACKEND']} {default.get('LOCATION', '')}"


class FallbackCache:
    """The shared cache, or this process's memory (a few entries, named `name`) for each read
    or write the shared one fails."""

    def __init__(self, name: str, *, timeout: int, max_entries: int):
        self.name = name
        self.timeout = timeout
        self.memory = LocMemCache(
            name, {"TIMEOUT": timeout, "OPTIONS": {"MAX_ENTRIES": max_entries}}
        )

    def get(self, key: str, default=None):
        """Return the value under key from the shared cache, else from this process's memory."""
        try:
            return self.shared("get", key, default)
        except CACHE_DOWN:
            return self.memory.get(key, default)

    def set(self, key: str, value, timeout: int | None = None) -> None:
        """Keep the value in the shared cache, else in this process's memory."""
        timeout = self.timeout if timeout is None else timeout
        try:
            self.shared("set", key, value, timeout)
        except CACHE_DOWN:
            self.memory.set(key, value, timeout)

    def shared(self, method: str, *args):
        """Call a method of the shared cache; a CACHE_DOWN error when it fails or failed less
        than RETRY_SECONDS ago (SharedCacheDown, without asking it)."""
        name = _cache_name()
        if time.monotonic() < _down_until.get(name, 0.0):
            raise SharedCacheDown(f"the cache failed less than {RETRY_SECONDS} s ago")
        try:
            return getattr(cache, method)(*args)
        except CACHE_DOWN as error:
            _down_until[name] = time.monotonic() + RETRY_SECONDS
            logger.warning(
                "the cache cannot be reached (%s): %s is kept in this process's memory for %d s",
                error,
                self.name,
                RETRY_SECONDS,
            )
            raise

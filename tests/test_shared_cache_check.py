"""A deployment with a worker needs one cache for all processes (the result review)."""

from __future__ import annotations

from django.test import override_settings

from ioleval.checks import check_shared_cache

LOCAL = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
REDIS = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": "redis://127.0.0.1:6379/1",
    }
}


@override_settings(CELERY_BROKER_URL="redis://127.0.0.1:6379/0", CACHES=LOCAL)
def test_a_worker_with_each_process_its_own_cache_is_warned():
    (warning,) = check_shared_cache(None)
    assert warning.id == "ioleval.W001" and "CACHE_URL" in warning.hint


@override_settings(CELERY_BROKER_URL="redis://127.0.0.1:6379/0", CACHES=REDIS)
def test_a_worker_with_a_shared_cache_is_fine():
    assert check_shared_cache(None) == []


@override_settings(CELERY_BROKER_URL="", CACHES=LOCAL)
def test_without_a_worker_the_local_cache_is_fine():
    assert check_shared_cache(None) == []

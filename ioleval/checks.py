"""Deployment checks: no demo password on a production user; a worker and the web processes
share one cache."""

from __future__ import annotations

from django.conf import settings
from django.core import checks
from django.core.checks import Error, Tags, register

DEMO_USERNAMES = ("organizer", "chair", "juror1", "juror2", "juror3", "juror4")


@register(Tags.security, deploy=True)
def check_demo_password(app_configs, **kwargs):
    """Refuse a deployment where a demo user still has the demo password."""
    from django.contrib.auth import get_user_model
    from django.db import DatabaseError

    try:
        users = list(get_user_model().objects.filter(username__in=DEMO_USERNAMES))
    except DatabaseError:
        return []
    weak = [u.username for u in users if u.check_password(settings.DEMO_PASSWORD)]
    if not weak:
        return []
    return [
        Error(
            f"users {', '.join(weak)} have the demo password",
            hint="Set real passwords (manage.py changepassword) or delete the demo users.",
            id="ioleval.E001",
        )
    ]


@register(Tags.caches, deploy=True)
def check_shared_cache(app_configs, **kwargs):
    """Warn when tasks go to a worker but each process keeps its own cache: the result review
    the worker computes would never reach the web processes."""
    backend = settings.CACHES["default"]["BACKEND"]
    if not settings.CELERY_BROKER_URL or not backend.endswith("LocMemCache"):
        return []
    return [
        checks.Warning(
            "a Celery broker is configured but the cache is each process's own memory",
            hint="Set CACHE_URL (e.g. redis://host:6379/1) for the web and worker processes.",
            id="ioleval.W001",
        )
    ]

"""Deployment checks: no demo password on a production user."""

from __future__ import annotations

from django.conf import settings
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

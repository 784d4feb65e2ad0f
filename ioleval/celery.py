"""The Celery app; tasks run in-process unless CELERY_BROKER_URL names a broker."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ioleval.settings.local")

app = Celery("ioleval")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

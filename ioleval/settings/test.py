"""Settings for the test suite: fast hashing, eager Celery unless a broker is given."""

from __future__ import annotations

from .base import *  # noqa: F403
from .base import env

DEBUG = False
SECRET_KEY = env("DJANGO_SECRET_KEY", default="test-only-not-secret")
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
ALLOWED_HOSTS = ["*"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# Each test process its own cache, whatever the environment says.
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
# Tests run tasks in-process; the one test that needs a real worker switches this off.
CELERY_TASK_ALWAYS_EAGER = True
# PDF batches render in the request, inside the test's transaction; the tests of background
# rendering set this (with a transactional database) themselves.
IOLEVAL_RENDER_THREADS = 0

# Serve static files from the source folders; no collectstatic needed.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True

"""Production settings: a real secret key is required; HTTPS everywhere."""

from __future__ import annotations

from .base import *  # noqa: F403
from .base import env

DEBUG = False
# No default: environ raises ImproperlyConfigured when DJANGO_SECRET_KEY is missing.
SECRET_KEY = env("DJANGO_SECRET_KEY")
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS")
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("DJANGO_SECURE_SSL_REDIRECT", default=True)
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_HSTS_SECONDS = env.int("DJANGO_SECURE_HSTS_SECONDS", default=60 * 60 * 24 * 30)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = env.bool("DJANGO_SECURE_HSTS_PRELOAD", default=True)
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

PRODUCTION = True

_INSECURE_KEYS = {"local-development-only-not-secret", "test-only-not-secret", "change-me"}
if SECRET_KEY in _INSECURE_KEYS or SECRET_KEY.startswith("django-insecure") or len(SECRET_KEY) < 50:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured(
        "DJANGO_SECRET_KEY must be a real secret of 50+ characters in production "
        "(python -c 'import secrets; print(secrets.token_urlsafe(64))')."
    )

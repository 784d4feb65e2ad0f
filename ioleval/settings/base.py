"""Settings shared by every environment; values come from the environment."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent.parent

env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

SECRET_KEY = env("DJANGO_SECRET_KEY", default="")
DEBUG = env.bool("DJANGO_DEBUG", default=False)
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["localhost", "127.0.0.1"])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",
    "simple_history",
    "axes",
    "ioleval.apps.IolevalConfig",
    "puzzles",
    "grading",
]

MIDDLEWARE = [
    # First: its time covers every other middleware too.
    "ioleval.middleware.ServerTimingMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "ioleval.middleware.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "simple_history.middleware.HistoryRequestMiddleware",
    # Last: turns a login refused for too many failures into the lockout page.
    "axes.middleware.AxesMiddleware",
]

# Scripts and everything else from this site only; inline styles stay allowed (the
# leaderboard's heat map, htmx's indicator style), inline scripts and eval do not.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline';"
    " img-src 'self' data:; font-src 'self'; object-src 'none'; base-uri 'none';"
    " form-action 'self'; frame-ancestors 'none'"
)

ROOT_URLCONF = "ioleval.urls"
WSGI_APPLICATION = "ioleval.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "ioleval.context_processors.roles",
            ],
        },
    },
]

DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
}
# Keep connections between requests: opening one cost 8-11 ms of every autosave.
DATABASES["default"].setdefault("CONN_MAX_AGE", env.int("DJANGO_CONN_MAX_AGE", default=60))
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # SQLite (`make run`, docs/run-a-real-jury.md) with many jurors saving at once: every
    # transaction takes the one write lock when it begins (IMMEDIATE: one that read first and
    # then wrote would fail at once, "database is locked", when another wrote in between),
    # and waits up to `timeout` seconds for it instead of failing, in turn with the other
    # transactions of its process (ioleval/sqlite/base.py). Readers never wait for the
    # writer: migrate puts the file in WAL mode (ioleval/sqlite/__init__.py). Figures:
    # benchmarks/HISTORY.md (sqlite_autosave.py).
    DATABASES["default"]["ENGINE"] = "ioleval.sqlite"
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "transaction_mode": "IMMEDIATE",
            "timeout": env.int("DJANGO_SQLITE_TIMEOUT", default=30),
        }
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# One cache for every process: the result review is computed by the Celery worker and read
# by the web processes (and cached pages survive a restart of one of them). Without it each
# process keeps its own in memory, which is enough for `make run`.
CACHES = {"default": env.cache("CACHE_URL", default="locmemcache://")}
# A Redis cache that is down or hangs answers within seconds (redis-py waits 5 s a read and
# retries); the review then computes in the request (grading.review.refresh). CACHE_URL's
# query (?socket_timeout=5) overrides these.
REDIS_CACHE_OPTIONS = {"socket_connect_timeout": 1, "socket_timeout": 2}
if CACHES["default"]["BACKEND"].endswith("RedisCache"):
    CACHES["default"]["OPTIONS"] = REDIS_CACHE_OPTIONS | CACHES["default"].get("OPTIONS", {})

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(env("DJANGO_STATIC_ROOT", default=str(BASE_DIR / "staticfiles")))
MEDIA_ROOT = Path(env("DJANGO_MEDIA_ROOT", default=str(BASE_DIR / "media")))
MEDIA_URL = "media/"

# Failed logins (django-axes, see ioleval/login_throttle.py): an account is locked after
# LOGIN_ACCOUNT_FAILURE_LIMIT failures from anywhere, an address after
# LOGIN_ADDRESS_FAILURE_LIMIT failures across accounts, until LOGIN_COOLOFF has passed since
# the last one or an organizer unlocks it (manage.py axes_reset_username NAME).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # first: refuses locked logins before any check
    # ModelBackend that gives back an attempt's failure once its password is found right.
    "ioleval.login_throttle.PasswordBackend",
]
LOGIN_ACCOUNT_FAILURE_LIMIT = env.int("DJANGO_LOGIN_FAILURE_LIMIT", default=5)
LOGIN_ADDRESS_FAILURE_LIMIT = env.int("DJANGO_LOGIN_ADDRESS_FAILURE_LIMIT", default=30)
LOGIN_COOLOFF = timedelta(minutes=env.int("DJANGO_LOGIN_COOLOFF_MINUTES", default=15))
# Reverse proxies in front of the app that append to X-Forwarded-For (0: none, trust
# REMOTE_ADDR only); the client address is that many entries from the right.
LOGIN_PROXY_COUNT = env.int("DJANGO_PROXY_COUNT", default=0)
AXES_HANDLER = "ioleval.login_throttle.AccountOrAddressHandler"
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_FAILURE_LIMIT = LOGIN_ACCOUNT_FAILURE_LIMIT
AXES_COOLOFF_TIME = LOGIN_COOLOFF
# A success does not wipe failures: axes would wipe every failure from the address, those
# against other accounts included, so one valid login would reset a guesser's count.
AXES_RESET_ON_SUCCESS = False
# Attempts while locked are refused but not counted: the lock ends LOGIN_COOLOFF after it began.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_CLIENT_IP_CALLABLE = "ioleval.login_throttle.client_address"
AXES_LOCKOUT_CALLABLE = "ioleval.login_throttle.lockout_response"
AXES_HTTP_RESPONSE_CODE = 429
AXES_VERBOSE = False  # no start-up banner in every manage.py command's output

# A set-password link (manage.py create_jurors, the accounts page) works once, and for this
# long at most; commands build absolute links on IOLEVAL_BASE_URL unless given --base-url.
PASSWORD_RESET_TIMEOUT = env.int("DJANGO_PASSWORD_LINK_DAYS", default=3) * 24 * 60 * 60
IOLEVAL_BASE_URL = env("IOLEVAL_BASE_URL", default="http://127.0.0.1:8000")

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# Uploads of system outputs for 731 systems fit; larger imports go through commands.
DATA_UPLOAD_MAX_MEMORY_SIZE = 50 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 50 * 1024 * 1024
# An import page refuses a file of more rows (CSV records, JSONL lines) or bytes than these,
# naming the command that imports it (ioleval/uploads.py): a larger file would outlast the request
# (on the page: 1,050 marks took 18 s, 3,150 took 42 s; benchmarks/HISTORY.md).
IOLEVAL_WEB_IMPORT_MAX_ROWS = env.int("IOLEVAL_WEB_IMPORT_MAX_ROWS", default=1_000)
IOLEVAL_WEB_IMPORT_MAX_BYTES = env.int("IOLEVAL_WEB_IMPORT_MAX_BYTES", default=20 * 1024 * 1024)
# PostgreSQL: seconds an autosave waits for its problem's jury row (held by a marks import or
# a new rubric version) before it is refused as "the jury is busy", rather than holding a
# web worker until gunicorn's timeout (grading/services/marks.py).
IOLEVAL_SAVE_LOCK_TIMEOUT = env.float("IOLEVAL_SAVE_LOCK_TIMEOUT", default=5.0)
# An uploaded zip is refused past these, checked before and while it is extracted.
IOLEVAL_ZIP_MAX_BYTES = env.int("IOLEVAL_ZIP_MAX_BYTES", default=500 * 1024 * 1024)
IOLEVAL_ZIP_MAX_MEMBERS = env.int("IOLEVAL_ZIP_MAX_MEMBERS", default=10_000)
IOLEVAL_ZIP_MAX_RATIO = env.int("IOLEVAL_ZIP_MAX_RATIO", default=100)

# Celery: without a broker, tasks run in-process (eager), so `make run` needs nothing else;
# their results are then kept in the process's memory, so that status pages still answer.
CELERY_BROKER_URL = env("CELERY_BROKER_URL", default="")
CELERY_RESULT_BACKEND = env("CELERY_RESULT_BACKEND", default=CELERY_BROKER_URL or "cache+memory://")
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_STORE_EAGER_RESULT = True
CELERY_TASK_EAGER_PROPAGATES = True
# A task is acknowledged when it ends, not when a worker takes it: a worker killed mid-task
# (kill -9, out of memory, a lost machine) leaves its message to be delivered again, and
# tasks are idempotent (render_papers_task skips the PDFs already written). Each worker
# process reserves one task at a time, so a lost worker strands no queue behind it.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Redis delivers an unacknowledged message again after this many seconds (kombu's default,
# an hour). It must exceed the longest task, or a task still running is started twice.
# A broker or result backend that is down or hangs costs a request about CELERY_TIMEOUT
# seconds (connect, one retry), not Celery's 20 s of retries: queueing then fails with
# ioleval.celery.QueueUnavailable, which pages show as a refusal.
CELERY_TIMEOUT = env.float("CELERY_TIMEOUT", default=2.0)
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env.int("CELERY_VISIBILITY_TIMEOUT", default=3600),
    "socket_connect_timeout": CELERY_TIMEOUT,
    "socket_timeout": CELERY_TIMEOUT,
}
CELERY_BROKER_CONNECTION_TIMEOUT = CELERY_TIMEOUT
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.2,
}
CELERY_REDIS_SOCKET_CONNECT_TIMEOUT = CELERY_TIMEOUT
CELERY_REDIS_SOCKET_TIMEOUT = CELERY_TIMEOUT
CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = {
    "retry_policy": {
        "max_retries": 0,
        "interval_start": 0,
        "interval_step": 0.2,
        "interval_max": 0.2,
    }
}
# Without a broker, a PDF batch renders on this many threads of the web process, in the
# background of the request that started it (0: in that request, which then waits for it).
IOLEVAL_RENDER_THREADS = env.int("IOLEVAL_RENDER_THREADS", default=1)
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = TIME_ZONE

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env("DJANGO_LOG_LEVEL", default="INFO")},
    # WeasyPrint logs every rendering step at INFO.
    "loggers": {"weasyprint.progress": {"level": "WARNING"}},
}

# The demo password: production refuses it (see ioleval.checks).
DEMO_PASSWORD = "ioleval-demo"

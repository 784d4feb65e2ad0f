"""A scratch PostgreSQL database on 127.0.0.1, and Django set up on it."""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from urllib.parse import urlsplit, urlunsplit

HOST = "127.0.0.1"


class SetupError(RuntimeError):
    """The benchmark could not be set up (database, server, worker, missing module)."""


def _pg_admin(url: str) -> tuple[str, str]:
    """Return (maintenance-database URL, database name) for a PostgreSQL URL."""
    parts = urlsplit(url)
    if parts.scheme not in ("postgres", "postgresql", "pgsql"):
        raise SetupError(f"--database-url must be a PostgreSQL URL, not {parts.scheme!r}")
    if parts.hostname not in ("127.0.0.1", "localhost", "::1"):
        raise SetupError("--database-url must point to a local server (127.0.0.1)")
    name = parts.path.lstrip("/")
    if not name:
        raise SetupError("--database-url must name a database, e.g. .../ioleval_jurybench")
    return urlunsplit(("postgresql", parts.netloc, "/postgres", "", "")), name


def pg_recreate(url: str) -> None:
    """Drop the database of the URL if it exists and create it empty."""
    import psycopg
    from psycopg import sql

    admin, name = _pg_admin(url)
    try:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    except psycopg.Error as exc:
        raise SetupError(f"cannot create database {name!r}: {exc}") from exc


def pg_drop(url: str) -> None:
    """Drop the database of the URL (closing its connections)."""
    import psycopg
    from psycopg import sql

    admin, name = _pg_admin(url)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )


@contextmanager
def scratch_database(url: str, *, keep: bool):
    """Create the benchmark's database afresh; at the end close Django's connections and drop
    it (unless keep), also when the run fails."""
    created = False
    try:
        pg_recreate(url)
        created = True
        yield
    finally:
        if "django" in sys.modules:
            from django.db import connections

            connections.close_all()
        if created and not keep:
            pg_drop(url)


def django_setup(database_url: str, broker_url: str) -> None:
    """Configure the environment (inherited by gunicorn and Celery) and set Django up."""
    os.environ["DJANGO_SETTINGS_MODULE"] = "ioleval.settings.local"
    os.environ["DATABASE_URL"] = database_url
    os.environ["DJANGO_DEBUG"] = "false"  # no query log; the cached template loader
    os.environ["DJANGO_ALLOWED_HOSTS"] = HOST
    os.environ["CELERY_BROKER_URL"] = broker_url
    if broker_url == "memory://":  # tasks are queued in this process and run by nobody
        os.environ.setdefault("CELERY_RESULT_BACKEND", "cache+memory://")
    os.environ.setdefault("DJANGO_LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)


def analyze() -> None:
    """Update the planner's statistics, as autovacuum would after a bulk load."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")

"""Fixtures shared by every test: users with roles, the IOL-AI data, the demo."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.contrib.auth.models import Group

from ioleval.roles import CHAIR, JUROR, ORGANIZER

REPO = Path(__file__).resolve().parent.parent
_DATA = Path("shared") / "data" / "iolai-2026"


def _iolai_dir() -> Path:
    """Return the IOL-AI data: IOLEVAL_IOLAI_DIR if set, else shared/ beside the checkout or
    beside a folder above it (a copy of the tests one level deeper, such as mutmut's mutants/,
    finds the same data)."""
    if os.environ.get("IOLEVAL_IOLAI_DIR"):
        return Path(os.environ["IOLEVAL_IOLAI_DIR"])
    found = (parent / _DATA for parent in REPO.parents if (parent / _DATA).is_dir())
    return next(found, REPO.parent / _DATA)


IOLAI_DIR = _iolai_dir()


def pytest_collection_modifyitems(config, items):
    """Set the `demo` fixture up first in every test that asks for it: its rows keep the ids
    they were loaded with, which a user or row made by an earlier fixture could hold."""
    for item in items:
        names = getattr(item, "fixturenames", None)
        if names and "demo" in names:
            names.remove("demo")
            names.insert(0, "demo")


@pytest.fixture(autouse=True)
def _media_root(settings, tmp_path_factory):
    """Keep files the tests write (PDF batches, packets) out of the checkout's media/."""
    settings.MEDIA_ROOT = tmp_path_factory.mktemp("media")


@pytest.fixture
def iolai_dir() -> Path:
    """Return the real IOL-AI 2026 results directory (read-only, never copied)."""
    if not IOLAI_DIR.is_dir():
        pytest.fail(
            f"the shared IOL-AI data is missing at {IOLAI_DIR} (set IOLEVAL_IOLAI_DIR to its folder)"
        )
    return IOLAI_DIR


def _user(django_user_model, username: str, *roles: str):
    user = django_user_model.objects.create_user(username=username, password="pw-for-tests")
    user.groups.set([Group.objects.get_or_create(name=r)[0] for r in roles])
    return user


@pytest.fixture
def organizer(db, django_user_model):
    return _user(django_user_model, "org", ORGANIZER)


@pytest.fixture
def juror(db, django_user_model):
    return _user(django_user_model, "jur", JUROR)


@pytest.fixture
def chair(db, django_user_model):
    return _user(django_user_model, "cha", CHAIR, JUROR)


@pytest.fixture
def organizer_client(client, organizer):
    client.force_login(organizer)
    return client


@pytest.fixture(scope="session")
def _demo_snapshot(django_db_setup, django_db_blocker):
    """Load the demo once per test process, in a transaction rolled back (tests/demo_snapshot.py)."""
    from tests.demo_snapshot import snapshot_take

    with django_db_blocker.unblock():
        return snapshot_take()


@pytest.fixture
def demo(db, _demo_snapshot):
    """The whole demo as `make run` loads it (competition, analytics, jury, users, context
    lab), in this test's database; returns a `Demo` (tests/demo_snapshot.py). The one way a
    test gets the demo: tests/test_fixtures.py refuses a test module that loads it itself."""
    from tests.demo_snapshot import demo_get, snapshot_restore

    snapshot_restore(_demo_snapshot)
    return demo_get()


@pytest.fixture
def demo_competition(demo):
    """The demo's competition (of the `demo` fixture)."""
    return demo.competition


@pytest.fixture
def postgres_only():
    """Skip a test of concurrent writes outside PostgreSQL (SQLite has no row locks); under
    CI, which sets DATABASE_URL to PostgreSQL, fail instead."""
    from django.db import connection

    if connection.vendor != "postgresql":
        message = "concurrency is tested on PostgreSQL (.ci/run sets DATABASE_URL)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)

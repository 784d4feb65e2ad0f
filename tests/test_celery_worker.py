"""One task through a real Celery worker process, on the real broker and database."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

import pytest
from django.conf import settings
from django.db import connection

from ioleval.celery import app as celery_app
from puzzles.models import Output
from puzzles.selectors import leaderboard
from puzzles.tasks import competition_rescore_task

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _database_url() -> str:
    db = connection.settings_dict
    host = db.get("HOST") or "127.0.0.1"
    port = db.get("PORT") or 5432
    auth = db.get("USER") or "postgres"
    if db.get("PASSWORD"):
        auth += f":{db['PASSWORD']}"
    return f"postgres://{auth}@{host}:{port}/{db['NAME']}"


def _require_real_services() -> None:
    missing = []
    if not settings.CELERY_BROKER_URL:
        missing.append("CELERY_BROKER_URL")
    if connection.vendor != "postgresql":
        missing.append("DATABASE_URL on PostgreSQL (a worker cannot share SQLite's test database)")
    if missing:
        message = "needs " + " and ".join(missing) + "; .ci/run sets both"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


@pytest.fixture
def worker():
    """Start a worker process on a queue of its own; stop it afterwards."""
    _require_real_services()
    queue = f"test-{uuid.uuid4().hex[:8]}"
    env = dict(
        os.environ, DATABASE_URL=_database_url(), DJANGO_SETTINGS_MODULE="ioleval.settings.test"
    )
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "ioleval",
            "worker",
            "--pool=solo",
            "-Q",
            queue,
            "--without-gossip",
            "--without-mingle",
            "--loglevel=warning",
        ],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    eager = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = False
    try:
        yield queue
    finally:
        celery_app.conf.task_always_eager = eager
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_rescore_task_runs_in_a_worker_process(demo_competition, worker):
    _, expected = leaderboard(demo_competition)
    Output.objects.filter(system__competition=demo_competition).update(scores={})
    _, wiped = leaderboard(demo_competition)
    assert all(r.overall.score == 0 for r in wiped)

    result = competition_rescore_task.apply_async(args=[demo_competition.pk], queue=worker)
    rescored = result.get(timeout=90)

    assert rescored == Output.objects.filter(system__competition=demo_competition).count()
    assert result.successful()
    assert type(result).__name__ == "AsyncResult"  # not an eager in-process result
    _, board = leaderboard(demo_competition)
    assert [(r.system, r.overall.score) for r in board] == [
        (r.system, r.overall.score) for r in expected
    ]


@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_pdf_batch_renders_in_a_worker_process(worker, tmp_path):
    from django.core.management import call_command

    from grading.models import Paper
    from grading.tasks import render_papers_task

    call_command("demo", stdout=open(os.devnull, "w"))
    competition_id = Paper.objects.values_list("problem__competition_id", flat=True).first()
    result = render_papers_task.apply_async(args=[competition_id, str(tmp_path), 1], queue=worker)
    written = result.get(timeout=120)

    codes = set(Paper.objects.filter(problem__number=1).values_list("code", flat=True))
    assert written == len(codes)
    assert {p.name for p in tmp_path.glob("*.pdf")} == {f"{code}.pdf" for code in codes}
    assert all(p.read_bytes().startswith(b"%PDF") for p in tmp_path.glob("*.pdf"))

"""Tasks through a real Celery worker process, on the real broker and database."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

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


def _worker_env() -> dict[str, str]:
    return dict(
        os.environ, DATABASE_URL=_database_url(), DJANGO_SETTINGS_MODULE="ioleval.settings.test"
    )


def _worker_command(queue: str, *options: str) -> list[str]:
    """Return the command of a worker that takes tasks from this queue only."""
    return [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "ioleval",
        "worker",
        "-Q",
        queue,
        "--without-gossip",
        "--without-mingle",
        *options,
    ]


@pytest.fixture
def worker():
    """Start a worker process on a queue of its own; stop it afterwards."""
    _require_real_services()
    queue = f"test-{uuid.uuid4().hex[:8]}"
    process = subprocess.Popen(
        _worker_command(queue, "--pool=solo", "--loglevel=warning"),
        cwd=REPO,
        env=_worker_env(),
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
def test_pdf_batch_renders_in_a_worker_process(demo, worker, tmp_path):
    from grading.models import Paper
    from grading.tasks import render_papers_task

    competition_id = Paper.objects.values_list("problem__competition_id", flat=True).first()
    result = render_papers_task.apply_async(args=[competition_id, str(tmp_path), 1], queue=worker)
    written = result.get(timeout=120)

    codes = set(Paper.objects.filter(problem__number=1).values_list("code", flat=True))
    assert written == len(codes)
    assert {p.name for p in tmp_path.glob("*.pdf")} == {f"{code}.pdf" for code in codes}
    assert all(p.read_bytes().startswith(b"%PDF") for p in tmp_path.glob("*.pdf"))


# --- a worker killed in the middle of a PDF batch -------------------------------------------


def _start_worker(queue: str, log: Path) -> subprocess.Popen:
    """Start `celery worker` (prefork, one child) in a process group of its own."""
    return subprocess.Popen(
        _worker_command(queue, "--pool=prefork", "--concurrency=1", "--loglevel=info"),
        cwd=REPO,
        env=_worker_env(),
        stdout=log.open("ab"),
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group: killpg reaches the children too
    )


def _kill(process: subprocess.Popen, sig: int = signal.SIGKILL) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, sig)
    process.wait(timeout=30)


def _wait_for(condition, *, timeout: float, what: str, log: Path):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    pytest.fail(f"timed out waiting for {what}; worker log:\n{log.read_text()[-3000:]}")


def _forget_queue(queue: str) -> None:
    """Remove the test queue and the killed worker's unacknowledged message from the broker."""
    import redis

    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    client.delete(queue, f"_kombu.binding.{queue}")
    for tag, payload in client.hgetall("unacked").items():
        if queue.encode() in payload:
            client.hdel("unacked", tag)
            client.zrem("unacked_index", tag)


@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_a_pdf_batch_finishes_after_its_worker_is_killed_and_a_new_one_resumes(
    demo, client, tmp_path, monkeypatch
):
    """Kill -9 a worker (and its prefork child) mid-batch; the page says stalled; resume.

    With acks_late the killed worker's message would come back by itself only after Redis's
    visibility timeout (an hour), so the test resumes as an organizer would: a new worker,
    then the page's Resume button, which queues the missing problems again.
    """
    _require_real_services()
    from django.contrib.auth import get_user_model
    from django.urls import reverse
    from pypdf import PdfReader

    from grading import batches
    from grading.models import Paper
    from grading.services import papers_create, problem_reopen
    from puzzles.models import Competition, System

    competition = Competition.objects.get(slug="demo")
    # The demo's problem 3 is finalized: new papers of it wait until the chair reopens it.
    problem_reopen(
        problem=competition.problems.get(number=3),
        chair=get_user_model().objects.get(username="chair"),
    )
    papers_create(
        competition=competition,
        system_names=list(
            # The demo's oracle is left out: its answers are its members'.
            System.objects.filter(
                competition=competition, external=False, oracle=False
            ).values_list("name", flat=True)
        ),
    )
    codes = set(Paper.objects.values_list("code", flat=True))
    assert (
        len(codes) == 21
    )  # seven systems with outputs, three problems: a few seconds of rendering
    queue = f"test-{uuid.uuid4().hex[:8]}"
    eager, default_queue = celery_app.conf.task_always_eager, celery_app.conf.task_default_queue
    celery_app.conf.task_always_eager = False
    celery_app.conf.task_default_queue = queue  # the view queues without naming a queue
    client.force_login(get_user_model().objects.get(username="organizer"))
    log = tmp_path / "worker.log"
    workers = [_start_worker(queue, log)]
    try:
        response = client.post(reverse("grading:pdf_batch", args=["demo"]))
        batch = response["Location"].rstrip("/").rsplit("/", 1)[1]
        directory = batches.batch_dir(batch)
        status_url = reverse("grading:pdf_batch_status", args=["demo", batch])

        def pdfs() -> int:
            return len(list(directory.glob("*.pdf")))

        _wait_for(lambda: 1 <= pdfs(), timeout=180, what="a first PDF", log=log)
        _kill(workers[0])  # mid-batch: SIGKILL to the worker and its child
        written = pdfs()
        assert 1 <= written < 21, written
        time.sleep(1)
        assert pdfs() == written  # nobody renders any more

        assert f"Rendering… {written} of 21 papers" in client.get(status_url).content.decode()
        monkeypatch.setattr(batches, "STALL_AFTER_SECONDS", 2)
        time.sleep(2.5)
        body = client.get(status_url).content.decode()
        assert f"Stalled: {written} of 21 papers" in body
        resume_url = reverse("grading:pdf_batch_resume", args=["demo", batch])
        assert resume_url in body
        partial = client.get(reverse("grading:pdf_batch_zip", args=["demo", batch]))
        assert (
            f'filename="demo-papers-partial-{written}-of-21.zip"' in partial["Content-Disposition"]
        )

        workers.append(_start_worker(queue, log))
        assert client.post(resume_url).status_code == 302
        _wait_for(
            lambda: "21 papers rendered." in client.get(status_url).content.decode(),
            timeout=300,
            what="the resumed batch to finish",
            log=log,
        )
    finally:
        celery_app.conf.task_always_eager = eager
        celery_app.conf.task_default_queue = default_queue
        for worker in workers:
            if worker.poll() is None:
                _kill(worker, signal.SIGTERM)
        _forget_queue(queue)

    assert {p.name for p in directory.glob("*.pdf")} == {f"{code}.pdf" for code in codes}
    for path in directory.glob("*.pdf"):
        reader = PdfReader(path)
        assert path.stem in reader.pages[0].extract_text()
    assert client.get(status_url, HTTP_HX_REQUEST="true").status_code == 286
    archive = client.get(reverse("grading:pdf_batch_zip", args=["demo", batch]))
    assert archive["Content-Disposition"] == 'attachment; filename="demo-papers.zip"'

"""PDF batches that lose their worker or a paper: stalled, failed, resumed, partial zips.

Tasks run in-process here (no broker), as under `make run`; a lost worker is a task that
was queued and never ran. tests/test_celery_worker.py kills a real worker.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from django.urls import reverse
from pypdf import PdfReader

from grading import batches
from grading import pdf as grading_pdf
from grading.models import Paper
from grading.pdf import folder as pdf_folder
from grading.tasks import render_papers_task
from ioleval.celery import app as celery_app
from ioleval.progress import DONE, Progress
from tests.grading.render_faults import paper_fails_to_render

pytestmark = pytest.mark.django_db


@pytest.fixture
def organizer(demo, client):
    from django.contrib.auth import get_user_model

    client.force_login(get_user_model().objects.get(username="organizer"))
    return client


@pytest.fixture
def lost_worker(monkeypatch):
    """Queue tasks that never run, as when the worker that took them was killed."""
    queued = []
    monkeypatch.setattr(
        render_papers_task, "apply_async", lambda *args, **kwargs: queued.append(kwargs)
    )
    return queued


def _start(client) -> str:
    response = client.post(reverse("grading:pdf_batch", args=["demo"]))
    assert response.status_code == 302
    return re.fullmatch(r"/c/demo/jury/pdf/([0-9a-f]{32})/", response["Location"])[1]


def _age(batch: str, seconds: int) -> None:
    """Make every file of the batch look written `seconds` ago."""
    then = time.time() - seconds
    for path in batches.batch_dir(batch).iterdir():
        os.utime(path, (then, then))


def _status(client, batch: str, **headers):
    return client.get(reverse("grading:pdf_batch_status", args=["demo", batch]), **headers)


def _zip(client, batch: str):
    response = client.get(reverse("grading:pdf_batch_zip", args=["demo", batch]))
    filename = re.search(r'filename="([^"]+)"', response["Content-Disposition"])[1]
    return filename, zipfile.ZipFile(io.BytesIO(response.content))


def test_a_batch_whose_worker_died_says_it_stalled_and_resumes(organizer, monkeypatch):
    queued = []
    monkeypatch.setattr(
        render_papers_task, "apply_async", lambda *args, **kwargs: queued.append(kwargs)
    )
    batch = _start(organizer)
    assert len(queued) == 3  # one task per problem, none ran
    body = _status(organizer, batch).content.decode()
    assert "Rendering… 0 of 12 papers" in body
    assert "Resume" not in body

    _age(batch, batches.STALL_AFTER_SECONDS + 5)
    body = _status(organizer, batch).content.decode()
    assert "Stalled: 0 of 12 papers" in body
    assert reverse("grading:pdf_batch_resume", args=["demo", batch]) in body
    polled = _status(organizer, batch, HTTP_HX_REQUEST="true")
    assert polled.status_code == 200  # still polled, more slowly: a worker may come back
    assert 'hx-trigger="every 5s"' in polled.content.decode()

    monkeypatch.undo()  # a worker again: tasks run (in-process here)
    response = organizer.post(reverse("grading:pdf_batch_resume", args=["demo", batch]))
    assert response.status_code == 302

    body = _status(organizer, batch).content.decode()
    assert "12 papers rendered." in body
    assert _status(organizer, batch, HTTP_HX_REQUEST="true").status_code == 286
    filename, archive = _zip(organizer, batch)
    assert filename == "demo-papers.zip"
    codes = set(Paper.objects.values_list("code", flat=True))
    assert set(archive.namelist()) == {f"{code}.pdf" for code in codes}


def test_resume_writes_only_the_missing_papers(organizer, monkeypatch):
    lost = []
    monkeypatch.setattr(render_papers_task, "apply_async", lambda *a, **kw: lost.append(kw))
    batch = _start(organizer)
    directory = batches.batch_dir(batch)
    # The worker wrote five papers before it was killed.
    grading_pdf.papers_write(list(Paper.objects.order_by("code")[:5]), directory)
    kept = sorted(directory.glob("*.pdf"))
    _age(batch, batches.STALL_AFTER_SECONDS + 5)
    os.utime(kept[0], (0, 0))
    assert "Stalled: 5 of 12 papers" in _status(organizer, batch).content.decode()
    monkeypatch.undo()
    rendered = []
    render = pdf_folder.sheets_pdf

    def sheets_pdf(sheets, *, title):
        rendered.extend(sheet.code for sheet in sheets)
        return render(sheets, title=title)

    monkeypatch.setattr(pdf_folder, "sheets_pdf", sheets_pdf)

    organizer.post(reverse("grading:pdf_batch_resume", args=["demo", batch]))

    assert len(rendered) == 7  # the five written are skipped
    assert kept[0].stat().st_mtime == 0
    assert len(list(directory.glob("*.pdf"))) == 12
    assert "12 papers rendered." in _status(organizer, batch).content.decode()


def test_a_failed_paper_is_listed_the_zip_is_partial_and_resume_retries_it(organizer, monkeypatch):
    victim = Paper.objects.order_by("code").first()
    paper_fails_to_render(
        monkeypatch, victim.code, RecursionError("maximum recursion depth exceeded")
    )
    batch = _start(organizer)

    body = _status(organizer, batch).content.decode()
    assert "Rendering failed: 11 of 12 papers rendered, 1 failed." in body
    assert f"<strong>{victim.code}</strong>: RecursionError: maximum recursion depth" in body
    assert "partial zip, 11 of 12" in body
    assert _status(organizer, batch, HTTP_HX_REQUEST="true").status_code == 286
    filename, archive = _zip(organizer, batch)
    assert filename == "demo-papers-partial-11-of-12.zip"
    assert f"{victim.code}.pdf" not in archive.namelist()
    readme = archive.read("README.txt").decode()
    assert "This zip is partial: 11 of 12 papers." in readme
    assert f"{victim.code}: RecursionError" in readme

    monkeypatch.undo()
    organizer.post(reverse("grading:pdf_batch_resume", args=["demo", batch]))
    assert "12 papers rendered." in _status(organizer, batch).content.decode()
    filename, archive = _zip(organizer, batch)
    assert filename == "demo-papers.zip" and "README.txt" not in archive.namelist()
    assert not list(batches.batch_dir(batch).glob("*.error"))


def test_a_failed_paper_queued_again_is_followed_until_its_task_ends(organizer, monkeypatch):
    """Its `.error` of the earlier try stands for nothing while the new try goes on: the page
    polled no more ("failed") and offered Resume again, each click queueing another task."""
    victim = Paper.objects.order_by("code").first()
    paper_fails_to_render(monkeypatch, victim.code, RuntimeError("no glyph"))
    batch = _start(organizer)
    monkeypatch.undo()
    _age(batch, 60)
    lost = []
    monkeypatch.setattr(render_papers_task, "apply_async", lambda **kwargs: lost.append(kwargs))
    resume = reverse("grading:pdf_batch_resume", args=["demo", batch])

    organizer.post(resume)

    body = _status(organizer, batch).content.decode()
    assert "Rendering… 11 of 12 papers" in body and resume not in body
    assert _status(organizer, batch, HTTP_HX_REQUEST="true").status_code == 200
    assert "still rendering" in organizer.post(resume, follow=True).content.decode()
    assert len(lost) == 1
    render_papers_task.apply(**lost[0])
    assert "12 papers rendered." in _status(organizer, batch).content.decode()


def test_a_zip_taken_while_rendering_says_it_is_partial(organizer, lost_worker):
    batch = _start(organizer)
    directory = batches.batch_dir(batch)
    paper = Paper.objects.order_by("code").first()
    (directory / f"{paper.code}.pdf").write_bytes(grading_pdf.paper_pdf(paper))

    body = _status(organizer, batch).content.decode()
    assert "Rendering… 1 of 12 papers" in body
    assert "partial zip, 1 of 12" in body
    filename, archive = _zip(organizer, batch)
    assert filename == "demo-papers-partial-1-of-12.zip"
    assert set(archive.namelist()) == {"README.txt", f"{paper.code}.pdf"}
    readme = archive.read("README.txt").decode()
    assert "Not rendered yet (11):" in readme
    missing = set(Paper.objects.exclude(pk=paper.pk).values_list("code", flat=True))
    assert all(f"  {code}" in readme for code in missing)


def test_a_batch_that_finishes_while_its_status_is_read_is_done_not_failed(
    organizer, lost_worker, monkeypatch
):
    """The last task ends between the look at the files and the look at the tasks.

    Its PDFs are written before it reports success; were the files listed first, the page
    would see tasks ended with papers missing, say "failed" and stop polling.
    """
    batch = _start(organizer)
    directory = batches.batch_dir(batch)

    def tasks_finishing_now(manifest):
        for code in manifest["papers"]:
            (directory / f"{code}.pdf").write_bytes(b"%PDF-")
        return {number: Progress(DONE, 4, 4) for number in manifest["tasks"]}

    monkeypatch.setattr(batches, "_task_progress", tasks_finishing_now)
    competition = Paper.objects.first().problem.competition
    state = batches.batch_state(batch, batches.batch_manifest(directory, competition))

    assert state.progress.state == DONE
    assert state.missing == [] and len(state.written) == 12


def test_resume_of_a_complete_batch_changes_nothing(organizer):
    batch = _start(organizer)
    response = organizer.post(
        reverse("grading:pdf_batch_resume", args=["demo", batch]), follow=True
    )
    assert "nothing to resume" in response.content.decode()
    assert (
        organizer.get(reverse("grading:pdf_batch_resume", args=["demo", batch])).status_code == 405
    )
    assert (
        organizer.post(reverse("grading:pdf_batch_resume", args=["demo", "a" * 32])).status_code
        == 404
    )


def test_a_task_delivered_again_skips_the_papers_written(organizer, tmp_path, monkeypatch):
    competition = Paper.objects.first().problem.competition
    assert render_papers_task.delay(competition.pk, str(tmp_path), 1).get() == 4
    first = {p.name: p.read_bytes() for p in tmp_path.glob("*.pdf")}
    rendered = []
    monkeypatch.setattr(
        pdf_folder, "sheets_pdf", lambda sheets, *, title: rendered.append(sheets) or b""
    )

    assert render_papers_task.delay(competition.pk, str(tmp_path), 1).get() == 0

    assert rendered == []
    assert {p.name: p.read_bytes() for p in tmp_path.glob("*.pdf")} == first
    assert all(PdfReader(io.BytesIO(data)).pages for data in first.values())


def test_celery_acknowledges_late_and_requeues_on_a_lost_worker():
    conf = celery_app.conf
    assert conf.task_acks_late is True
    assert conf.task_reject_on_worker_lost is True
    assert conf.worker_prefetch_multiplier == 1
    assert conf.broker_transport_options["visibility_timeout"] >= 600


def test_a_batch_still_rendering_is_not_resumed(organizer, lost_worker):
    batch = _start(organizer)
    response = organizer.post(
        reverse("grading:pdf_batch_resume", args=["demo", batch]), follow=True
    )
    assert "this batch is still rendering" in response.content.decode()
    assert len(lost_worker) == 3  # nothing queued again


class _WorkerDied(BaseException):
    """What a killed worker looks like from inside: the rendering never returns."""


def test_a_paper_that_kills_its_worker_is_reported_after_two_tries(demo, tmp_path, monkeypatch):
    competition = Paper.objects.first().problem.competition
    deadly = Paper.objects.filter(problem__number=1).order_by("code").first().code
    paper_fails_to_render(monkeypatch, deadly, _WorkerDied())
    failing = pdf_folder.sheets_pdf
    tries = []

    def counted(sheets, *, title):
        tries.extend(sheet.code for sheet in sheets)
        return failing(sheets, title=title)

    monkeypatch.setattr(pdf_folder, "sheets_pdf", counted)
    # Each delivery of the task dies on the same paper (acks_late delivers it again) ...
    for _ in range(2):
        with pytest.raises(_WorkerDied):
            render_papers_task.delay(competition.pk, str(tmp_path), 1).get()
    # ... until the paper is given up and the rest of the problem is written.
    assert render_papers_task.delay(competition.pk, str(tmp_path), 1).get() == 3
    assert tries.count(deadly) == 2  # rendered twice, then given up before a third
    assert "stopped 2 times" in (tmp_path / f"{deadly}.error").read_text()
    assert len(list(tmp_path.glob("*.pdf"))) == 3
    # No attempt counters or partial files left; each PDF's rubric note stays beside it.
    assert {path.suffix for path in tmp_path.glob(".*")} == {".rubric"}
    assert len(list(tmp_path.glob(".*.rubric"))) == 3


def test_a_paper_whose_worker_was_killed_once_renders_on_resume(demo, tmp_path, monkeypatch):
    competition = Paper.objects.first().problem.competition
    first = Paper.objects.filter(problem__number=1).order_by("code").first().code
    real_pdf = pdf_folder.sheets_pdf
    monkeypatch.setattr(
        pdf_folder, "sheets_pdf", lambda sheets, *, title: (_ for _ in ()).throw(_WorkerDied)
    )
    with pytest.raises(_WorkerDied):
        render_papers_task.delay(competition.pk, str(tmp_path), 1).get()
    monkeypatch.setattr(pdf_folder, "sheets_pdf", real_pdf)

    assert render_papers_task.delay(competition.pk, str(tmp_path), 1).get() == 4
    assert (tmp_path / f"{first}.pdf").exists()
    assert not list(tmp_path.glob("*.error"))


@pytest.mark.django_db(transaction=True)
def test_without_a_worker_the_batch_renders_in_the_background_of_the_web_process(
    organizer, settings
):
    """Eager Celery (no broker): the request answers at once, a thread of the process
    renders, and the same status page follows it to the end."""
    settings.IOLEVAL_RENDER_THREADS = 1
    assert celery_app.conf.task_always_eager
    started = time.monotonic()
    batch = _start(organizer)
    answered = time.monotonic() - started
    written = len(list(batches.batch_dir(batch).glob("*.pdf")))
    assert written < 12, f"the request rendered {written} papers in {answered:.1f} s"
    assert "Rendering…" in _status(organizer, batch).content.decode()

    deadline = time.monotonic() + 240
    while "12 papers rendered." not in _status(organizer, batch).content.decode():
        assert time.monotonic() < deadline, "the background rendering did not finish"
        time.sleep(0.5)
    assert _status(organizer, batch, HTTP_HX_REQUEST="true").status_code == 286
    filename, archive = _zip(organizer, batch)
    assert filename == "demo-papers.zip" and len(archive.namelist()) == 12


_EXIT_WHILE_RENDERING = """
import os, sys, threading, time
from pathlib import Path

os.environ["DJANGO_SETTINGS_MODULE"] = "ioleval.settings.test"
import django

django.setup()
from django.conf import settings

from grading import batches

settings.IOLEVAL_RENDER_THREADS = 2
rendering = threading.Event()


def slow(args, task_id):  # a paper that takes minutes, as at IOL scale
    rendering.set()
    time.sleep(300)


batches._render_here = slow
for number in (1, 2, 3):  # two rendering, one waiting in the queue
    batches._task_start(1, Path("/nonexistent"), number, f"t{number}")
assert rendering.wait(30)
names = sorted(t.name for t in threading.enumerate() if t.name.startswith("ioleval-pdf"))
print(names, all(t.daemon for t in threading.enumerate() if t.name in names), flush=True)
"""


def test_the_process_exits_while_its_renderer_threads_still_render():
    """Ctrl+C under `make run`, a gunicorn worker's graceful restart: the exit does not wait
    for the background rendering (a thread pool joined every queued paper first); the batch
    then stalls and is resumed."""
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", _EXIT_WHILE_RENDERING],
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['ioleval-pdf-0', 'ioleval-pdf-1'] True"
    assert time.monotonic() - started < 60  # not the 300 s of the papers being rendered

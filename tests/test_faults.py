"""A broker that cannot be reached: starting a PDF batch or a rescoring is refused with a
message within seconds and leaves nothing behind; status pages answer from what they can.

The broker is a real URL on which nothing listens (tests/faults.py), or a server that never
answers; grading's review page and finalization: tests/grading/review/test_review_refresh.py.
"""

from __future__ import annotations

import time
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.urls import reverse

from grading.models import Paper
from grading.tasks import render_papers_task
from puzzles.models import Output
from tests.faults import UNREACHABLE, broker_at, silent_server

pytestmark = pytest.mark.django_db

REFUSAL = "the task queue (Celery broker) cannot be reached, so nothing was started"


@pytest.fixture
def organizer(demo, client):
    client.force_login(get_user_model().objects.get(username="organizer"))
    return client


def _batches() -> list[Path]:
    folder = Path(settings.MEDIA_ROOT) / "papers"
    return sorted(folder.iterdir()) if folder.exists() else []


def _messages(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def test_a_batch_that_cannot_be_queued_is_refused_and_leaves_no_folder(organizer):
    with broker_at(UNREACHABLE):
        started = time.monotonic()
        response = organizer.post(reverse("grading:pdf_batch", args=["demo"]), follow=True)
        assert time.monotonic() - started < 10
    assert response.redirect_chain[-1][0] == reverse("grading:jury", args=["demo"])
    assert _messages(response) == [REFUSAL + "; try again once it is back"]
    assert _batches() == []


def test_a_batch_on_a_broker_that_hangs_is_refused_within_seconds(organizer):
    with silent_server() as url, broker_at(url):
        started = time.monotonic()
        response = organizer.post(reverse("grading:pdf_batch", args=["demo"]), follow=True)
        assert time.monotonic() - started < 15
    assert REFUSAL in _messages(response)[0]
    assert _batches() == []


def test_a_batch_status_answers_from_its_files_while_the_backend_is_down(organizer, monkeypatch):
    monkeypatch.setattr(render_papers_task, "apply_async", lambda *args, **kwargs: None)
    response = organizer.post(reverse("grading:pdf_batch", args=["demo"]))
    monkeypatch.undo()
    status = response["Location"]
    with broker_at(UNREACHABLE):
        page = organizer.get(status)
        polled = organizer.get(status, HTTP_HX_REQUEST="true")
    assert page.status_code == 200
    assert "Rendering… 0 of 12 papers" in page.content.decode()
    assert polled.status_code == 200


def test_a_rescoring_that_cannot_be_queued_is_refused(organizer):
    before = sorted(Output.objects.values_list("pk", "updated_at"))
    url = reverse("puzzles:rescore", args=["demo"])
    with broker_at(UNREACHABLE):
        page = organizer.post(url, follow=True)
        htmx = organizer.post(url, HTTP_HX_REQUEST="true")
    assert page.redirect_chain[-1][0] == reverse("puzzles:competition", args=["demo"])
    assert _messages(page) == [REFUSAL + "; try again once it is back"]
    # htmx: the browser goes to the page with the message, not a fragment in the form
    assert htmx["HX-Redirect"] == reverse("puzzles:competition", args=["demo"])
    assert sorted(Output.objects.values_list("pk", "updated_at")) == before


def test_a_rescoring_status_says_the_backend_cannot_be_reached(organizer):
    url = reverse("puzzles:rescore_status", args=["demo", "f" * 32])
    with broker_at(UNREACHABLE):
        polled = organizer.get(url, HTTP_HX_REQUEST="true")
        page = organizer.get(url, follow=True)
    assert polled.status_code == 200  # polled again, more slowly
    assert 'hx-trigger="every 5s"' in polled.content.decode()
    assert "the task queue cannot be reached" in polled.content.decode()
    assert "The task queue cannot be reached" in _messages(page)[0]


def test_a_render_task_goes_on_when_its_progress_cannot_be_recorded(
    organizer, tmp_path, monkeypatch, caplog
):
    """A worker's result backend blips: the PROGRESS reports fail (fast, as the settings
    want for the web), are logged, and every paper is still rendered (the files are the
    truth). The end state is left to Celery, which a worker stores itself: not here."""
    monkeypatch.setattr(render_papers_task, "store_eager_result", False)
    competition_id = Paper.objects.first().problem.competition_id
    with broker_at(UNREACHABLE):
        result = render_papers_task.apply(args=[competition_id, str(tmp_path), 1], task_id="t-1")
    assert result.state == "SUCCESS" and result.get() == 4
    assert len(list(tmp_path.glob("*.pdf"))) == 4
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert "task t-1: progress 0 of 4 not recorded (result backend unreachable)" in warnings


def test_render_papers_with_the_broker_down_is_refused_and_leaves_the_folder_as_it_was(
    organizer, tmp_path
):
    """The command cleared the folder's PDFs, then failed to queue, with a traceback."""
    out = tmp_path / "papers"
    out.mkdir()
    for code in Paper.objects.values_list("code", flat=True):
        (out / f"{code}.pdf").write_bytes(b"%PDF- an earlier rendering")
        (out / f".{code}.rubric").write_text('{"rubric": "v1 \\u00b7 0"}')
    before = {path.name: path.read_bytes() for path in out.iterdir()}
    fresh = tmp_path / "new"
    for folder, flags in ((out, []), (out, ["--resume"]), (fresh, [])):
        with broker_at(UNREACHABLE), pytest.raises(CommandError) as refused:
            call_command("render_papers", "demo", "--out", str(folder), *flags, stdout=StringIO())
        assert REFUSAL in str(refused.value)
    assert {path.name: path.read_bytes() for path in out.iterdir()} == before
    assert not fresh.exists()

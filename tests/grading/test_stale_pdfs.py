"""PDFs state their rubric; rendering into a folder again replaces the PDFs whose rubric
changed since, and says which (render_papers' output, the batch page)."""

from __future__ import annotations

import io
import os
import re
import time
import zipfile
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.urls import reverse
from pypdf import PdfReader

from grading import batches
from grading.models import Paper
from grading.pdf import paper_pdf
from grading.services import rubric_replace, rubric_specs, rubrics_export
from grading.tasks import render_papers_task
from puzzles.models import Competition
from tests.grading.render_faults import paper_fails_to_render

pytestmark = pytest.mark.django_db


@pytest.fixture
def competition(demo):
    return demo.competition


def _text(data: bytes) -> str:
    return " ".join(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages)


def _revise(competition: Competition, number: int) -> None:
    """Give problem `number` a new rubric version whose first criterion is retitled."""
    problem = competition.problems.get(number=number)
    current = rubrics_export(competition)
    criteria = next(p["criteria"] for p in current["problems"] if p["problem"] == number)
    criteria[0]["title"] += " (revised)"
    specs = rubric_specs(problem=problem, criteria=criteria, where="test")
    rubric_replace(problem=problem, specs=specs, new_version=True)


def _render(*args: str) -> str:
    out = StringIO()
    call_command("render_papers", *args, stdout=out)
    return out.getvalue()


def test_a_pdf_states_its_rubric_version(competition):
    paper = Paper.objects.filter(problem__number=1).order_by("code").first()
    assert re.search(r"Rubric v1 · [0-9a-f]{8}", _text(paper_pdf(paper)))
    _revise(competition, 1)
    assert re.search(r"Rubric v2 · [0-9a-f]{8}", _text(paper_pdf(paper)))


def test_render_papers_replaces_the_pdfs_whose_rubric_changed_and_names_them(competition, tmp_path):
    out = tmp_path / "papers"
    _render("demo", "--out", str(out))
    others = {p: p.stat().st_mtime_ns for p in out.glob("*.pdf")}
    _revise(competition, 1)
    changed = sorted(Paper.objects.filter(problem__number=1).values_list("code", flat=True))

    printed = _render("demo", "--out", str(out), "--resume")

    assert f"Replaced {len(changed)} PDFs printed with a rubric that has changed since:" in printed
    for code in changed:
        assert re.search(rf"{code}: printed with rubric v1 · \w+, now v2 · \w+", printed)
        assert "Rubric v2" in _text((out / f"{code}.pdf").read_bytes())
    kept = {p: t for p, t in others.items() if p.stem not in changed}
    assert kept and all(p.stat().st_mtime_ns == t for p, t in kept.items())  # not rendered
    assert "Replaced" not in _render("demo", "--out", str(out), "--resume")  # all current


@pytest.fixture
def organizer(client, competition):
    client.force_login(get_user_model().objects.get(username="organizer"))
    return client


def test_the_batch_page_lists_stale_pdfs_and_rerendering_replaces_them(organizer, competition):
    started = organizer.post(reverse("grading:pdf_batch", args=["demo"]))
    batch = started["Location"].rstrip("/").rsplit("/", 1)[1]
    status = reverse("grading:pdf_batch_status", args=["demo", batch])
    assert "12 papers rendered." in organizer.get(status).content.decode()
    _revise(competition, 1)
    changed = sorted(Paper.objects.filter(problem__number=1).values_list("code", flat=True))

    body = organizer.get(status).content.decode()
    assert f"{len(changed)} of these PDFs were printed with a rubric that has changed" in body
    for code in changed:
        assert f"{code}: printed with rubric v1" in body
    assert "Re-render the papers whose rubric changed" in body
    zipped = organizer.get(reverse("grading:pdf_batch_zip", args=["demo", batch]))
    assert f"demo-papers-{len(changed)}-stale.zip" in zipped["Content-Disposition"]

    resumed = organizer.post(reverse("grading:pdf_batch_resume", args=["demo", batch]))
    assert resumed.status_code == 302
    body = organizer.get(status).content.decode()
    assert "changed since" not in body
    assert f"Replaced because their rubric had changed ({len(changed)})" in body
    for code in changed:
        assert f"{code}: was rubric v1" in body
        pdf = batches.batch_dir(batch) / f"{code}.pdf"
        assert "Rubric v2" in _text(pdf.read_bytes())


def test_render_papers_lists_as_replaced_only_the_pdfs_it_replaced(
    competition, tmp_path, monkeypatch
):
    """A stale paper whose new rendering fails keeps its old PDF: it is named as failed,
    never as replaced."""
    out = tmp_path / "papers"
    _render("demo", "--out", str(out))
    _revise(competition, 1)
    changed = sorted(Paper.objects.filter(problem__number=1).values_list("code", flat=True))
    victim = changed[0]
    paper_fails_to_render(monkeypatch, victim, RuntimeError("no glyph"))

    printed, errors = StringIO(), StringIO()
    with pytest.raises(CommandError, match=f"1 of 12 papers failed to render: {victim}"):
        call_command(
            "render_papers", "demo", "--out", str(out), "--resume", stdout=printed, stderr=errors
        )

    printed = printed.getvalue()
    assert f"Replaced {len(changed) - 1} PDFs printed with a rubric" in printed
    assert victim not in printed
    assert all(f"  {code}: printed with rubric v1" in printed for code in changed[1:])
    assert f"{victim}: RuntimeError: no glyph" in errors.getvalue()
    assert "Rubric v1" in _text((out / f"{victim}.pdf").read_bytes())  # the old one, kept


def _batch_of(response) -> str:
    return response["Location"].rstrip("/").rsplit("/", 1)[1]


def _age(batch: str, seconds: int) -> None:
    """Make every file of the batch look written `seconds` ago (before any resume)."""
    then = time.time() - seconds
    for path in batches.batch_dir(batch).iterdir():
        os.utime(path, (then, then))


def test_re_rendering_stale_pdfs_is_followed_until_they_are_replaced(
    organizer, competition, monkeypatch
):
    """Resume on a finished batch queues the stale papers' problem; until that task ends the
    page says they are being rendered, polls, and offers no second Resume (each click
    queued another task, and the page said "done" with the stale list and the button)."""
    batch = _batch_of(organizer.post(reverse("grading:pdf_batch", args=["demo"])))
    status = reverse("grading:pdf_batch_status", args=["demo", batch])
    resume = reverse("grading:pdf_batch_resume", args=["demo", batch])
    _age(batch, 60)
    _revise(competition, 1)
    changed = sorted(Paper.objects.filter(problem__number=1).values_list("code", flat=True))
    queued = []  # a worker that has taken the task and not run it yet
    monkeypatch.setattr(render_papers_task, "apply_async", lambda **kwargs: queued.append(kwargs))

    assert organizer.post(resume).status_code == 302
    assert len(queued) == 1

    body = organizer.get(status).content.decode()
    assert f"Rendering… {12 - len(changed)} of 12 papers" in body
    assert "printed with a rubric that has changed since" not in body
    assert resume not in body  # no button
    polled = organizer.get(status, HTTP_HX_REQUEST="true")
    assert polled.status_code == 200 and 'hx-trigger="every 1s"' in polled.content.decode()
    again = organizer.post(resume, follow=True)
    assert "this batch is still rendering" in again.content.decode()
    assert len(queued) == 1  # nothing queued a second time

    render_papers_task.apply(**queued[0])  # the worker runs it
    body = organizer.get(status).content.decode()
    assert "12 papers rendered." in body
    assert f"Replaced because their rubric had changed ({len(changed)})" in body
    assert organizer.get(status, HTTP_HX_REQUEST="true").status_code == 286


def test_a_stale_pdf_whose_re_rendering_fails_is_listed_as_failed(
    organizer, competition, monkeypatch
):
    batch = _batch_of(organizer.post(reverse("grading:pdf_batch", args=["demo"])))
    status = reverse("grading:pdf_batch_status", args=["demo", batch])
    _age(batch, 60)
    _revise(competition, 1)
    victim = Paper.objects.filter(problem__number=1).order_by("code").first().code
    paper_fails_to_render(monkeypatch, victim, RuntimeError("no glyph"))

    organizer.post(reverse("grading:pdf_batch_resume", args=["demo", batch]))

    body = organizer.get(status).content.decode()
    assert "Rendering failed: 11 of 12 papers rendered, 1 failed." in body
    assert f"<strong>{victim}</strong>: RuntimeError: no glyph" in body
    assert f"{victim}: printed with" not in body  # its old PDF is not offered as a paper
    assert "Resume: render the missing papers" in body
    zipped = organizer.get(reverse("grading:pdf_batch_zip", args=["demo", batch]))
    archive = zipfile.ZipFile(io.BytesIO(zipped.content))
    assert f"{victim}.pdf" not in archive.namelist()
    assert f"{victim}: RuntimeError: no glyph" in archive.read("README.txt").decode()

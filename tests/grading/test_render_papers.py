"""The `render_papers` command and the PDF tasks behind it."""

from __future__ import annotations

import io
import re
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.files.storage import default_storage
from django.core.management import call_command
from django.core.management.base import CommandError
from pypdf import PdfReader

from grading.models import Assignment, Paper
from grading.tasks import render_packet_task, render_papers_task
from puzzles.models import System
from tests.puzzles.factories import OutputFactory


@pytest.fixture
def competition(demo):
    return demo.competition


def _render(*args: str) -> str:
    out = StringIO()
    call_command("render_papers", *args, stdout=out)
    return out.getvalue()


def test_writes_one_pdf_per_paper_named_by_code_only(competition, tmp_path):
    out = tmp_path / "papers"
    printed = _render("demo", "--out", str(out))

    codes = set(
        Paper.objects.filter(problem__competition=competition).values_list("code", flat=True)
    )
    assert len(codes) == 12
    # Each PDF, and beside it the note of the rubric it was printed with.
    assert {p.name for p in out.iterdir()} == {f"{code}.pdf" for code in codes} | {
        f".{code}.rubric" for code in codes
    }
    assert re.search(r"^12 PDF papers written to .* in \d+\.\d s$", printed.strip())

    secrets = [
        value.lower()
        for system in System.objects.filter(competition=competition)
        for value in (system.name, system.team)
        if value
    ]
    for note in out.glob(".*.rubric"):
        assert not any(secret in note.read_text().lower() for secret in secrets)
    for path in out.glob("*.pdf"):
        data = path.read_bytes()
        assert data.startswith(b"%PDF")
        reader = PdfReader(io.BytesIO(data))
        text = "\n".join(page.extract_text() for page in reader.pages).lower()
        assert path.stem.lower() in text
        for secret in secrets:
            assert secret not in path.name.lower()
            assert secret not in text
            assert secret not in str(reader.metadata).lower()


def test_one_problem_only(competition, tmp_path):
    printed = _render("demo", "--out", str(tmp_path), "--problem", "2")
    assert printed.startswith("4 PDF papers")
    assert sorted(p.name[:3] for p in tmp_path.glob("*.pdf")) == ["P2-"] * 4


def test_unknown_slug_or_problem_is_an_error(competition, tmp_path):
    with pytest.raises(CommandError, match="no competition 'nope'"):
        _render("nope", "--out", str(tmp_path))
    with pytest.raises(CommandError, match="no problem 9"):
        _render("demo", "--out", str(tmp_path), "--problem", "9")
    assert list(tmp_path.iterdir()) == []


def test_a_competition_without_papers_is_an_error(db, tmp_path):
    OutputFactory(task__problem__competition__slug="bare")  # a system's answers, no papers
    with pytest.raises(CommandError, match="no papers in bare"):
        _render("bare", "--out", str(tmp_path))
    assert list(tmp_path.iterdir()) == []


def test_task_reports_progress(competition, tmp_path, monkeypatch):
    states = []
    monkeypatch.setattr(render_papers_task, "update_state", lambda **kwargs: states.append(kwargs))
    result = render_papers_task.delay(competition.pk, str(tmp_path), 3)
    assert result.get() == 4
    assert [s["meta"] for s in states] == [{"done": n, "total": 4} for n in range(5)]
    assert {s["state"] for s in states} == {"PROGRESS"}


def test_packet_task_stores_the_packet_under_an_opaque_name(competition, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    juror = get_user_model().objects.get(username="juror3")
    problem = competition.problems.get(number=2)
    codes = sorted(
        Assignment.objects.filter(juror=juror, paper__problem=problem).values_list(
            "paper__code", flat=True
        )
    )
    assert codes

    name = render_packet_task.delay(juror.pk, problem.pk).get()

    assert re.fullmatch(r"packets/[0-9a-f]{32}\.pdf", name)
    with default_storage.open(name) as handle:
        reader = PdfReader(handle)
        text = "\n".join(page.extract_text() for page in reader.pages)
    assert all(code in text for code in codes)
    assert (tmp_path / name).is_file()


class _NeverReady:
    """A task queued to a worker that was lost: it never ends."""

    def ready(self) -> bool:
        return False


def test_a_lost_worker_stops_the_command_with_a_way_to_resume(competition, tmp_path, monkeypatch):
    out = tmp_path / "papers"
    _render("demo", "--out", str(out), "--problem", "1")
    written = {p.name: p.stat().st_mtime_ns for p in out.glob("*.pdf")}
    monkeypatch.setattr(render_papers_task, "delay", lambda *args: _NeverReady())

    with pytest.raises(CommandError, match=r"no paper written for 1 s.*--resume"):
        _render("demo", "--out", str(out), "--problem", "1", "--stall-after", "1", "--resume")
    # --resume kept what was there.
    assert {p.name: p.stat().st_mtime_ns for p in out.glob("*.pdf")} == written


def test_resume_renders_only_the_missing_papers(competition, tmp_path):
    out = tmp_path / "papers"
    _render("demo", "--out", str(out), "--problem", "2")
    kept, removed = sorted(out.glob("*.pdf"))[:2]
    before = kept.stat().st_mtime_ns
    removed.unlink()

    printed = _render("demo", "--out", str(out), "--problem", "2", "--resume")

    assert printed.startswith("1 PDF papers written")
    assert kept.stat().st_mtime_ns == before
    assert PdfReader(io.BytesIO(removed.read_bytes())).pages

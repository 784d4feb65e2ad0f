"""PDF pages: a juror's paper and packet; the organizers' batch with progress and zip."""

from __future__ import annotations

import io
import re
import zipfile

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from grading.models import Assignment, Paper
from tests.puzzles.factories import CompetitionFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def jury(demo, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path


def _login(client, username):
    client.force_login(get_user_model().objects.get(username=username))
    return client


def test_juror_downloads_own_paper_only(client, jury):
    assignment = Assignment.objects.filter(juror__username="juror3").select_related("paper").first()
    client = _login(client, "juror3")
    response = client.get(reverse("grading:paper_pdf", args=[assignment.paper.code]))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert response["Content-Disposition"] == f'attachment; filename="{assignment.paper.code}.pdf"'
    assert response.content.startswith(b"%PDF")
    foreign = Paper.objects.exclude(assignments__juror__username="juror3").first()
    assert client.get(reverse("grading:paper_pdf", args=[foreign.code])).status_code == 404


def test_organizer_opens_any_single_paper_and_a_chair_only_their_own(client, jury):
    unassigned = Paper.objects.exclude(assignments__juror__username="chair").first()
    organizer = _login(client, "organizer")
    for paper in (unassigned, Paper.objects.order_by("-code").first()):
        response = organizer.get(reverse("grading:paper_pdf", args=[paper.code]))
        assert response.status_code == 200 and response.content.startswith(b"%PDF")
        assert response["Content-Disposition"] == f'attachment; filename="{paper.code}.pdf"'
    assert organizer.get(reverse("grading:paper_pdf", args=["P9-ZZZZ"])).status_code == 404
    # The comparison sheet links each paper's PDF for organizers.
    sheet = organizer.get(reverse("grading:sheet", args=["demo", unassigned.problem.number]))
    assert reverse("grading:paper_pdf", args=[unassigned.code]) in sheet.content.decode()
    chair = _login(client, "chair")
    assert chair.get(reverse("grading:paper_pdf", args=[unassigned.code])).status_code == 404


def test_packet_needs_an_assignment_in_the_problem(client, jury):
    client = _login(client, "juror4")
    mine = (
        Assignment.objects.filter(juror__username="juror4").select_related("paper__problem").first()
    )
    response = client.get(reverse("grading:packet_pdf", args=[mine.paper.problem_id]))
    assert response.status_code == 200 and response.content.startswith(b"%PDF")
    other = (
        Paper.objects.exclude(problem=mine.paper.problem)
        .exclude(problem__papers__assignments__juror__username="juror4")
        .first()
    )
    assert client.get(reverse("grading:packet_pdf", args=[other.problem_id])).status_code == 403


def test_organizer_renders_the_batch_and_downloads_a_zip(client, jury, tmp_path):
    client = _login(client, "organizer")
    response = client.post(reverse("grading:pdf_batch", args=["demo"]))
    assert response.status_code == 302  # to the batch's page: a reload does not start another
    status_url = response["Location"]
    task_id = re.fullmatch(r"/c/demo/jury/pdf/([0-9a-f]{32})/", status_url).group(1)
    # Eager in tests (as without a broker): done at once; the page says so, polling stops.
    body = client.get(status_url).content.decode()
    assert f"{Paper.objects.count()} papers rendered" in body
    assert client.get(status_url, HTTP_HX_REQUEST="true").status_code == 286
    archive = client.get(reverse("grading:pdf_batch_zip", args=["demo", task_id]))
    names = zipfile.ZipFile(io.BytesIO(archive.content)).namelist()
    codes = {f"{code}.pdf" for code in Paper.objects.values_list("code", flat=True)}
    assert set(names) == codes
    assert client.get("/c/demo/jury/pdf/..%2F..%2Fetc/papers.zip").status_code == 404
    CompetitionFactory(slug="other")  # a batch is reached under its own competition only
    assert client.get(reverse("grading:pdf_batch_zip", args=["other", task_id])).status_code == 404
    assert client.get(f"/c/demo/jury/pdf/{task_id}%0A/papers.zip").status_code == 404
    assert client.get(reverse("grading:pdf_batch_zip", args=["demo", "f" * 32])).status_code == 404


def test_an_unknown_batch_is_a_404_not_an_endless_poll(client, jury):
    client = _login(client, "organizer")
    url = reverse("grading:pdf_batch_status", args=["demo", "a" * 32])
    assert client.get(url).status_code == 404
    assert client.get(url, HTTP_HX_REQUEST="true").status_code == 404


def test_jurors_cannot_start_or_fetch_batches(client, jury):
    client = _login(client, "juror1")
    assert client.post(reverse("grading:pdf_batch", args=["demo"])).status_code == 403
    assert client.get(reverse("grading:pdf_batch_zip", args=["demo", "0" * 32])).status_code == 403

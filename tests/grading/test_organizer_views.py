"""Organizer jury pages: groups, tags, rubric and marks uploads, with their error messages."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.contrib.messages import get_messages
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from grading.models import Assignment, Mark, ObservationTag, ProblemJuror, Resolution
from tests.grading.factories import MarkFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def organizer_client(client, demo):
    client.force_login(get_user_model().objects.get(username="organizer"))
    return client


def _messages(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def test_group_page_adds_jurors_and_refuses_strangers(organizer_client):
    url = reverse("grading:group", args=["demo"])
    response = organizer_client.post(url, {"problem": 2, "jurors": "juror4"})
    assert ProblemJuror.objects.filter(problem__number=2, juror__username="juror4").exists()
    response = organizer_client.post(url, {"problem": 2, "jurors": "nobody"})
    # Jurors are picked from a list of accounts: a name off the list is refused, on the
    # jury page again (422) with the form as it was filled.
    assert response.status_code == 422
    errors = response.context["group_form"].errors
    assert "nobody is not one of the available choices" in errors["jurors"].as_text()
    response = organizer_client.post(url, {"problem": 9, "jurors": "juror4"})
    assert response.status_code == 422
    assert "no problem 9" in response.context["group_form"].errors["problem"].as_text()
    page = response.content.decode()
    assert 'name="problem" value="9"' in page and 'id="id_problem_error"' in page
    assert 'value="juror4" id="id_jurors_' in page and "checked" in page
    response = organizer_client.post(url, {"problem": 2, "jurors": "juror4", "remove": "1"})
    assert "juror4 out of its group" in _messages(response)[-1]
    assert not ProblemJuror.objects.filter(problem__number=2, juror__username="juror4").exists()


def test_group_form_typed_wrong_comes_back_with_what_was_typed(organizer_client):
    before = set(ProblemJuror.objects.values_list("problem_id", "juror_id"))
    url = reverse("grading:group", args=["demo"])
    response = organizer_client.post(url, {"problem": "0", "jurors": "juror4"})
    assert response.status_code == 422
    page = response.content.decode()
    assert 'name="problem" value="0"' in page
    assert re.search(r'value="juror4" id="id_jurors_\d+" checked', page)
    assert "greater than or equal to 1" in page and 'id="id_problem_error"' in page
    assert set(ProblemJuror.objects.values_list("problem_id", "juror_id")) == before


def test_assign_form_typed_wrong_comes_back_with_what_was_typed(organizer_client):
    before = set(Assignment.objects.values_list("pk", flat=True))
    url = reverse("grading:assign", args=["demo"])
    response = organizer_client.post(url, {"per_paper": "25", "allow_seen": "on"})
    assert response.status_code == 422
    page = response.content.decode()
    assert 'name="per_paper" value="25"' in page and 'id="id_assign_per_paper_error"' in page
    assert "less than or equal to 20" in page
    assert re.search(r'name="allow_seen"[^>]*id="id_assign_allow_seen"[^>]*checked', page)
    assert set(Assignment.objects.values_list("pk", flat=True)) == before


def test_overview_warns_of_group_members_made_organizers(organizer_client):
    url = reverse("grading:jury", args=["demo"])
    assert "Not blind" not in organizer_client.get(url).content.decode()
    Group.objects.get(name="organizer").user_set.add(
        get_user_model().objects.get(username="juror2")
    )
    page = organizer_client.get(url).content.decode()
    assert "Not blind for this competition" in page
    assert "<strong>juror2</strong>: an organizer" in page
    response = organizer_client.post(
        reverse("grading:group", args=["demo"]), {"problem": 3, "jurors": "juror2"}
    )
    assert response.status_code == 422
    assert "cannot grade blind: juror2" in response.context["group_form"].errors.as_text()


def test_tags_page_sets_order_and_keeps_tags_in_use(organizer_client):
    url = reverse("grading:tags_config", args=["demo"])
    organizer_client.post(url, {"names": "verbosity\nnew tag\n"})
    names = list(ObservationTag.objects.order_by("order").values_list("name", flat=True))
    assert names[:2] == ["verbosity", "new tag"]
    # The tags the jurors gave papers of the demo's finalized problem 3 stay.
    assert set(names[2:]) == {"hallucination", "underspecified rule"}
    response = organizer_client.post(url, {"names": "a\na"})
    assert response.status_code == 422  # the jury page again, the list as typed
    assert "a tag is listed twice" in response.context["tags_form"].errors.as_text()
    assert "\na\na</textarea>" in response.content.decode()


def test_rubric_upload_reports_errors_and_changes_nothing(organizer_client):
    url = reverse("grading:rubrics_upload", args=["demo"])
    bad = SimpleUploadedFile(
        "r.json", b'{"problems": [{"problem": 1, "criteria": [{"code": "x"}]}]}'
    )
    response = organizer_client.post(url, {"file": bad})
    assert "r.json, problems[1].criteria[1], field 'title'" in _messages(response)[-1]
    frozen = SimpleUploadedFile(
        "r.json", b'{"problem": 1, "criteria": [{"code": "1a", "title": "t", "maximum": 3}]}'
    )
    response = organizer_client.post(url, {"file": frozen})
    assert "frozen" in _messages(response)[-1]


def test_marks_upload_imports_and_reports_missing_columns(organizer_client):
    url = reverse("grading:marks_upload", args=["demo"])
    # Problem 2: the demo's problem 3 is finalized and refuses marks.
    good = SimpleUploadedFile("m.csv", b"system,problem,criterion,points\nEnsemble-3,2,2c,2.5\n")
    response = organizer_client.post(url, {"file": good, "final": "on"})
    assert "1 final marks" in _messages(response)[-1]
    assert Resolution.objects.filter(kind="imported").count() == 1
    before = Mark.objects.count()
    bad = SimpleUploadedFile("m.csv", b"system,problem,criterion,points\nEnsemble-3,2,2c,2.5\n")
    response = organizer_client.post(url, {"file": bad})
    assert "m.csv, line 1, field 'juror'" in _messages(response)[-1]
    assert Mark.objects.count() == before


def test_the_admin_shows_rubrics_marks_and_decisions_read_only(client, db):
    client.force_login(get_user_model().objects.create_superuser("root", password="x" * 20))
    mark = MarkFactory()
    page = client.get(reverse("admin:grading_mark_change", args=[mark.pk]))
    assert page.status_code == 200 and 'name="points"' not in page.content.decode()
    assert client.post(reverse("admin:grading_mark_delete", args=[mark.pk])).status_code == 403
    assert client.get(reverse("admin:grading_rubric_add")).status_code == 403
    assert Mark.objects.filter(pk=mark.pk).exists()

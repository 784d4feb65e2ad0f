"""Grading groups picked from a list of juror accounts, each with its load in the competition."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import timezone

from grading.models import ProblemJuror
from ioleval.roles import JUROR, ORGANIZER
from tests.grading.factories import (
    AssignmentFactory,
    ChairFactory,
    JurorFactory,
    OrganizerFactory,
    ProblemJurorFactory,
)
from tests.puzzles.factories import ProblemFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def problem():
    problem = ProblemFactory(number=1)
    busy = JurorFactory(username="busy", first_name="Bea Busy")
    AssignmentFactory(juror=busy, paper__problem=problem)
    AssignmentFactory(juror=busy, paper__problem=problem, submitted_at=timezone.now())
    AssignmentFactory(juror=busy)  # another competition's paper: not this one's load
    JurorFactory(username="idle")
    ChairFactory(username="chairy")
    OrganizerFactory(username="boss")
    JurorFactory(username="both", roles=[JUROR, ORGANIZER])
    JurorFactory(username="gone", is_active=False)
    ProblemJurorFactory(problem=problem, juror=JurorFactory(username="left", is_active=False))
    return problem


def _members(problem) -> set[str]:
    return set(
        ProblemJuror.objects.filter(problem=problem).values_list("juror__username", flat=True)
    )


def test_the_form_lists_active_jurors_with_their_load(organizer_client, problem):
    response = organizer_client.get(reverse("grading:jury", args=[problem.competition.slug]))
    choices = dict(response.context["group_form"].fields["jurors"].choices)
    # Organizers (who see system names) and deactivated non-members are not offered.
    assert sorted(choices) == ["busy", "chairy", "idle", "left"]
    assert choices["busy"] == "busy (Bea Busy): 2 papers here, 1 submitted"
    assert choices["left"] == "left: 0 papers here, 0 submitted; groups 1; deactivated"
    page = response.content.decode()
    assert 'type="checkbox" name="jurors" value="busy"' in page
    assert "busy (Bea Busy): 2 papers here, 1 submitted" in page


def test_jurors_picked_from_the_list_join_and_leave_the_group(organizer_client, problem):
    url = reverse("grading:group", args=[problem.competition.slug])
    organizer_client.post(url, {"problem": 1, "jurors": ["busy", "chairy"]})
    assert _members(problem) == {"busy", "chairy", "left"}
    response = organizer_client.post(url, {"problem": 1, "jurors": ["boss", "idle"]})
    assert response.status_code == 422  # the jury page again, the form as it was filled
    errors = response.context["group_form"].errors["jurors"].as_text()
    assert "boss is not one of the available choices" in errors
    assert _members(problem) == {"busy", "chairy", "left"}
    organizer_client.post(url, {"problem": 1, "jurors": ["left"], "remove": "1"})
    assert _members(problem) == {"busy", "chairy"}

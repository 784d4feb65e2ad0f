"""The competition page's names form: organizers rename, jurors are refused."""

from __future__ import annotations

import pytest
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

from puzzles.errors import ImportFailure
from puzzles.models import Competition, Problem
from puzzles.services import competition_names_save

from .factories import CompetitionFactory, ProblemFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def named(db) -> Competition:
    competition = CompetitionFactory(slug="round", name="round")
    ProblemFactory(competition=competition, number=1, title="", language="esu_Latn")
    ProblemFactory(competition=competition, number=2, title="", language="mis_Latn")
    return competition


def _post(client, data: dict):
    return client.post(reverse("puzzles:names", args=["round"]), data)


def _form(**changes) -> dict:
    data = {
        "name": "Round One",
        "title_1": "Yup'ik sounds",
        "language_name_1": "",
        "title_2": "Komnzo verbs",
        "language_name_2": "Komnzo",
    }
    return data | changes


def _messages(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def test_competition_page_shows_the_names_form_and_readable_languages(organizer_client, named):
    body = organizer_client.get(reverse("puzzles:competition", args=["round"])).content.decode()
    assert f'action="{reverse("puzzles:names", args=["round"])}"' in body
    assert 'name="title_1"' in body and 'name="language_name_2"' in body
    # The placeholder says what an empty language name shows.
    assert 'placeholder="Central Yupik (esu)"' in body


def test_organizer_renames_competition_and_problems(organizer_client, named):
    response = _post(organizer_client, _form())
    assert response.status_code == 302
    assert response["Location"] == reverse("puzzles:competition", args=["round"])
    assert _messages(response) == ["Saved: competition name, problem 1, problem 2."]
    assert Competition.objects.get(slug="round").name == "Round One"
    problems = {p.number: p for p in Problem.objects.filter(competition=named)}
    assert problems[1].title == "Yup'ik sounds"
    assert problems[1].language_label == "Central Yupik (esu)"
    assert (problems[2].title, problems[2].language_label) == ("Komnzo verbs", "Komnzo (mis)")
    body = organizer_client.get(reverse("puzzles:competition", args=["round"])).content.decode()
    assert "Round One" in body and "Komnzo (mis)" in body


def test_saving_the_same_names_again_changes_nothing(organizer_client, named):
    _post(organizer_client, _form())
    organizer_client.get(reverse("puzzles:competition", args=["round"]))  # shows the message
    response = _post(organizer_client, _form())
    assert _messages(response) == ["No name changed."]


def test_emptying_a_language_name_brings_back_the_iso_name(organizer_client, named):
    Problem.objects.filter(number=1).update(language_name="Yup'ik")
    _post(organizer_client, _form(language_name_1=""))
    assert Problem.objects.get(number=1).language_label == "Central Yupik (esu)"


@pytest.mark.parametrize(
    "changes,field,words",
    [
        ({"name": "   "}, "name", "This field is required."),
        ({"title_1": "x" * 201}, "title_1", "Ensure this value has at most 200"),
        ({"language_name_2": "y" * 121}, "language_name_2", "Ensure this value has at most 120"),
    ],
)
def test_invalid_names_come_back_as_typed_with_the_error_and_change_nothing(
    organizer_client, named, changes, field, words
):
    typed = _form(**changes) | {"title_2": "Typed, not saved"}
    response = _post(organizer_client, typed)
    assert response.status_code == 422  # the page again, nothing typed lost
    form = response.context["names_form"]
    assert words in " ".join(form.errors[field])
    assert 'value="Typed, not saved"' in response.content.decode()
    assert Competition.objects.get(slug="round").name == "round"
    assert set(Problem.objects.values_list("title", flat=True)) == {""}


def test_juror_is_refused(client, juror, named):
    client.force_login(juror)
    assert _post(client, _form()).status_code == 403
    assert Competition.objects.get(slug="round").name == "round"


def test_get_is_not_allowed_and_post_needs_a_csrf_token(organizer, named):
    client = Client(enforce_csrf_checks=True)
    client.force_login(organizer)
    assert client.get(reverse("puzzles:names", args=["round"])).status_code == 405
    assert _post(client, _form()).status_code == 403
    assert Competition.objects.get(slug="round").name == "round"


def test_service_refuses_an_empty_name_and_unknown_problems(named):
    with pytest.raises(ImportFailure, match="needs a name"):
        competition_names_save(competition=named, name=" ", titles={}, language_names={})
    with pytest.raises(ImportFailure, match="no problem 9 in round"):
        competition_names_save(
            competition=named, name="Round One", titles={9: "x"}, language_names={}
        )
    assert Competition.objects.get(slug="round").name == "round"

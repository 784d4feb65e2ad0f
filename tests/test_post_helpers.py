"""The two ways a POST view answers (ioleval.http): a button or file action redirects with its
outcome or refusal as a message; a form with typed text comes back with 422, as typed."""

from __future__ import annotations

from django import forms
from django.contrib.messages.storage.cookie import CookieStorage
from django.http import HttpResponse
from django.test import RequestFactory

from ioleval.errors import AppError
from ioleval.http import post_redirect, post_rerender


class NoteForm(forms.Form):
    title = forms.CharField(max_length=10)
    text = forms.CharField(required=False)


def _request(data: dict):
    request = RequestFactory().post("/notes/", data)
    request._messages = CookieStorage(request)
    return request


def _said(request) -> list[tuple[str, str]]:
    return [(m.level_tag, m.message) for m in request._messages]


def _page(form: NoteForm) -> HttpResponse:
    """The page again: what the tests read is the form it was given."""
    response = HttpResponse("page")
    response.form = form
    return response


def _save(data: dict) -> str:
    if data["title"] == "taken":
        raise AppError("a note 'taken' exists already", field="title")
    if data["title"] == "closed":
        raise AppError("notes are closed", field="notebook")
    return f"Saved {data['title']}."


def test_an_accepted_form_redirects_with_its_message():
    request = _request({"title": "mine", "text": "typed"})
    response = post_rerender(request, NoteForm(request.POST), _save, "/notes/", page=_page)
    assert (response.status_code, response["Location"]) == (302, "/notes/")
    assert _said(request) == [("success", "Saved mine.")]


def test_an_invalid_form_comes_back_as_typed_with_422():
    request = _request({"title": "x" * 11, "text": "a long text, typed"})
    response = post_rerender(request, NoteForm(request.POST), _save, "/notes/", page=_page)
    assert response.status_code == 422
    assert response.form["text"].value() == "a long text, typed"
    assert "at most 10 characters" in response.form.errors["title"][0]
    assert _said(request) == []


def test_a_refusal_goes_beside_the_field_it_names_else_on_the_form():
    request = _request({"title": "taken", "text": "typed"})
    response = post_rerender(request, NoteForm(request.POST), _save, "/notes/", page=_page)
    assert response.status_code == 422
    assert response.form.errors == {"title": ["a note 'taken' exists already"]}
    request = _request({"title": "closed"})
    response = post_rerender(request, NoteForm(request.POST), _save, "/notes/", page=_page)
    assert response.form.non_field_errors() == ["notes are closed"]


def test_done_answers_a_success_with_a_page_of_its_own():
    request = _request({"title": "mine"})
    response = post_rerender(
        request,
        NoteForm(request.POST),
        _save,
        page=_page,
        done=lambda said: HttpResponse(said, status=201),
    )
    assert (response.status_code, response.content) == (201, b"Saved mine.")
    assert _said(request) == []


def test_a_button_action_redirects_with_its_outcome_or_its_refusal():
    request = _request({})
    response = post_redirect(request, lambda: ["3 papers", "2 jurors"], "/jury/")
    assert response["Location"] == "/jury/"
    assert _said(request) == [("success", "3 papers; 2 jurors")]

    def refused():
        raise AppError("not UTF-8 text", file="marks.csv", line=3)

    request = _request({})
    response = post_redirect(request, refused, "/jury/", done=lambda _: HttpResponse())
    assert response["Location"] == "/jury/"  # a refusal never reaches `done`
    assert _said(request) == [("error", "marks.csv, line 3: not UTF-8 text")]

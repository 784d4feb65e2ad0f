"""A rubric upload that touches marks shows its effect first and applies only once confirmed.

Before: uploading a new version dropped 44 submitted marks and reopened 11 papers with
"problem 1: rubric v2" as the only feedback. Now the page previews exactly what the
rubric editor previews and applies the previewed file, with the previewed effect, only.
"""

from __future__ import annotations

import base64
import io
import json
import re
from decimal import Decimal
from html import unescape

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from grading.models import Assignment, Mark, Paper, Rubric
from grading.services import rubric_current, rubrics_import
from tests.grading.factories import JurorFactory, paper_graded
from tests.puzzles.factories import CompetitionFactory, ProblemFactory, SystemFactory

pytestmark = pytest.mark.django_db

SLUG = "upl"


def _criterion(code: str, maximum: int = 2) -> dict:
    return {"code": code, "title": f"Criterion {code}", "kind": "theory", "maximum": maximum}


def _rubric(*codes: str, maximum: int = 2) -> str:
    return json.dumps({"problem": 1, "criteria": [_criterion(c, maximum) for c in codes]})


@pytest.fixture
def graded(db):
    """Problem 1 with criteria a and b; two papers graded and submitted by two jurors each."""
    competition = CompetitionFactory(slug=SLUG)
    problem = ProblemFactory(competition=competition, number=1)
    ProblemFactory(competition=competition, number=2)
    rubrics_import(_rubric("a", "b"), competition=competition)
    jurors = [JurorFactory(), JurorFactory()]
    for index, name in enumerate(("Sys-1", "Sys-2")):
        system = SystemFactory(competition=competition, name=name)
        paper = Paper.objects.create(problem=problem, system=system, code=f"P1-AAA{index + 2}")
        paper_graded(paper, {juror: {"a": "1", "b": "2"} for juror in jurors})
    return problem


def _upload(client, text: str, *, new_version: bool = True, name: str = "rubric.json"):
    data = {"file": SimpleUploadedFile(name, text.encode())}
    if new_version:
        data["new_version"] = "on"
    return client.post(reverse("grading:rubrics_upload", args=[SLUG]), data)


def _confirm_data(response) -> dict:
    """Return the confirmation form's hidden fields as the page renders them."""
    html = response.content.decode()
    form = html[html.index('<form method="post"') :]
    fields = re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', form)
    data = {name: unescape(value) for name, value in fields if name != "csrfmiddlewaretoken"}
    assert set(data) == {"content", "name", "new_version", "token"}
    return data


def _confirm(client, data: dict):
    return client.post(reverse("grading:rubrics_upload", args=[SLUG]), data, follow=True)


def _messages(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def _effect_items(html: str) -> list[str]:
    block = re.search(r'<ul class="rubric-change">(.*?)</ul>', html, re.S).group(1)
    return [item.strip() for item in re.findall(r"<li>(.*?)</li>", block, re.S)]


def _editor_rows(*codes: str, **extra: str) -> dict:
    """Return the rubric editor's form as the page posts it (its rows start from a and b)."""
    rows = {"criteria-TOTAL_FORMS": str(len(codes)), "criteria-INITIAL_FORMS": "2", **extra}
    for index, code in enumerate(codes):
        rows |= {
            f"criteria-{index}-code": code,
            f"criteria-{index}-title": f"Criterion {code}",
            f"criteria-{index}-kind": "theory",
            f"criteria-{index}-maximum": "2",
            f"criteria-{index}-step": "0.5",
        }
    return rows


def _state(problem) -> dict:
    return {
        "version": rubric_current(problem).version,
        "marks": sorted(Mark.objects.values_list("criterion__code", "points", "comment"), key=str),
        "submitted": Assignment.objects.filter(submitted_at__isnull=False).count(),
    }


def test_an_upload_that_touches_marks_is_previewed_and_changes_nothing(organizer_client, graded):
    before = _state(graded)
    response = _upload(organizer_client, _rubric("a", "c"))
    assert response.status_code == 200
    assert response.templates[0].name == "grading/rubric_upload.html"
    body = response.content.decode()
    assert "Problem 1: rubric v1 → v2" in body
    assert _effect_items(body) == [
        "problem 1: 8 marks exist",
        "new criterion c",
        "criterion b removed: 4 marks dropped",
        "4 submitted papers reopen to grade new criteria",
    ]
    assert "Apply this change" in body
    assert _state(graded) == before


def test_the_preview_is_the_rubric_editors(organizer_client, graded):
    upload = _upload(organizer_client, _rubric("a", "c")).content.decode()
    rows = _editor_rows("a", "c", preview="1")
    editor = organizer_client.post(reverse("grading:rubric", args=[SLUG, 1]), rows)
    assert _effect_items(editor.content.decode()) == _effect_items(upload)


def _editor_token(response) -> str:
    html = response.content.decode()
    form = html[html.index('<form method="post" id="rubric-form"') :]
    return unescape(re.search(r'<input type="hidden" name="token" value="([^"]*)"', form)[1])


def test_the_editor_shows_the_effect_before_it_applies_a_change_to_marks(organizer_client, graded):
    """Save in the editor applied a new version at once, whatever its preview had said (or
    without one): 8 marks dropped where the preview said 4. Now Save shows the effect and
    signs it; only applying that effect, with those rows, changes anything."""
    before = _state(graded)
    rows = _editor_rows("a", "c", apply="1", new_version="on")
    url = reverse("grading:rubric", args=[SLUG, 1])
    response = organizer_client.post(url, rows)
    assert response.status_code == 200
    assert _messages(response)[-1] == (
        "Marks exist: nothing is saved yet. Check the effect, then apply it."
    )
    assert _effect_items(response.content.decode()) == [
        "problem 1: 8 marks exist",
        "new criterion c",
        "criterion b removed: 4 marks dropped",
        "4 submitted papers reopen to grade new criteria",
    ]
    assert "Apply this change" in response.content.decode()
    assert _state(graded) == before
    response = organizer_client.post(url, {**rows, "token": _editor_token(response)}, follow=True)
    assert _messages(response)[-1] == (
        "Rubric v2 saved; new criterion c; criterion b removed: 4 marks dropped;"
        " 4 submitted papers reopen to grade new criteria"
    )
    assert rubric_current(graded).version == 2


def test_the_editor_applies_only_the_rows_it_previewed(organizer_client, graded):
    url = reverse("grading:rubric", args=[SLUG, 1])
    preview = organizer_client.post(url, _editor_rows("a", "c", preview="1", new_version="on"))
    token = _editor_token(preview)
    before = _state(graded)
    other_rows = _editor_rows("c", apply="1", new_version="on", token=token)
    response = organizer_client.post(url, other_rows)
    assert response.status_code == 200
    assert "criterion a removed: 4 marks dropped" in _effect_items(response.content.decode())
    assert _state(graded) == before
    forged = _editor_rows("a", "c", apply="1", new_version="on", token=token[:-2] + "xx")
    assert organizer_client.post(url, forged).status_code == 200
    assert _state(graded) == before


def test_a_mark_or_comment_saved_after_the_editors_preview_invalidates_it(organizer_client, graded):
    url = reverse("grading:rubric", args=[SLUG, 1])
    rows = _editor_rows("a", "c", apply="1", new_version="on")
    token = _editor_token(organizer_client.post(url, rows))
    # A juror meanwhile writes a comment (no points) on b, which the change removes.
    from grading.services import mark_save

    paper = Paper.objects.filter(problem=graded).first()
    assignment = Assignment.objects.create(paper=paper, juror=JurorFactory())
    b = rubric_current(graded).criteria.get(code="b")
    mark_save(assignment=assignment, criterion=b, points="", comment="not sure yet")
    before = _state(graded)
    response = organizer_client.post(url, {**rows, "token": token})
    assert response.status_code == 200
    assert _messages(response)[-1] == (
        "The marks changed since the preview: check the effect again."
    )
    assert "criterion b removed: 4 marks and 1 comments without points dropped" in _effect_items(
        response.content.decode()
    )
    assert _state(graded) == before
    response = organizer_client.post(url, {**rows, "token": _editor_token(response)}, follow=True)
    assert "4 marks and 1 comments without points dropped" in _messages(response)[-1]
    assert rubric_current(graded).version == 2
    assert not Mark.objects.filter(criterion__rubric__version=1).exists()


def test_the_editor_applies_a_change_that_touches_no_mark_at_once(organizer_client, graded):
    url = reverse("grading:rubric", args=[SLUG, 2])
    rows = _editor_rows("x", apply="1")
    response = organizer_client.post(url, rows)
    assert response.status_code == 302
    assert Rubric.objects.get(problem__number=2).criteria.get().code == "x"


def test_confirming_applies_the_previewed_file_and_says_what_it_did(organizer_client, graded):
    preview = _upload(organizer_client, _rubric("a", "c"))
    response = _confirm(organizer_client, _confirm_data(preview))
    assert _messages(response)[-1] == (
        "problem 1: rubric v2; new criterion c; criterion b removed: 4 marks dropped;"
        " 4 submitted papers reopen to grade new criteria"
    )
    rubric = rubric_current(graded)
    assert rubric.version == 2
    assert list(rubric.criteria.values_list("code", flat=True)) == ["a", "c"]
    assert (
        sorted(Mark.objects.values_list("criterion__code", "points")) == [("a", Decimal("1"))] * 4
    )
    assert not Assignment.objects.filter(submitted_at__isnull=False).exists()


def test_a_different_file_cannot_ride_on_a_preview(organizer_client, graded):
    before = _state(graded)
    data = _confirm_data(_upload(organizer_client, _rubric("a", "b", maximum=2)))
    data["content"] = base64.b64encode(_rubric("z").encode()).decode()
    response = _confirm(organizer_client, data)
    assert _messages(response)[-1] == "this is not the file that was previewed; upload it again"
    assert _state(graded) == before
    data = _confirm_data(_upload(organizer_client, _rubric("a", "c")))
    data["token"] = data["token"][:-2] + "xx"
    response = _confirm(organizer_client, data)
    assert "not the file that was previewed" in _messages(response)[-1]
    assert _state(graded) == before


def test_marks_that_change_after_the_preview_are_previewed_again(organizer_client, graded):
    data = _confirm_data(_upload(organizer_client, _rubric("a", "c")))
    # A third juror grades one paper meanwhile: b would now drop 5 marks, not 4.
    paper = Paper.objects.filter(problem=graded).first()
    paper_graded(paper, {JurorFactory(): {"a": "2", "b": "2"}})
    before = _state(graded)
    response = _confirm(organizer_client, data)
    assert response.status_code == 200
    assert response.templates[0].name == "grading/rubric_upload.html"
    assert _messages(response)[-1] == (
        "The marks changed since the preview: check the effect again."
    )
    assert "criterion b removed: 5 marks dropped" in _effect_items(response.content.decode())
    assert _state(graded) == before
    response = _confirm(organizer_client, _confirm_data(response))
    assert "criterion b removed: 5 marks dropped" in _messages(response)[-1]
    assert rubric_current(graded).version == 2


def test_an_upload_without_marks_applies_at_once(organizer_client, graded):
    response = _upload(
        organizer_client,
        json.dumps({"problem": 2, "criteria": [_criterion("x")]}),
        new_version=False,
    )
    assert response.status_code == 302
    assert Rubric.objects.get(problem__number=2).criteria.get().code == "x"


def test_a_frozen_rubric_without_new_version_is_refused_before_any_preview(
    organizer_client, graded
):
    before = _state(graded)
    response = _upload(organizer_client, _rubric("a", "c"), new_version=False)
    assert response.status_code == 302
    response = organizer_client.get(response["Location"])
    assert "its rubric is frozen" in _messages(response)[-1]
    assert _state(graded) == before


def test_a_rubrics_file_over_a_megabyte_is_refused(organizer_client, graded):
    response = _upload(organizer_client, " " * (1024 * 1024 + 1))
    response = organizer_client.get(response["Location"])
    assert _messages(response)[-1] == "rubric.json: 1048577 bytes; a rubrics file may have 1048576"


# --- the command -------------------------------------------------------------------------------


def _run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_the_command_prints_the_effect_and_a_dry_run_writes_nothing(graded, tmp_path):
    path = tmp_path / "rubric.json"
    path.write_text(_rubric("a", "c"), encoding="utf-8")
    before = _state(graded)
    effect = [
        "  problem 1: 8 marks exist",
        "  new criterion c",
        "  criterion b removed: 4 marks dropped",
        "  4 submitted papers reopen to grade new criteria",
    ]
    out = _run("import_rubric", SLUG, str(path), "--new-version", "--dry-run")
    assert out.splitlines() == [
        "problem 1: would be rubric v2 (dry run: nothing written)",
        *effect,
    ]
    assert _state(graded) == before
    with pytest.raises(CommandError) as caught:
        _run("import_rubric", SLUG, str(path), "--dry-run")
    assert "its rubric is frozen" in str(caught.value)
    out = _run("import_rubric", SLUG, str(path), "--new-version")
    assert out.splitlines() == ["problem 1: rubric v2, 2 criteria", *effect]

"""Input no database column can hold, and JSON too deep to read, at every entry point.

A NUL character (PostgreSQL's text and jsonb refuse it; SQLite would store it), a lone
surrogate (JSON's \\ud800 escape: not text in any encoding) and JSON nested 100,000 deep
(json.loads raises RecursionError) must end in the house message naming the file, line
and field, with nothing written, through commands and pages alike. CI runs this module
on PostgreSQL, where each of these was a 500 or a traceback; locally it runs on SQLite.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from grading.models import (
    Assignment,
    Criterion,
    DiscussionComment,
    Mark,
    ObservationTag,
    Resolution,
    Rubric,
)
from puzzles.demo import _write_layout
from puzzles.errors import ImportFailure
from puzzles.models import AnswerAmendment, Competition, Output, System, Task
from puzzles.untrusted import json_parse, text_check, value_check

from .test_imports import SLUG, T1, T2, mini  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db

DEEP = "[" * 100_000 + "]" * 100_000


def _fails(*args: str) -> str:
    with pytest.raises(CommandError) as caught:
        call_command(*args, stdout=io.StringIO(), stderr=io.StringIO())
    return str(caught.value)


def _nothing_written() -> None:
    assert not System.objects.exists()
    assert not Output.objects.exists()


# --- the shared checks ---------------------------------------------------------------------


def test_text_check_names_the_character():
    assert text_check("plain ünïcode ✓") == "plain ünïcode ✓"
    with pytest.raises(ImportFailure) as caught:
        text_check("a\x00b", file="f.csv", line=3, field="comment")
    assert str(caught.value).startswith("f.csv, line 3, field 'comment': a NUL character")
    with pytest.raises(ImportFailure) as caught:
        text_check("a\udfffb")
    assert "a lone surrogate (U+DFFF)" in str(caught.value)


def test_json_parse_names_the_line_and_path_of_a_bad_string():
    text = '{"problems": [\n  {"a": "ok"},\n  {"b": ["x", "y\\u0000"]}\n]}'
    with pytest.raises(ImportFailure) as caught:
        json_parse(text, file="r.json")
    assert str(caught.value).startswith("r.json, line 3, field 'problems[2].b[2]': a NUL")
    with pytest.raises(ImportFailure) as caught:
        json_parse('{"k\\ud800": 1}', file="r.json")
    # The key is shown escaped, so that the message itself is text a page can send.
    assert str(caught.value).startswith("r.json, line 1, field 'k\\ud800': a lone surrogate")


def test_json_parse_keeps_pairs_and_escaped_backslashes():
    # A surrogate pair is one character; "\\u0000" is a backslash and "u0000".
    value = json_parse('["\\ud83d\\ude00", "\\\\u0000", "\\\\\\\\ud800"]')
    assert value == ["😀", "\\u0000", "\\\\ud800"]


@pytest.mark.parametrize("text", [DEEP, "{" + '"a":{' * 100_000 + "}" * 100_001])
def test_json_parse_refuses_deep_nesting_without_a_recursion_error(text):
    with pytest.raises(ImportFailure) as caught:
        json_parse(text, file="deep.json")
    assert str(caught.value) == "deep.json: JSON nested more than 64 levels deep"


def test_json_nested_within_the_recursion_limit_but_past_64_is_refused():
    with pytest.raises(ImportFailure) as caught:
        json_parse("[" * 200 + "]" * 200, file="d.json")
    assert "nested more than 64 levels deep" in str(caught.value)
    value_check([[["fine"]]])


# --- import_outputs ----------------------------------------------------------------------------


def _jsonl(**record) -> str:
    # json.dumps writes NUL and lone surrogates as \\u0000 and \\ud800 escapes.
    return json.dumps(record)


@pytest.mark.parametrize(
    "line,field,expected",
    [
        (_jsonl(id=T1, output="a\x00b"), "output", "a NUL character"),
        (_jsonl(id=T1, output="a\ud800b"), "output", "a lone surrogate (U+D800)"),
        (_jsonl(id=T1, output="a", explanation="\x00"), "explanation", "a NUL character"),
        (_jsonl(id=T1, output="a", **{"x\x00": 1}), "x\\u0000", "a NUL character"),
        (
            _jsonl(id=T1, output='Answer: ["a\\u0000", "b", "c"]'),
            "output",
            "an answer extracted from it holds a NUL character",
        ),
    ],
)
@pytest.mark.usefixtures("mini")
def test_raw_outputs_with_text_no_column_holds(tmp_path, line, field, expected):
    path = tmp_path / "model.jsonl"
    path.write_text(f"{_jsonl(id=T2, output='he ate')}\n{line}\n", encoding="utf-8")
    message = _fails("import_outputs", SLUG, str(path), "--system", "M", "--raw")
    assert message.startswith(f"{path}, line 2, field '{field}': {expected}")
    _nothing_written()


@pytest.mark.usefixtures("mini")
def test_raw_outputs_with_numbers_python_reads_but_json_has_not(tmp_path):
    path = tmp_path / "model.jsonl"
    path.write_text('{"id": %s, "output": "x"}\n' % ("1" * 5000), encoding="utf-8")
    message = _fails("import_outputs", SLUG, str(path), "--system", "M", "--raw")
    assert message == f"{path}, line 1: malformed JSON (a number of 5000 digits)"
    _nothing_written()


@pytest.mark.usefixtures("mini")
def test_raw_outputs_nested_100000_deep(tmp_path):
    path = tmp_path / "model.jsonl"
    path.write_text(f"{_jsonl(id=T1, output='x')}\n{DEEP}\n", encoding="utf-8")
    message = _fails("import_outputs", SLUG, str(path), "--system", "M", "--raw")
    assert message == f"{path}, line 2: JSON nested more than 64 levels deep"
    _nothing_written()


def _submission(path: Path, pred: str) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([["id", "pred"], [T2, "he ate"], [T1, pred]])
    return path


@pytest.mark.parametrize(
    "pred,expected",
    [
        (json.dumps(["a\x00", "b", "c"]), "an answer read from it holds a NUL character"),
        (json.dumps(["a\ud800", "b", "c"]), "an answer read from it holds a lone surrogate"),
        ("a\x00b", "a NUL character"),
    ],
)
@pytest.mark.usefixtures("mini")
def test_submission_csv_whose_json_decodes_to_what_no_column_holds(tmp_path, pred, expected):
    path = _submission(tmp_path / "sub.csv", pred)
    message = _fails("import_outputs", SLUG, str(path), "--system", "S")
    assert message.startswith(f"{path}, line 3, field 'pred': {expected}")
    _nothing_written()


@pytest.mark.usefixtures("mini")
def test_a_prediction_nested_100000_deep_is_text_as_the_competition_read_it(tmp_path):
    # json.loads gives up (RecursionError), so the competition's parser took the lines.
    path = _submission(tmp_path / "sub.csv", DEEP)
    call_command("import_outputs", SLUG, str(path), "--system", "S", stdout=io.StringIO())
    output = Output.objects.get(task__external_id=T1)
    assert output.parsed_items[0] == DEEP and output.format_flags["clean_json_list"] is False


@pytest.mark.usefixtures("mini")
def test_a_prediction_that_exhausts_the_recursion_limit_is_refused(tmp_path, monkeypatch):
    # Nesting just within json's limit can still exhaust it while the items are printed,
    # depending on the stack at hand; the import then refuses the row rather than crash.
    from puzzles.services import imports

    def prepare(*, output, task):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(imports, "output_prepare", prepare)
    path = _submission(tmp_path / "sub.csv", "[" * 990 + "]" * 990)
    message = _fails("import_outputs", SLUG, str(path), "--system", "S")
    assert message == f"{path}, line 2, field 'pred': the answer nests lists too deeply to read"
    _nothing_written()


@pytest.mark.usefixtures("mini")
def test_the_outputs_page_shows_the_message(organizer_client):
    upload = SimpleUploadedFile("model.jsonl", _jsonl(id=T1, output="\x00").encode())
    response = organizer_client.post(
        reverse("puzzles:import_outputs", args=[SLUG]),
        {"system": "M", "file": upload, "raw": "on"},
    )
    assert response.status_code == 422
    assert response.context["form"].non_field_errors() == [
        "model.jsonl, line 1, field 'output': a NUL character (U+0000), which the database"
        " cannot store as text; remove it"
    ]
    _nothing_written()


@pytest.mark.usefixtures("mini")
def test_a_deep_jsonl_upload_shows_the_message(organizer_client):
    upload = SimpleUploadedFile("model.jsonl", DEEP.encode())
    response = organizer_client.post(
        reverse("puzzles:import_outputs", args=[SLUG]),
        {"system": "M", "file": upload, "raw": "on"},
    )
    assert response.status_code == 422
    assert "model.jsonl, line 1: JSON nested more than 64 levels deep" in (
        response.content.decode()
    )
    _nothing_written()


# --- import_iolai ------------------------------------------------------------------------------


@pytest.fixture
def layout(tmp_path) -> Path:
    root = tmp_path / "layout"
    _write_layout(root)
    return root


def _first_submission(layout: Path) -> Path:
    return sorted((layout / "submissions").iterdir())[0]


def test_iolai_metadata_with_a_nul(layout):
    meta = _first_submission(layout) / "metadata.json"
    meta.write_text(json.dumps({"team": "Evil\x00", "rank": 1}), encoding="utf-8")
    message = _fails("import_iolai", str(layout), "--slug", "x")
    assert message.startswith(f"{meta}, line 1, field 'team': a NUL character")
    assert not Competition.objects.exists()


def test_iolai_predictions_with_a_lone_surrogate_on_line_3(layout):
    path = _first_submission(layout) / "predictions.json"
    rows = json.loads(path.read_text(encoding="utf-8"))
    bad = json.dumps({"id": rows[1]["id"], "pred": "x", "explanation": "\udc00"})
    path.write_text(f"[\n{json.dumps(rows[0])},\n{bad}\n]", encoding="utf-8")
    message = _fails("import_iolai", str(layout), "--slug", "x")
    assert message.startswith(f"{path}, line 3, field '[2].explanation': a lone surrogate")
    assert not Competition.objects.exists()


def test_iolai_metadata_with_numbers_json_does_not_have(layout):
    # Python reads NaN, which jsonb refuses: System.metadata keeps the rank.
    meta = _first_submission(layout) / "metadata.json"
    meta.write_text('{"team": "T", "rank": NaN}', encoding="utf-8")
    assert _fails("import_iolai", str(layout), "--slug", "x") == (
        f"{meta}: malformed JSON (NaN is not a JSON number)"
    )
    meta.write_text('{"team": "T", "rank": 1e999}', encoding="utf-8")
    assert "1e999 is too large a number" in _fails("import_iolai", str(layout), "--slug", "x")
    assert not Competition.objects.exists()


def test_iolai_predictions_nested_100000_deep(layout):
    path = _first_submission(layout) / "predictions.json"
    path.write_text(DEEP, encoding="utf-8")
    assert _fails("import_iolai", str(layout), "--slug", "x") == (
        f"{path}: JSON nested more than 64 levels deep"
    )
    assert not Competition.objects.exists()


@pytest.mark.parametrize(
    "answer,expected",
    [
        (json.dumps(["dogs\x00"]), "field 'answer[1]': a NUL character"),
        (json.dumps(["dogs\ud800"]), "field 'answer[1]': a lone surrogate"),
        (DEEP, "field 'answer': answer key nests lists too deeply"),
        ("[" + "1" * 5000 + "]", "field 'answer': answer key is not valid JSON (a number too"),
    ],
)
def test_iolai_answer_keys_that_decode_to_bad_text(layout, answer, expected):
    path = layout / "task" / "solution.csv"
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    rows[1][1] = answer
    with path.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows(rows)
    message = _fails("import_iolai", str(layout), "--slug", "x")
    assert message.startswith(f"{path}, line 2, {expected}")
    assert not Competition.objects.exists()


def test_iolai_directory_of_the_shared_data_still_imports(tmp_path, iolai_dir):
    copy = tmp_path / "copy"
    shutil.copytree(iolai_dir / "task", copy / "task")
    call_command("import_iolai", str(copy), "--slug", "real", stdout=io.StringIO())
    assert Task.objects.filter(problem__competition__slug="real").count() == 14


# --- import_rubric -----------------------------------------------------------------------------


def _rubric(code: str = "1a", title: str = "t") -> str:
    criteria = json.dumps([{"code": code, "title": title, "maximum": 2}])
    return f'{{"problem": 1,\n "criteria": {criteria}}}'


@pytest.mark.parametrize(
    "text,expected",
    [
        (_rubric(code="1a\x00"), ", line 2, field 'criteria[1].code': a NUL character"),
        (_rubric(title="t\ud800"), ", line 2, field 'criteria[1].title': a lone surrogate"),
        (DEEP, ": JSON nested more than 64 levels deep"),
    ],
)
@pytest.mark.usefixtures("mini")
def test_rubric_files(tmp_path, organizer_client, text, expected):
    path = tmp_path / "rubric.json"
    path.write_text(text, encoding="utf-8")
    assert _fails("import_rubric", SLUG, str(path)).startswith(f"{path}{expected}")
    upload = SimpleUploadedFile("rubric.json", text.encode())
    response = organizer_client.post(
        reverse("grading:rubrics_upload", args=[SLUG]), {"file": upload}, follow=True
    )
    assert response.status_code == 200
    shown = [str(m) for m in response.context["messages"]]
    assert any(m.startswith(f"rubric.json{expected}") for m in shown), shown
    assert not Rubric.objects.exists()


# --- import_marks ------------------------------------------------------------------------------


@pytest.mark.usefixtures("mini")
def test_marks_with_a_nul_in_the_comment(tmp_path):
    path = tmp_path / "marks.csv"
    path.write_text(
        "system,problem,criterion,juror,points,comment\nS,1,1a,j1,1,bad\x00comment\n",
        encoding="utf-8",
    )
    message = _fails("import_marks", SLUG, str(path))
    assert message.startswith(f"{path}, line 2, field 'comment': a NUL character")
    assert not Mark.objects.exists()


# --- form fields of pages ------------------------------------------------------------------------


@pytest.fixture
def jury(demo):
    return demo


def _login(client, username: str):
    client.force_login(get_user_model().objects.get(username=username))
    return client


def test_a_nul_in_posted_form_fields_is_refused_everywhere(client, jury):
    """Django's CharField refuses NUL; every text a page posts goes through one."""
    nul = "bad\x00text"
    open_one = Assignment.objects.filter(
        juror__username="juror2", submitted_at__isnull=True
    ).first()
    criterion = Criterion.objects.filter(rubric__problem=open_one.paper.problem).first()
    marks = {m.pk: m.comment for m in Mark.objects.all()}
    juror = _login(client, "juror2")
    url = reverse("grading:mark", args=[open_one.paper.code, criterion.pk])
    response = juror.post(url, {"points": "1", "comment": nul}, HTTP_HX_REQUEST="true")
    assert response.status_code == 422
    assert juror.post(url, {"points": "1", "comment": nul}).status_code == 302

    submitted = Assignment.objects.filter(
        juror__username="juror1", submitted_at__isnull=False
    ).first()
    thread_criterion = Criterion.objects.filter(rubric__problem=submitted.paper.problem).first()
    juror1 = _login(client, "juror1")
    # A refused comment, revision or decision is shown again (422) with what was typed, the
    # error on its field (ioleval.http.post_rerender).
    for action, data in (("comment", {"text": nul}), ("revise", {"points": "1", "reason": nul})):
        url = reverse(
            "grading:thread_post", args=[submitted.paper.code, thread_criterion.pk, action]
        )
        assert juror1.post(url, data).status_code == 422
    # The demo's chair has submitted every paper of its own: free to decide.
    assert not Assignment.objects.filter(juror__username="chair", submitted_at__isnull=True)
    chair = _login(client, "chair")
    url = reverse("grading:thread_post", args=[submitted.paper.code, thread_criterion.pk, "decide"])
    assert chair.post(url, {"points": "1", "reason": nul}).status_code == 422

    organizer = _login(client, "organizer")
    task = Task.objects.filter(problem__competition__slug="demo").first()
    response = organizer.post(
        reverse("puzzles:answer_key", args=["demo"]),
        {"task": task.external_id, "item_number": 1, "action": "add", "text": nul},
    )
    assert response.status_code == 422  # the key again, the alternative as typed
    tags = set(ObservationTag.objects.values_list("name", flat=True))
    organizer.post(reverse("grading:tags_config", args=["demo"]), {"names": nul})
    organizer.post(reverse("grading:group", args=["demo"]), {"problem": 1, "jurors": nul})
    rubric = reverse("grading:rubric", args=["demo", 1])
    data = {"criteria-TOTAL_FORMS": "1", "criteria-INITIAL_FORMS": "0", "apply": "1"}
    data.update({"criteria-0-code": "1a", "criteria-0-title": nul, "criteria-0-kind": "theory"})
    data.update({"criteria-0-maximum": "2", "criteria-0-step": "1"})
    assert organizer.post(rubric, data).status_code == 200

    assert {m.pk: m.comment for m in Mark.objects.all()} == marks
    assert not DiscussionComment.objects.filter(text__contains="bad").exists()
    assert not Resolution.objects.filter(reason__contains="bad").exists()
    assert not AnswerAmendment.objects.exists()
    assert set(ObservationTag.objects.values_list("name", flat=True)) == tags
    assert not Criterion.objects.filter(title__contains="bad").exists()


def test_a_nul_in_a_paper_url_is_a_404(client, jury):
    juror = _login(client, "juror1")
    for url in ("/jury/papers/%00/", "/jury/papers/P1-%00/paper.pdf", "/jury/papers/%00/tags/"):
        assert juror.get(url).status_code == 404, url


def test_a_nul_in_the_login_form_is_refused(client, jury):
    response = client.post(reverse("login"), {"username": "juror1\x00", "password": "x"})
    assert response.status_code == 200
    assert not response.wsgi_request.user.is_authenticated

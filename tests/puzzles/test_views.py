"""Organizer pages: access, leaderboard switches, exports, uploads, amendments."""

from __future__ import annotations

import csv
import io
import zipfile

import pytest
from django.contrib.messages import get_messages
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from openpyxl import load_workbook

from puzzles.models import AnswerAmendment, Competition, Output, System, Task
from tests.grading.factories import PaperFactory
from tests.puzzles.factories import ProblemFactory

pytestmark = pytest.mark.django_db


def test_anonymous_is_sent_to_login(client, demo_competition):
    response = client.get(reverse("puzzles:leaderboard", args=["demo"]))
    assert response.status_code == 302
    assert reverse("login") in response["Location"]


@pytest.mark.parametrize(
    "name,args",
    [
        ("puzzles:competitions", []),
        ("puzzles:competition", ["demo"]),
        ("puzzles:leaderboard", ["demo"]),
        ("puzzles:import_outputs", ["demo"]),
        ("puzzles:answer_key", ["demo"]),
        ("puzzles:import_iolai", []),
    ],
)
def test_juror_cannot_reach_organizer_pages(client, juror, demo_competition, name, args):
    client.force_login(juror)
    assert client.get(reverse(name, args=args)).status_code == 403


def test_leaderboard_lists_systems_ranked(organizer_client, demo_competition):
    response = organizer_client.get(reverse("puzzles:leaderboard", args=["demo"]))
    assert response.status_code == 200
    rows = response.context["rows"]
    assert [r.rank for r in rows] == sorted(r.rank for r in rows)
    assert rows[-1].system == "Baseline-echo"
    assert b"Frontier-A" in response.content


def test_leaderboard_switches_stage_and_metric(organizer_client, demo_competition):
    url = reverse("puzzles:leaderboard", args=["demo"])
    parsed = organizer_client.get(url, {"stage": "parsed"}).context["rows"]
    extracted = organizer_client.get(url, {"stage": "extracted"}).context["rows"]
    raw = "Frontier-C (raw text)"
    before = next(r for r in parsed if r.system == raw).overall.score
    after = next(r for r in extracted if r.system == raw).overall.score
    assert after > before
    sacre = organizer_client.get(url, {"metric": "sacrebleu"}).context["rows"]
    iol = organizer_client.get(url).context["rows"]
    assert {r.system: r.overall.chrf for r in sacre} != {r.system: r.overall.chrf for r in iol}


def test_leaderboard_tier_filter_and_sort(organizer_client, demo_competition):
    url = reverse("puzzles:leaderboard", args=["demo"])
    rows = organizer_client.get(url, {"tier": ["frontier"]}).context["rows"]
    assert {r.tier for r in rows} == {"frontier"}
    rows = organizer_client.get(url, {"sort": "system"}).context["rows"]
    assert [r.system for r in rows] == sorted(r.system for r in rows)


def test_leaderboard_htmx_returns_only_the_board(organizer_client, demo_competition):
    url = reverse("puzzles:leaderboard", args=["demo"])
    response = organizer_client.get(url, {"split": "public"}, HTTP_HX_REQUEST="true")
    body = response.content.decode()
    assert 'id="board"' in body
    assert "<html" not in body


def test_leaderboard_exports_csv_and_xlsx(organizer_client, demo_competition):
    url = reverse("puzzles:leaderboard_export", args=["demo", "csv"])
    response = organizer_client.get(url)
    assert response["Content-Disposition"].endswith('.csv"')
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    # The demo's external system has no outputs: its figures are elsewhere, not on the board.
    on_board = System.objects.filter(competition=demo_competition, outputs__isnull=False)
    assert len(rows) == on_board.distinct().count()
    assert {"score", "public_score", "task_12026010100"} <= set(rows[0])
    response = organizer_client.get(reverse("puzzles:leaderboard_export", args=["demo", "xlsx"]))
    sheet = load_workbook(io.BytesIO(response.content)).active
    assert sheet.cell(1, 1).value == "rank"
    assert sheet.max_row == len(rows) + 1
    url = reverse("puzzles:leaderboard_export", args=["demo", "csv"])
    assert organizer_client.get(url.replace(".csv", ".exe")).status_code == 404


def test_public_board_is_unpublished_by_default(client, organizer_client, demo_competition):
    url = reverse("puzzles:public_board", args=["demo"])
    assert client.get(url).status_code == 404
    organizer_client.post(reverse("puzzles:publish", args=["demo"]), {"publish": "1"})
    assert client.get(url).status_code == 200
    organizer_client.post(reverse("puzzles:publish", args=["demo"]), {"publish": "0"})
    assert client.get(url).status_code == 404


def test_publishing_while_the_jury_grades_warns(client, organizer_client):
    problem = ProblemFactory(competition__slug="board")  # no paper yet: the jury has not begun
    url = reverse("puzzles:publish", args=["board"])
    response = organizer_client.post(url, {"publish": "1"})
    assert not any("still grading" in str(m) for m in get_messages(response.wsgi_request))
    PaperFactory(problem=problem)  # the jury has a paper of it, not finalized
    response = organizer_client.post(url, {"publish": "1"}, follow=True)
    assert "The jury is still grading" in response.content.decode()


def test_public_board_shows_public_split_only(client, demo_competition):
    Competition.objects.filter(slug="demo").update(public_board=True)
    response = client.get(reverse("puzzles:public_board", args=["demo"]))
    assert response.status_code == 200
    body = response.content.decode()
    assert "Public split only" in body
    assert "Private" not in body


def test_upload_outputs_csv(organizer_client, demo_competition):
    content = 'id,pred,explanation\n12026010100,"[""dogs"", ""your house"", ""x""]",because\n'
    upload = SimpleUploadedFile("new.csv", content.encode(), content_type="text/csv")
    response = organizer_client.post(
        reverse("puzzles:import_outputs", args=["demo"]),
        {"system": "Uploaded", "file": upload, "tier": "open"},
    )
    assert response.status_code == 302
    output = Output.objects.get(system__name="Uploaded")
    assert output.scores["iol2026"]["parsed"]["item_em"] == [1.0, 1.0, 0.0]
    assert System.objects.get(name="Uploaded").tier == "open"


def test_upload_bad_csv_shows_error_and_writes_nothing(organizer_client, demo_competition):
    before = Output.objects.count()
    upload = SimpleUploadedFile("bad.csv", b"id,prediction\n12026010100,x\n")
    response = organizer_client.post(
        reverse("puzzles:import_outputs", args=["demo"]), {"system": "Broken", "file": upload}
    )
    assert response.status_code == 422  # the form again, the system name as typed
    assert 'value="Broken"' in response.content.decode()
    assert "bad.csv, line 1, field &#x27;pred&#x27;" in response.content.decode()
    assert Output.objects.count() == before
    assert not System.objects.filter(name="Broken").exists()


def test_upload_raw_jsonl_extracts(organizer_client, demo_competition):
    content = '{"id": "12026020100", "output": "Answer:\\na. 27\\nb. 17\\nc. 37\\n\\nExplanation: base six"}\n'
    upload = SimpleUploadedFile("raw.jsonl", content.encode())
    organizer_client.post(
        reverse("puzzles:import_outputs", args=["demo"]),
        {"system": "Chatty", "file": upload, "raw": "on"},
    )
    output = Output.objects.get(system__name="Chatty")
    assert output.extracted_items == ["27", "17", "37"]
    assert output.scores["iol2026"]["extracted"]["em"] == 1.0
    assert "base six" in output.explanation


def _zip_layout(directory) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in directory.rglob("*"):
            if path.is_file():
                archive.write(path, "layout/" + str(path.relative_to(directory)))
    return buffer.getvalue()


def test_upload_iolai_archive(organizer_client, tmp_path):
    from puzzles.demo import _write_layout

    _write_layout(tmp_path / "d")
    upload = SimpleUploadedFile("demo.zip", _zip_layout(tmp_path / "d"))
    response = organizer_client.post(
        reverse("puzzles:import_iolai"), {"slug": "zipped", "archive": upload}
    )
    assert response.status_code == 302
    competition = Competition.objects.get(slug="zipped")
    assert competition.systems.count() == 6
    assert Task.objects.filter(problem__competition=competition).count() == 7


def test_upload_iolai_not_a_zip(organizer_client):
    upload = SimpleUploadedFile("x.zip", b"not a zip")
    response = organizer_client.post(
        reverse("puzzles:import_iolai"), {"slug": "x", "archive": upload}
    )
    assert "not a zip archive" in response.content.decode()
    assert not Competition.objects.filter(slug="x").exists()


def test_amend_page_records_who_and_reports_changes(organizer_client, organizer, demo_competition):
    response = organizer_client.post(
        reverse("puzzles:answer_key", args=["demo"]),
        {"task": "12026010100", "item_number": 1, "action": "add", "text": "dog"},
    )
    assert response.status_code == 200
    amendment = AnswerAmendment.objects.get()
    assert amendment.created_by == organizer
    assert amendment.after[0] == ["dogs", "dog"]
    changed = {c["system"] for c in response.context["report"].changes}
    assert "Frontier-B" in changed  # it answered "dog"
    assert "History of amendments" in response.content.decode()


def test_amend_get_changes_nothing(organizer_client, demo_competition):
    organizer_client.get(
        reverse("puzzles:answer_key", args=["demo"]),
        {"task": "12026010100", "item_number": 1, "action": "add", "text": "dog"},
    )
    assert not AnswerAmendment.objects.exists()


def test_thresholds_page(organizer_client):
    competition = ProblemFactory(competition__slug="medals").competition
    url = reverse("puzzles:thresholds", args=["medals"])
    # Without rubrics the jury has a scale only if set.
    response = organizer_client.post(url, {"gold": "25", "silver": "20"})
    assert response.status_code == 422
    assert "has no scale to fit" in response.context["thresholds_form"].errors["gold"][0]
    organizer_client.post(reverse("puzzles:scale", args=["medals"]), {"points": "30"})
    organizer_client.post(url, {"gold": "25", "silver": "20", "bronze": "15"})
    competition.refresh_from_db()
    assert competition.gold_threshold == 25
    response = organizer_client.post(url, {"gold": "10", "silver": "20"})
    assert response.status_code == 422
    assert response.context["thresholds_form"].errors["silver"] == [
        "silver threshold 20 is above gold threshold 10"
    ]
    competition.refresh_from_db()
    assert competition.silver_threshold == 20 and competition.gold_threshold == 25


def test_model_text_is_escaped(organizer_client, demo_competition):
    System.objects.create(competition=demo_competition, name="<script>alert(1)</script>")
    body = organizer_client.get(reverse("puzzles:leaderboard", args=["demo"])).content.decode()
    assert "<script>alert(1)</script>" not in body
    assert "&lt;script&gt;" in body


def test_leaderboard_shows_extraction_effect(organizer_client, demo_competition):
    response = organizer_client.get(reverse("puzzles:leaderboard", args=["demo"]))
    effect = response.context["extraction"]
    top = effect[0]
    assert top["system"] == "Frontier-C (raw text)"
    assert top["score_after"] > top["score_before"]
    assert top["gain"] == round(top["score_after"] - top["score_before"], 4)


def test_rescore_button_runs_the_task(organizer_client, demo_competition):
    Output.objects.filter(system__competition=demo_competition).update(scores={})
    url = reverse("puzzles:rescore", args=["demo"])
    response = organizer_client.post(url, HTTP_HX_REQUEST="true")
    assert response.status_code == 286  # done (eager in tests): htmx stops polling
    assert "rescored" in response.content.decode()
    assert all(o.scores for o in Output.objects.filter(system__competition=demo_competition))
    assert organizer_client.get(url).status_code == 405


def test_a_refused_amendment_comes_back_as_typed_in_its_items_form(
    organizer_client, demo_competition
):
    url = reverse("puzzles:answer_key", args=["demo"])
    data = {"task": "12026010100", "item_number": 1, "action": "remove", "text": "not in key"}
    response = organizer_client.post(url, data)
    assert response.status_code == 422
    assert not AnswerAmendment.objects.exists()
    body = response.content.decode()
    assert 'value="not in key" aria-invalid="true" aria-describedby="amend-error"' in body
    assert body.count('value="remove" selected') == 1
    assert '<p class="error" id="amend-error" role="alert"><strong>Not amended:</strong>' in body

"""Import pages refuse a file too large to import within a request, before reading it, and
name the command that imports it (ioleval/uploads.py; one rule for every such page)."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from grading.forms import ContestantsUploadForm, MarksUploadForm, SystemScoresUploadForm
from grading.models import Mark
from puzzles.analytics.probes.forms import ProbesImportForm
from puzzles.analytics.runs.forms import RunOutputsImportForm, RunsImportForm
from puzzles.analytics.techniques.forms import TagsImportForm
from puzzles.forms import OutputsImportForm
from puzzles.models import Competition, Output, Task

pytestmark = pytest.mark.django_db


def _csv(rows: int, header: str = "system,problem,criterion,juror,points,comment") -> bytes:
    return (header + "\n" + "S,1,1a,juror1,1,\n" * rows).encode()


@pytest.fixture
def organizer(demo, client):
    client.force_login(get_user_model().objects.get(username="organizer"))
    return client


def _messages(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def test_the_issues_10290_marks_are_refused_with_the_command_to_use(organizer, settings):
    """The red team's file: 10,290 rows, which took the web worker past its timeout."""
    assert settings.IOLEVAL_WEB_IMPORT_MAX_ROWS < 10_290  # the default
    marks = Mark.objects.count()
    upload = SimpleUploadedFile("marks.csv", _csv(10_290), content_type="text/csv")
    response = organizer.post(
        reverse("grading:marks_upload", args=["demo"]), {"file": upload}, follow=True
    )
    shown = _messages(response)
    assert len(shown) == 1
    assert "marks.csv has more than 1,000 rows" in shown[0]
    assert "IOLEVAL_WEB_IMPORT_MAX_ROWS" in shown[0]
    assert "`python manage.py import_marks SLUG FILE.csv [--final]`" in shown[0]
    assert Mark.objects.count() == marks


def test_outputs_past_the_limit_are_refused_on_their_page(organizer, settings):
    settings.IOLEVAL_WEB_IMPORT_MAX_ROWS = 10
    outputs = Output.objects.count()
    upload = SimpleUploadedFile("big.csv", _csv(11, header="id,pred"), content_type="text/csv")
    response = organizer.post(
        reverse("puzzles:import_outputs", args=["demo"]),
        {"system": "New system", "file": upload},
    )
    assert response.status_code == 422  # the form again, with its error
    body = response.content.decode()
    assert "big.csv has more than 10 rows" in body
    assert "python manage.py import_outputs SLUG FILE --system NAME [--raw]" in body
    assert Output.objects.count() == outputs


def test_an_iolai_zip_past_the_byte_limit_is_refused_on_its_page(organizer, settings):
    settings.IOLEVAL_WEB_IMPORT_MAX_BYTES = 1_000
    upload = SimpleUploadedFile("big.zip", b"PK\x03\x04" + b"\0" * 2_000)
    response = organizer.post(reverse("puzzles:import_iolai"), {"slug": "big", "archive": upload})
    body = response.content.decode()
    assert "big.zip has 2,004 bytes; a page imports up to 1,000" in body
    assert "python manage.py import_iolai DIR --slug SLUG" in body
    assert not Competition.objects.filter(slug="big").exists()


@pytest.mark.parametrize(
    ("form_class", "field", "command"),
    [
        (MarksUploadForm, "file", "import_marks SLUG FILE.csv [--final]"),
        (SystemScoresUploadForm, "file", "import_system_scores SLUG FILE.csv"),
        (ContestantsUploadForm, "file", "import_contestants SLUG FILE.csv"),
        (OutputsImportForm, "file", "import_outputs SLUG FILE --system NAME [--raw]"),
        (RunsImportForm, "file", "import_runs SLUG FILE.csv [--scope SCOPE]"),
        (RunOutputsImportForm, "file", "import_run_outputs SLUG FILE.csv"),
        (ProbesImportForm, "file", "import_probes SLUG FILE.csv"),
        (TagsImportForm, "file", "tag_runs SLUG FILE.csv"),
    ],
)
def test_every_import_form_follows_the_one_rule(form_class, field, command, settings):
    settings.IOLEVAL_WEB_IMPORT_MAX_ROWS = 10
    prefix = form_class.prefix
    name = f"{prefix}-{field}" if prefix else field
    data = {"system": "S", "final": ""}
    at_limit = form_class(data, {name: SimpleUploadedFile("ok.csv", _csv(9))})
    at_limit.is_valid()
    assert field not in at_limit.errors
    over = form_class(data, {name: SimpleUploadedFile("big.csv", _csv(10))})
    assert not over.is_valid()
    assert f"`python manage.py {command}`" in over.errors[field][0]


def test_a_file_under_the_limit_is_read_from_its_start(settings):
    settings.IOLEVAL_WEB_IMPORT_MAX_ROWS = 10
    form = MarksUploadForm({}, {"file": SimpleUploadedFile("ok.csv", _csv(3))})
    assert form.is_valid()
    assert io.TextIOWrapper(form.cleaned_data["file"].file).readline().startswith("system,")


def _outputs_with_long_explanations(tasks: list[str], lines_each: int) -> bytes:
    """A submission CSV whose explanations span many lines inside their quoted field, as a
    real system's do (one IOL-AI outputs file: 14 records, 1,185 line breaks)."""
    out = io.StringIO(newline="")
    writer = csv.writer(out)
    writer.writerow(["id", "pred", "explanation"])
    for task in tasks:
        steps = "\n".join(
            f"Step {n}: the form ends in -ka, so the gloss is 'x'."
            for n in range(1, lines_each + 1)
        )
        writer.writerow([task, "1. a\n2. b", steps])
    return out.getvalue().encode()


def test_a_csv_of_few_records_with_many_line_breaks_is_imported(organizer, settings):
    settings.IOLEVAL_WEB_IMPORT_MAX_ROWS = 1_000  # the default
    competition = Competition.objects.get(slug="demo")
    tasks = list(
        Task.objects.filter(problem__competition=competition).values_list("external_id", flat=True)
    )
    data = _outputs_with_long_explanations(tasks, lines_each=200)
    assert data.count(b"\n") > settings.IOLEVAL_WEB_IMPORT_MAX_ROWS > 10 * len(tasks)
    response = organizer.post(
        reverse("puzzles:import_outputs", args=["demo"]),
        {"system": "Verbose system", "file": SimpleUploadedFile("verbose.csv", data)},
        follow=True,
    )
    assert "has more than" not in response.content.decode()
    imported = Output.objects.filter(system__name="Verbose system")
    assert imported.count() == len(tasks)
    assert imported.first().explanation.count("\n") == 199


def test_the_limit_counts_csv_records_and_jsonl_lines(settings):
    settings.IOLEVAL_WEB_IMPORT_MAX_ROWS = 10
    long = _outputs_with_long_explanations([f"t{n}" for n in range(9)], lines_each=50)
    assert MarksUploadForm({}, {"file": SimpleUploadedFile("ok.csv", long)}).is_valid()
    longer = _outputs_with_long_explanations([f"t{n}" for n in range(10)], lines_each=1)
    form = MarksUploadForm({}, {"file": SimpleUploadedFile("big.csv", longer)})
    assert not form.is_valid()
    assert "big.csv has more than 10 rows" in form.errors["file"][0]
    # Free model text: JSON lines, whatever quotes they hold, counted as lines.
    jsonl = "".join(json.dumps({"id": f"t{n}", "output": '"'}) + "\n" for n in range(11))
    data = {"system": "S", "raw": "on"}
    files = {"file": SimpleUploadedFile("big.jsonl", jsonl.encode())}
    form = OutputsImportForm(data, files)
    assert not form.is_valid()
    assert "big.jsonl has more than 10 lines" in form.errors["file"][0]


# --- one decoder: UTF-8, a byte-order mark dropped, an error naming file and line ----------


def test_an_upload_is_utf8_with_its_byte_order_mark_dropped():
    from ioleval.uploads import upload_stream, upload_text

    data = '\ufeffid,pred\r\n1,"a\r\nb"\r\n'.encode()
    assert upload_text(SimpleUploadedFile("s.csv", data)) == 'id,pred\r\n1,"a\r\nb"\r\n'
    rows = list(csv.reader(upload_stream(SimpleUploadedFile("s.csv", data))))
    assert rows == [["id", "pred"], ["1", "a\r\nb"]]  # the quoted line end kept as it was


def test_text_not_utf8_is_refused_naming_the_file_and_line():
    from grading.errors import GradingError
    from ioleval.errors import ImportFailure
    from ioleval.uploads import text_decode, upload_text

    with pytest.raises(ImportFailure) as caught:
        upload_text(SimpleUploadedFile("latin.csv", "a\nb\ncafé\n".encode("latin-1")))
    assert str(caught.value) == "latin.csv, line 3: not UTF-8 text"
    with pytest.raises(GradingError) as caught:  # the caller's own error type
        text_decode(b"\xff", file="rubric.json", error=GradingError)
    assert str(caught.value) == "rubric.json, line 1: not UTF-8 text"

"""Outputs are read exactly as the IOL-AI 2026 competition read them.

The competition read a submission with `pandas.read_csv(dtype=str)` and turned missing
cells into "", stripped each prediction before splitting it into lines, matched ids without
leading zeros, kept the last of several rows with one id and ignored unknown ids. The first
tests pin each rule; the last imports perturbed submissions built from the 46 archived
records and checks every figure against a pure-pandas reading (tests/puzzles/reading_reference.py).
"""

from __future__ import annotations

import csv
import io
import json
import random
import shutil
from io import StringIO
from pathlib import Path

import pandas as pd
import pytest
from django.contrib.messages import get_messages
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import transaction
from django.urls import reverse

from puzzles.metrics import parse_prediction
from puzzles.models import Competition, Output
from puzzles.selectors import leaderboard
from puzzles.tabular import PANDAS_NA_VALUES, pandas_reads_missing
from tests.conftest import IOLAI_DIR

from . import reading_reference as ref
from .factories import CompetitionFactory, ProblemFactory, TaskFactory

SLUG = "reading"
T1, T2 = "12026010100", "12026010200"
# A fixed sample on every run; benchmarks/reading_parity.py checks 400.
N_VARIANTS = 120


def _pandas_cell(cell: str) -> str:
    """Return what pandas.read_csv(dtype=str).fillna("") makes of one CSV cell."""
    frame = pd.read_csv(io.StringIO(f"id,pred\n1,{cell}\n"), dtype=str).fillna("")
    return frame["pred"][0]


# --- the missing-value tokens --------------------------------------------------------------


def test_the_token_list_is_the_installed_pandas_default():
    assert PANDAS_NA_VALUES == frozenset(pd._libs.parsers.STR_NA_VALUES)


@pytest.mark.parametrize(
    "cell",
    [
        *sorted(PANDAS_NA_VALUES - {""}),
        *(f'"{token}"' for token in sorted(PANDAS_NA_VALUES)),  # quoting does not protect
        " NA",
        "NA ",
        '" N/A"',
        "na",
        "none",
        "NONE",
        "Nan",
        "\u00a0NA",
        "NA.",
        "[null]",
    ],
)
def test_a_cell_is_missing_exactly_when_pandas_reads_it_as_missing(cell):
    value = next(csv.reader([f"1,{cell}"]))[1]  # the cell as ioleval's reader gives it
    assert pandas_reads_missing(value) == (_pandas_cell(cell) == "")


# --- parsing the prediction string ---------------------------------------------------------


@pytest.mark.parametrize(
    ("pred", "items"),
    [
        (" 1. a\n2. b", ["a", "b"]),
        ("\n\n  1) a\n2) b\n", ["a", "b"]),
        ("\t1.a\r\n2.b\r\n", ["a", "b"]),
        ("1. a\n 2. b", ["a", "2. b"]),  # only the whole string is stripped
        (" \n 1. a\n\n  2. b  \n", ["a", "2. b"]),
        ('  ["x", "y"]\n', ["x", "y"]),
        ("1. a\r2. b", ["a\r2. b", ""]),  # a lone CR does not end a line
    ],
)
def test_parse_strips_the_whole_prediction_before_splitting_lines(pred, items):
    assert parse_prediction(pred, 2).items == items
    assert ref.parse(pred, 2)[0] == items


def test_parse_agrees_with_the_reference_on_every_model_style():
    items = ["kayé zwefafth", "nümä thäsa", "3"]
    for style in ref.MODEL_STYLES:
        reply = ref._model_reply(random.Random(1), style, items)
        for text in (reply, " " + reply, "\n" + reply + "\n"):
            ours = parse_prediction(text, 3)
            theirs, n_parsed, clean = ref.parse(text, 3)
            assert (ours.items, ours.n_items_parsed, ours.clean_json_list) == (
                theirs,
                n_parsed,
                clean,
            ), (style, text)


# --- importing a submission CSV ------------------------------------------------------------


@pytest.fixture
def small(db) -> Competition:
    competition = CompetitionFactory(slug=SLUG)
    problem = ProblemFactory(competition=competition, number=1)
    TaskFactory(problem=problem, number=1, external_id=T1, answer_key=[["dog"], ["cat"]])
    TaskFactory(problem=problem, number=2, external_id=T2, answer_key=[["tree"]])
    return competition


def _import(tmp_path: Path, text: str, system: str = "S") -> str:
    path = tmp_path / "sub.csv"
    path.write_bytes(text.encode("utf-8"))
    out = StringIO()
    call_command("import_outputs", SLUG, str(path), "--system", system, stdout=out)
    return out.getvalue()


def _outputs(system: str = "S") -> dict[str, Output]:
    return {o.task.external_id: o for o in Output.objects.filter(system__name=system)}


@pytest.mark.parametrize("token", sorted(PANDAS_NA_VALUES - {""}))
def test_a_missing_value_token_is_an_empty_prediction_and_explanation(small, tmp_path, token):
    out = _import(tmp_path, f'id,pred,explanation\n{T1},{token},"{token}"\n{T2},tree,why\n')
    output = _outputs()[T1]
    assert output.raw_text == ""
    assert output.explanation == ""
    assert output.parsed_items == ["", ""]
    assert output.format_flags["empty"] is True
    assert f"{token!r} (line 2, pred)" in out
    assert "2 cell(s) read as empty, as the competition's pandas read them" in out
    _, rows = leaderboard(small)
    assert rows[0].explanation_rate == 0.5


@pytest.mark.parametrize("cell", [" NA", "NA ", "na", "none", '" null"'])
def test_a_token_with_other_case_or_spaces_is_text(small, tmp_path, cell):
    _import(tmp_path, f"id,pred,explanation\n{T1},{cell},{cell}\n")
    output = _outputs()[T1]
    assert output.raw_text == _pandas_cell(cell) != ""
    assert output.explanation == output.raw_text.strip()


def test_whitespace_before_the_first_numbered_line_does_not_keep_its_number(small, tmp_path):
    _import(tmp_path, f'id,pred\n{T1}," 1. dog\n2. cat"\n')
    output = _outputs()[T1]
    assert output.parsed_items == ["dog", "cat"]
    assert output.scores["iol2026"]["parsed"]["em"] == 1.0
    assert output.scores["sacrebleu"]["parsed"]["em"] == 1.0


def _refusal(tmp_path: Path, text: str) -> str:
    with pytest.raises(CommandError) as exc:
        _import(tmp_path, text)
    assert not Output.objects.exists()
    return str(exc.value)


def test_leading_zeros_are_refused_saying_the_competition_matched_them(small, tmp_path):
    message = _refusal(tmp_path, f'id,pred\n0{T1},"[""dog"", ""cat""]"\n{T2},tree\n')
    assert f"id '0{T1}' is task {T1} written with other leading zeros" in message
    assert f"scored this row for task {T1}; write the id as {T1}" in message
    assert "line 2, field 'id'" in message


def test_leading_zeros_beside_the_plain_id_say_which_row_counted(small, tmp_path):
    message = _refusal(tmp_path, f"id,pred\n00{T1},dog\n{T2},tree\n{T1},cat\n")
    assert f"took this row for task {T1} and, of the rows for it (lines 2, 4)," in message
    assert "scored only the last (line 4)" in message
    assert "line 2, field 'id'" in message


def test_a_duplicate_id_is_refused_saying_the_last_row_counted(small, tmp_path):
    message = _refusal(tmp_path, f"id,pred\n{T1},dog\n{T2},tree\n{T1},cat\n{T1} ,bird\n")
    assert f"duplicate id '{T1}' (first on line 2)" in message
    assert "scored only the last row with this id (line 5) and ignored the others" in message
    assert "line 4, field 'id'" in message


def test_an_unknown_id_is_refused_saying_the_competition_ignored_it(small, tmp_path):
    message = _refusal(tmp_path, f"id,pred\n{T1},dog\nNA,cat\n")
    assert "unknown task id 'NA': the competition ignored rows whose id is not" in message
    assert "line 3, field 'id'" in message


def test_what_the_messages_say_is_what_pandas_does(small, tmp_path):
    """The claims in the refusals above, checked against the pure-pandas reading."""
    path = tmp_path / "s.csv"
    path.write_text(f"id,pred\n0{T1},first\n{T2},tree\n{T1},last\n 99,x\nNA,y\n")
    preds, _ = ref.read_submission(path)
    assert preds == {T1: "last", T2: "tree", "99": "x", "0": "y"}  # 99 and NA: no task


def test_a_bare_cr_file_is_read_as_written_where_pandas_shifts_a_row(small, tmp_path):
    # The one difference kept on purpose (docs/commands.md, "How outputs are read"): with bare-CR line
    # ends, pandas' C tokenizer drops the empty first field of a row after a blank line.
    text = f"explanation,id,pred\r,{T1},dog\r\r,{T2},tree\r"
    path = tmp_path / "cr.csv"
    path.write_bytes(text.encode())
    preds, _ = ref.read_submission(path)
    assert preds == {T1: "dog", "tree": ""}  # the competition lost the row for T2
    _import(tmp_path, text)
    assert {t: o.raw_text for t, o in _outputs().items()} == {T1: "dog", T2: "tree"}


def test_the_upload_page_reads_as_the_command_does(organizer_client, small):
    content = f"\ufeffid,pred,explanation\r\n{T1}, 1. dog\r\n{T2},N/A,None\r\n"
    upload = SimpleUploadedFile("sub.csv", content.encode("utf-8"), content_type="text/csv")
    response = organizer_client.post(
        reverse("puzzles:import_outputs", args=[SLUG]), {"system": "Paged", "file": upload}
    )
    assert response.status_code == 302
    outputs = _outputs("Paged")
    assert outputs[T1].parsed_items == ["dog", ""]
    assert (outputs[T2].raw_text, outputs[T2].explanation) == ("", "")
    shown = [str(m) for m in get_messages(response.wsgi_request)]
    assert any("2 cell(s) read as empty" in m and "'N/A' (line 3, pred)" in m for m in shown)


def test_the_upload_page_refuses_a_duplicate_saying_what_the_competition_did(
    organizer_client, small
):
    content = f"id,pred\n{T1},dog\n{T1},cat\n"
    upload = SimpleUploadedFile("dup.csv", content.encode("utf-8"), content_type="text/csv")
    response = organizer_client.post(
        reverse("puzzles:import_outputs", args=[SLUG]), {"system": "Paged", "file": upload}
    )
    assert response.status_code == 422
    body = response.content.decode()
    assert "dup.csv, line 3, field &#x27;id&#x27;" in body
    assert "the competition scored only the last row with this id (line 3)" in body
    assert not Output.objects.exists()


# --- parity on perturbed submissions -------------------------------------------------------


@pytest.fixture(scope="module")
def iol_tasks(django_db_setup, django_db_blocker, tmp_path_factory):
    """The 14 IOL-AI tasks and answer key, no systems; rolled back at the end."""
    if not IOLAI_DIR.is_dir():
        pytest.fail(f"the shared IOL-AI data is missing at {IOLAI_DIR}")
    layout = tmp_path_factory.mktemp("layout")
    (layout / "task").symlink_to(IOLAI_DIR / "task", target_is_directory=True)
    with django_db_blocker.unblock():
        with transaction.atomic():
            call_command("import_iolai", str(layout), "--slug", SLUG, stdout=StringIO())
            yield Competition.objects.get(slug=SLUG)
            transaction.set_rollback(True)
    shutil.rmtree(layout)


def test_the_reference_reproduces_the_46_official_records(tmp_path):
    key = ref.answer_key(IOLAI_DIR)
    for record in ref.archived_records(IOLAI_DIR):
        rows = [["id", "pred", "explanation"]]
        rows += [[t, record.preds[t], record.explanations[t]] for t in sorted(record.preds)]
        path = tmp_path / "record.csv"
        buffer = io.StringIO()
        csv.writer(buffer).writerows(rows)
        path.write_text(buffer.getvalue(), encoding="utf-8")
        figures = ref.competition_figures(path, key)
        official = json.loads(
            (IOLAI_DIR / "submissions" / record.name / "metrics.json").read_text()
        )
        for figure in ("score", "exact_match", "chrf", "public_score", "private_split_score"):
            assert figures[figure] == round(official[figure], 4), (record.name, figure)
        for figure, theirs in (
            ("line_format_match_rate", "format_line_match_rate"),
            ("clean_format_rate", "format_clean_rate"),
            ("explanation_rate", "explanation_rate"),
        ):
            assert figures[figure] == round(official[theirs] / 100, 4), (record.name, figure)


@pytest.mark.django_db
def test_perturbed_submissions_score_as_the_competition_scored_them(iol_tasks, tmp_path):
    key = ref.answer_key(IOLAI_DIR)
    variants = ref.submission_variants(IOLAI_DIR, key, N_VARIANTS)
    assert sum(bool(v.refused_with) for v in variants) >= 10
    outcome = ref.import_and_compare(iol_tasks.slug, variants, key, tmp_path)
    assert {name: problems for name, problems in outcome.items() if problems} == {}
    assert len(outcome) == N_VARIANTS

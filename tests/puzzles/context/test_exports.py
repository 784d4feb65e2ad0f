"""CSV and XLSX of the context lab's tables: the page's figures, neutralized text."""

from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse
from openpyxl import load_workbook

from puzzles.context.lab.analysis import Example, Question
from puzzles.context.lab.services import PuzzleSpec, puzzle_save

pytestmark = pytest.mark.django_db


def _export(client, slug: str, table: str, fmt: str, **query):
    # The route names csv and xlsx only (ioleval.tables): another format is built by hand.
    url = reverse("puzzles:context_puzzle_export", args=[slug, table, "csv"])
    return client.get(url.removesuffix(".csv") + f".{fmt}", query)


def _rows(response) -> list[list[str]]:
    return list(csv.reader(io.StringIO(response.content.decode())))


@pytest.fixture
def demo_puzzles(demo):
    return demo.puzzles


def test_examples_csv_holds_the_pages_figures(organizer_client, demo_puzzles):
    response = _export(organizer_client, "demo-tolmeric", "examples", "csv")
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert 'filename="demo-tolmeric-examples-normalized.csv"' in response["Content-Disposition"]
    rows = _rows(response)
    assert rows[0] == ["index", "foreign", "english", "d", "dq", "singletons", "damaged_questions"]
    assert rows[6] == ["6", "Obi kasa dorem.", "The boy builds the house.", "1", "2", "dorem",
                       "1.b 1.c"]  # fmt: skip


def test_the_tokenizer_option_reaches_the_export(organizer_client, demo_puzzles):
    ours = _rows(_export(organizer_client, "demo-vashko", "coverage", "csv"))
    paper = _rows(
        _export(organizer_client, "demo-vashko", "coverage", "csv", tokenizer="whitespace")
    )
    assert ours[0] == ["token", "e1", "e2", "e3", "e4", "e5", "e6", "singleton", "questions"]
    assert ours[1] == ["mira", "1", "0", "1", "0", "1", "0", "0", "1 3"]
    assert ["Mira", "1", "0", "0", "0", "0", "0", "1", "1 3"] in paper
    assert len(paper) > len(ours)


def test_questions_and_deletions_tables(organizer_client, demo_puzzles):
    questions = _rows(_export(organizer_client, "demo-ubrenti", "questions", "csv"))
    assert questions[2] == [
        "B",
        "to_foreign",
        "apa=r sulu rewa / apa=r rewa",
        "",
        "4",
        "1",
        "4",
        "1",
    ]
    deletions = _rows(_export(organizer_client, "demo-tolmeric", "deletions", "csv", k="3"))
    assert [r[:5] for r in deletions[1:]] == [
        ["1", "6", "2", "6", "2"],
        ["2", "5 6", "3", "5 6", "3"],
        ["3", "4 5 6", "4", "2 4 6", "4"],
    ]


def test_xlsx_exports_hold_numbers_as_numbers(organizer_client, demo_puzzles):
    response = _export(organizer_client, "demo-tolmeric", "examples", "xlsx")
    assert response["Content-Type"].startswith("application/vnd.openxmlformats")
    sheet = load_workbook(io.BytesIO(response.content)).active
    assert [c.value for c in sheet[7]][:5] == [
        6,
        "Obi kasa dorem.",
        "The boy builds the house.",
        1,
        2,
    ]
    corpus = organizer_client.get(reverse("puzzles:context_corpus_export", args=["xlsx"]))
    rows = list(load_workbook(io.BytesIO(corpus.content)).active.values)
    assert rows[0][0] == "puzzle" and {r[0] for r in rows[1:]} == {
        "demo-tolmeric",
        "demo-vashko",
        "demo-ubrenti",
    }


def test_the_corpus_csv(organizer_client, demo_puzzles):
    url = reverse("puzzles:context_corpus_export", args=["csv"])
    rows = _rows(organizer_client.get(url, {"tokenizer": "whitespace"}))
    vashko = next(r for r in rows if r[0] == "demo-vashko")
    assert vashko[7:9] == ["1", "1"]  # fragile, max D_Q 1 when split on whitespace


def test_text_that_a_spreadsheet_would_run_is_neutralized(organizer_client):
    spec = PuzzleSpec(
        slug="formula",
        title="=HYPERLINK(1)",
        language="",
        examples=(Example(foreign=("=cmd|x ka",), english="+1"), Example(foreign=("ka",))),
        questions=(Question(id="@q", direction="to_english", prompt="=cmd|x", answers=("x",)),),
    )
    puzzle_save(spec=spec)
    rows = _rows(_export(organizer_client, "formula", "examples", "csv"))
    assert rows[1][1:3] == ["'=cmd|x ka", "'+1"]
    coverage = _rows(_export(organizer_client, "formula", "coverage", "csv"))
    assert coverage[1][0] == "'=cmd|x" and coverage[1][-1] == "'@q"
    sheet = load_workbook(
        io.BytesIO(_export(organizer_client, "formula", "examples", "xlsx").content)
    ).active
    assert sheet["B2"].value == "=cmd|x ka" and sheet["B2"].data_type == "s"
    corpus = _rows(organizer_client.get(reverse("puzzles:context_corpus_export", args=["csv"])))
    assert corpus[1][1] == "'=HYPERLINK(1)"


@pytest.mark.parametrize(
    ("table", "fmt"), [("nope", "csv"), ("examples", "pdf"), ("examples", "json")]
)
def test_unknown_tables_and_formats_are_404(organizer_client, demo_puzzles, table, fmt):
    assert _export(organizer_client, "demo-tolmeric", table, fmt).status_code == 404
    url = reverse("puzzles:context_corpus_export", args=["csv"]).removesuffix(".csv")
    assert organizer_client.get(f"{url}.{fmt}").status_code == (200 if fmt == "csv" else 404)


def test_jurors_cannot_export(client, juror, demo_puzzles):
    client.force_login(juror)
    assert _export(client, "demo-tolmeric", "examples", "csv").status_code == 403

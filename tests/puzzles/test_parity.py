"""Parity with the IOL-AI 2026 results: every official figure of all 46 records, reproduced.

The real data set is imported once for the module (inside a transaction rolled back at the
end), then each test reads it through the `score` command as an organizer would.
"""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import transaction

from puzzles.models import Competition, Output, Problem, System, Task
from tests.conftest import IOLAI_DIR

SLUG = "iol"
FIGURES = ("score", "exact_match", "chrf", "public_score")


def _index_records() -> list[dict]:
    return json.loads((IOLAI_DIR / "index.json").read_text(encoding="utf-8"))["records"]


def _official(record: dict) -> dict:
    return json.loads((IOLAI_DIR / record["path"] / "metrics.json").read_text(encoding="utf-8"))


def _score(*args: str) -> dict[str, dict]:
    out = StringIO()
    call_command("score", SLUG, "--format", "json", *args, stdout=out)
    rows = json.loads(out.getvalue())
    by_system = {row["system"]: row for row in rows}
    assert len(by_system) == len(rows), "system names on the board are not unique"
    return by_system


def _counts(competition: Competition) -> dict[str, int]:
    return {
        "problems": Problem.objects.filter(competition=competition).count(),
        "tasks": Task.objects.filter(problem__competition=competition).count(),
        "systems": System.objects.filter(competition=competition).count(),
        "outputs": Output.objects.filter(system__competition=competition).count(),
    }


@pytest.fixture(scope="module")
def iol(django_db_setup, django_db_blocker):
    """Import the IOL-AI directory once for the module; roll it back afterwards."""
    if not IOLAI_DIR.is_dir():
        pytest.fail(f"the shared IOL-AI data is missing at {IOLAI_DIR}")
    with django_db_blocker.unblock():
        with transaction.atomic():
            out = StringIO()
            call_command("import_iolai", str(IOLAI_DIR), "--slug", SLUG, stdout=out)
            yield {"summary": out.getvalue(), "competition": Competition.objects.get(slug=SLUG)}
            transaction.set_rollback(True)


def test_index_lists_46_records():
    records = _index_records()
    assert len(records) == 46
    assert len({r["team"] for r in records}) == 46


@pytest.mark.django_db
def test_import_summary_counts(iol):
    summary = iol["summary"]
    assert "problems: 5 created, 0 updated" in summary
    assert "tasks: 14 created, 0 updated" in summary
    assert "systems: 46 created, 0 updated" in summary
    assert "outputs: 644 created, 0 updated" in summary
    assert _counts(iol["competition"]) == {
        "problems": 5,
        "tasks": 14,
        "systems": 46,
        "outputs": 46 * 14,
    }


@pytest.mark.django_db
def test_score_reproduces_official_figures_of_all_46_records(iol):
    board = _score()
    records = _index_records()
    assert len(board) == 46
    assert set(board) == {r["team"] for r in records}
    mismatches = []
    for record in records:
        official = _official(record)
        row = board[record["team"]]
        for figure in FIGURES:
            if round(row[figure], 4) != round(official[figure], 4):
                mismatches.append((record["team"], figure, row[figure], official[figure]))
    assert mismatches == []


@pytest.mark.django_db
def test_index_figures_agree_with_metrics_files():
    # The board's own summary and the per-record files are one source; check they agree
    # so that the parity test above cannot pass against a stale index.
    for record in _index_records():
        official = _official(record)
        for figure in (*FIGURES, "private_split_score"):
            assert record[figure] == official[figure], (record["team"], figure)


@pytest.mark.django_db
def test_score_reproduces_private_split_score(iol):
    board = _score()
    mismatches = []
    for record in _index_records():
        official = _official(record)["private_split_score"]
        got = board[record["team"]]["private_split_score"]
        if round(got, 4) != round(official, 4):
            mismatches.append((record["team"], got, official))
    assert mismatches == []


@pytest.mark.django_db
def test_score_reproduces_format_and_explanation_rates(iol):
    board = _score()
    mismatches = []
    for record in _index_records():
        official = _official(record)
        row = board[record["team"]]
        pairs = (
            ("line_format_match_rate", "format_line_match_rate"),
            ("explanation_rate", "explanation_rate"),
        )
        for ours, theirs in pairs:
            expected = round(official[theirs] / 100, 4)
            if round(row[ours], 4) != expected:
                mismatches.append((record["team"], ours, row[ours], expected))
    assert mismatches == []


@pytest.mark.django_db
def test_all_columns_reproduce_split_figures_and_format_counts(iol):
    board = _score("--all-columns")
    mismatches = []
    for record in _index_records():
        official = _official(record)
        row = board[record["team"]]
        expected = {
            "public_exact_match": official["public_exact_match"],
            "public_chrf": official["public_chrf"],
            "private_split_exact_match": official["private_split_exact_match"],
            "private_split_chrf": official["private_split_chrf"],
            "clean_format_rate": round(official["format_clean_rate"] / 100, 4),
            "empty_predictions": official["empty_predictions"],
        }
        for column, value in expected.items():
            if round(row[column], 4) != round(value, 4):
                mismatches.append((record["team"], column, row[column], value))
    assert mismatches == []


@pytest.mark.django_db
def test_item_scores_match_official_row_scores(iol):
    outputs = {
        (o.system.name, o.task.external_id): o
        for o in Output.objects.filter(system__competition=iol["competition"]).select_related(
            "system", "task"
        )
    }
    mismatches = []
    for record in _index_records():
        rows = json.loads((IOLAI_DIR / record["path"] / "predictions.json").read_text("utf-8"))
        for row in rows:
            ours = outputs[(record["team"], row["id"])].scores["iol2026"]["parsed"]
            theirs = row["scores"]
            if ours["item_em"] != theirs["item_em"] or any(
                abs(a - b) > 1e-6
                for a, b in zip(ours["item_chrf"], theirs["item_chrf"], strict=True)
            ):
                mismatches.append((record["team"], row["id"]))
    assert mismatches == []


@pytest.mark.django_db
def test_sacrebleu_metric_gives_a_different_chrf(iol):
    iol2026 = _score()
    sacrebleu = _score("--metric", "sacrebleu")
    assert set(sacrebleu) == set(iol2026)
    differing = [s for s in iol2026 if sacrebleu[s]["chrf"] != iol2026[s]["chrf"]]
    assert differing
    # Only chrF changes: exact match, parsing and aggregation are shared.
    assert all(sacrebleu[s]["exact_match"] == iol2026[s]["exact_match"] for s in iol2026)


@pytest.mark.django_db
def test_reimport_is_idempotent(iol):
    competition = iol["competition"]
    counts = _counts(competition)
    board = _score()
    keys = dict(
        Task.objects.filter(problem__competition=competition).values_list(
            "external_id", "answer_key"
        )
    )
    out = StringIO()
    call_command("import_iolai", str(IOLAI_DIR), "--slug", SLUG, stdout=out)
    summary = out.getvalue()
    assert "competition: 0 created, 1 updated" in summary
    assert "systems: 0 created, 46 updated" in summary
    assert "outputs: 0 created, 644 updated" in summary
    assert Competition.objects.filter(slug=SLUG).count() == 1
    assert _counts(competition) == counts
    assert _score() == board
    assert (
        dict(
            Task.objects.filter(problem__competition=competition).values_list(
                "external_id", "answer_key"
            )
        )
        == keys
    )


@pytest.mark.django_db
def test_parsed_items_are_the_competitions_predicted_items(iol):
    # predictions.json keeps, for every archived row, the items the competition's parser
    # made of `pred`: ioleval's parser must give the same on all 644.
    parsed = {
        (o.system.name, o.task.external_id): o.parsed_items
        for o in Output.objects.filter(system__competition=iol["competition"]).select_related(
            "system", "task"
        )
    }
    mismatches = []
    for record in _index_records():
        rows = json.loads((IOLAI_DIR / record["path"] / "predictions.json").read_text("utf-8"))
        for row in rows:
            if parsed[(record["team"], row["id"])] != row["predicted_items"]:
                mismatches.append((record["team"], row["id"]))
    assert len(parsed) == 644
    assert mismatches == []

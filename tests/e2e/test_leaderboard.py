"""An organizer uses the leaderboard in a real browser: htmx switches, sorting, export."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from .conftest import login

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_organizer_switches_the_board(page, live_server, organizer, demo_competition):
    login(page, live_server, organizer.username)
    page.goto(f"{live_server.url}/c/demo/leaderboard/")
    board = page.locator("#board")
    assert "metric iol2026" in board.inner_text()
    raw_row = board.locator("tr", has_text="Frontier-C (raw text)")

    page.select_option("#id_stage", "parsed")  # htmx swaps the board in place
    expect(board).to_contain_text("parsed answers")
    assert "stage=parsed" in page.url
    assert raw_row.locator("td").nth(3).inner_text() == "0.00"

    page.select_option("#id_stage", "extracted")
    expect(board).to_contain_text("extracted answers")
    assert raw_row.locator("td").nth(3).inner_text() == "100.00"

    page.select_option("#id_metric", "sacrebleu")
    expect(board).to_contain_text("metric sacrebleu")
    # Each change replaces the query (it does not pile up) and the board (not nested in it).
    assert page.url.count("stage=") == 1 and page.url.count("metric=") == 1
    assert page.locator("#board").count() == 1
    csv_link = page.locator("#board a", has_text="CSV")
    assert "metric=sacrebleu" in csv_link.get_attribute("href")

    # A header is a link: wait for the sorted board (descending first) before reading it.
    page.click("#board th >> text=System")
    page.wait_for_url(re.compile(r"[?&]sort=-system(&|$)"))
    names = board.locator("tbody tr td:nth-child(2)").all_inner_texts()
    assert len(names) > 1 and names == sorted(names, reverse=True), names

    with page.expect_download() as download:
        page.click("text=CSV")
    assert download.value.suggested_filename.startswith("demo-leaderboard-sacrebleu")


def test_juror_is_refused_the_board(page, live_server, juror, demo_competition):
    login(page, live_server, juror.username)
    response = page.goto(f"{live_server.url}/c/demo/leaderboard/")
    assert response.status == 403

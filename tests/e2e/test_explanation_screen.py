"""An organizer screens the demo's explanations before choosing the jury's systems."""

from __future__ import annotations

import re

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from .conftest import login

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PASSWORD = "ioleval-demo"
EXTERNAL = "Frontier-X (held elsewhere)"


@pytest.fixture
def demo(db):
    call_command("demo", verbosity=0)


def _first_column(page) -> list[str]:
    return [
        " ".join(text.split())
        for text in page.locator("tbody tr td:nth-child(1)").all_inner_texts()
    ]


def test_organizer_sorts_expands_and_exports_the_screen(page, live_server, demo):
    login(page, live_server, "organizer", PASSWORD)
    page.goto(f"{live_server.url}/c/demo/jury/")
    page.click("text=Screen the systems' explanations")
    page.wait_for_url(re.compile(r"/c/demo/review/explanations/$"))
    assert len(_first_column(page)) == 9  # every system, selected or not (the oracle too)

    page.click("thead th >> text=Missing")  # shares sort worst first
    page.wait_for_url(re.compile(r"[?&]sort=-missing(&|$)"))
    assert _first_column(page)[0].startswith(EXTERNAL)
    expect(page.locator("thead th[aria-sort=descending]")).to_contain_text("Missing")
    page.click("thead th >> text=Missing")  # the same header turns the order round
    page.wait_for_url(re.compile(r"[?&]sort=missing(&|$)"))
    assert _first_column(page)[-1].startswith(EXTERNAL)

    # A row opens on its flagged tasks, with an excerpt of each explanation.
    row = page.locator("tbody tr", has_text="Team Lexicon")
    excerpt = row.locator("blockquote").first
    expect(excerpt).to_be_hidden()
    row.locator("summary").click()
    expect(excerpt).to_be_visible()
    assert len(excerpt.inner_text()) <= 200

    with page.expect_download() as download:
        page.click("text=CSV")
    assert download.value.suggested_filename == "demo-explanations.csv"


def test_a_juror_is_refused_the_screen(page, live_server, demo):
    login(page, live_server, "juror1", PASSWORD)
    response = page.goto(f"{live_server.url}/c/demo/review/explanations/")
    assert response.status == 403
    assert EXTERNAL not in page.content()

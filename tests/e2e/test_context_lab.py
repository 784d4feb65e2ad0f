"""An organizer reads the context lab in a real browser: corpus, a puzzle, the tokenizer."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from puzzles.context.lab.demo import context_demo_load

from .conftest import login

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def demo_puzzles(db):
    return context_demo_load()


def test_organizer_reads_a_puzzle_and_switches_the_tokenizer(
    page, live_server, organizer, demo_puzzles
):
    login(page, live_server, organizer.username)
    page.goto(f"{live_server.url}/context/")
    expect(page.locator("#counts")).to_contain_text("2 fragile")
    expect(page.locator("#counts")).to_contain_text("1 robust")
    expect(page.locator("figure.chart svg[role=img]")).to_be_visible()

    page.click("#corpus >> text=Vashko (demo)")
    page.wait_for_url(re.compile(r"/context/p/demo-vashko/"))
    expect(page.locator("#verdict .verdict")).to_have_text("robust")
    heatmap = page.locator("#heatmap")
    expect(heatmap).to_be_visible()
    expect(heatmap.locator("tbody tr")).to_have_count(7)
    expect(heatmap.locator("tbody tr.single")).to_have_count(0)

    page.select_option("#id_tokenizer", "whitespace")
    page.click("form.controls button[type=submit]")
    page.wait_for_url(re.compile(r"[?&]tokenizer=whitespace(&|$)"))
    expect(page.locator("#verdict .verdict")).to_have_text("fragile")
    expect(page.locator("#verdict")).to_contain_text("max D_Q = 1")
    # Capitals and full stops now make tokens of their own: 12 tokens, 7 of them singletons.
    expect(heatmap.locator("tbody tr")).to_have_count(12)
    singles = heatmap.locator("tbody tr.single")
    expect(singles).to_have_count(7)
    mira = heatmap.locator("tbody tr", has=page.locator("th", has_text=re.compile(r"^Mira")))
    expect(mira.locator("td.c.on")).to_have_count(1)
    # A singleton is told apart by colour and by text a screen reader reads out.
    expect(mira.locator("th .sr")).to_have_text(" (singleton)")
    colour = mira.locator("td.c.on").evaluate("cell => getComputedStyle(cell).backgroundColor")
    assert colour == "rgb(213, 94, 0)"
    expect(page.locator("#examples tr#example-1 td").nth(4)).to_have_text("1")


def test_a_juror_is_refused_the_lab(page, live_server, juror, demo_puzzles):
    login(page, live_server, juror.username)
    response = page.goto(f"{live_server.url}/context/p/demo-vashko/")
    assert response.status == 403

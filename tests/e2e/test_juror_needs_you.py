"""A juror's home says what needs them: after submitting, a discrepancy on their paper and a
post they have not read; they follow the link to the thread, and back home the post is read
while the discrepancy stays until it is settled."""

from __future__ import annotations

import urllib.request
from decimal import Decimal

import pytest
from playwright.sync_api import expect

from .conftest import login

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def disagreement(db):
    """anna and boris submitted P4-0001 and disagree on a; boris posted on b's thread.
    anna has not submitted P4-0002, where boris and cy disagree: not hers to see yet."""
    from grading import services
    from tests.grading.factories import (
        JurorFactory,
        PaperFactory,
        ProblemJuryFactory,
        paper_graded,
        rubric_with,
    )

    problem = ProblemJuryFactory(tolerance=Decimal(0)).problem
    rubric = rubric_with(problem, ("a", 2, "0.5"), ("b", 2, "0.5"))
    anna, boris, cy = (JurorFactory(username=n) for n in ("anna", "boris", "cy"))
    mine = PaperFactory(problem=problem, code="P4-0001")
    other = PaperFactory(problem=problem, code="P4-0002")
    paper_graded(mine, {anna: {"a": 2, "b": 1}, boris: {"a": 1, "b": 1}})
    paper_graded(other, {boris: {"a": 2, "b": 1}, cy: {"a": 0, "b": 1}})
    paper_graded(other, {anna: {"a": 1}}, submit=False)
    services.comment_post(
        paper=mine,
        criterion=rubric.criteria.get(code="b"),
        author=boris,
        text="Did you count item 3?",
    )
    return anna, [mine.system.name, other.system.name]


def test_a_juror_sees_what_needs_them_and_follows_it(live_server, new_page, disagreement):
    anna, systems = disagreement
    # The live server's first request imports every view: make it with a bound of its own.
    with urllib.request.urlopen(f"{live_server.url}/login/", timeout=60) as response:
        assert response.status == 200
    page = new_page()
    login(page, live_server, anna.username)
    page.goto(f"{live_server.url}/jury/")
    needs = page.locator("section.awaiting")
    expect(needs.get_by_role("heading", name="Needs you")).to_be_visible()
    items = needs.locator("ul.awaiting li")
    expect(items).to_have_count(2)
    expect(items.nth(0)).to_contain_text("P4-0001 · a")
    expect(items.nth(0)).to_contain_text("≠ marks discrepant")
    expect(items.nth(1)).to_contain_text("P4-0001 · b")
    expect(items.nth(1)).to_contain_text("1 unread post")
    expect(needs).not_to_contain_text("P4-0002")  # not submitted: not hers yet
    for name in systems:
        expect(page.locator("main")).not_to_contain_text(name)

    items.nth(1).get_by_role("link").click()
    expect(page.locator("ul.thread")).to_contain_text("Did you count item 3?")
    page.goto(f"{live_server.url}/jury/")
    expect(items).to_have_count(1)
    expect(items.nth(0)).to_contain_text("P4-0001 · a")
    expect(needs).not_to_contain_text("unread")

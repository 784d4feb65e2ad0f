"""The chair's decision panel on a 1366 px laptop screen: the sheet's Final column and its
caption stay in view beside the open panel, the panel shows what the jurors said of the
cell, and the count of open discrepancies follows a decision without a reload."""

from __future__ import annotations

import urllib.request
from decimal import Decimal

import pytest
from playwright.sync_api import expect

from .conftest import close_contexts, login, new_context

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

CRITERIA = "abcde"  # five criteria of four jurors each: a sheet wider than its region
PAPERS = 4


@pytest.fixture
def wide_sheet(db):
    """Four papers, four jurors, five criteria; on every paper the jurors disagree on a and
    b only (8 open discrepancies). The first paper's a has a comment and a post."""
    from grading import services
    from grading.models import Mark
    from tests.grading.factories import (
        ChairFactory,
        JurorFactory,
        PaperFactory,
        ProblemJuryFactory,
        paper_graded,
        rubric_with,
    )

    problem = ProblemJuryFactory(tolerance=Decimal(0)).problem
    rubric = rubric_with(problem, *((code, 4, "0.5") for code in CRITERIA))
    jurors = [JurorFactory(username=f"juror-{name}") for name in ("ada", "ben", "cleo", "dan")]
    papers = [PaperFactory(problem=problem, code=f"P6-000{n}") for n in range(1, PAPERS + 1)]
    for paper in papers:
        paper_graded(
            paper,
            {
                juror: {c: Decimal(2) + (Decimal(i % 2) if c in "ab" else 0) for c in CRITERIA}
                for i, juror in enumerate(jurors)
            },
        )
    a = rubric.criteria.get(code="a")
    Mark.objects.filter(
        assignment__paper=papers[0], assignment__juror=jurors[1], criterion=a
    ).update(comment="Both forms are plural: three points.")
    services.comment_post(
        paper=papers[0], criterion=a, author=jurors[0], text="The second form is singular."
    )
    return problem, ChairFactory(username="chair-panel")


# The box of an element, of its text, and of the sheet's region and panel, in the viewport.
BOXES = """() => {
  const box = (e) => { const r = e.getBoundingClientRect(); return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
  const caption = document.querySelector("table.sheet caption");
  const text = document.createRange();
  text.selectNodeContents(caption);
  const final = document.querySelector("table.sheet thead th:last-child");  // Final
  const cell = document.querySelector("table.sheet tbody tr td:last-child");
  const hit = (e) => { const r = e.getBoundingClientRect(); const at = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2); return e.contains(at); };
  return {
    region: box(document.querySelector(".sheet-layout > .scroll")),
    panel: box(document.querySelector(".decide-panel")),
    caption: box(text),
    final: box(final),
    finalSeen: hit(final),
    cellSeen: hit(cell),
    pageScrolls: document.documentElement.scrollWidth > document.documentElement.clientWidth,
  };
}"""


def _assert_in_view(boxes: dict) -> None:
    region, panel = boxes["region"], boxes["panel"]
    assert region["right"] <= panel["left"], boxes  # side by side, not overlapping
    for name in ("final", "caption"):
        assert region["left"] <= boxes[name]["left"], (name, boxes)
        assert boxes[name]["right"] <= region["right"] + 0.5, (name, boxes)
    assert boxes["finalSeen"] and boxes["cellSeen"], boxes  # nothing painted over them
    assert not boxes["pageScrolls"], boxes


def test_the_panel_leaves_the_final_column_in_view_and_shows_what_jurors_said(
    browser, live_server, wide_sheet
):
    problem, chair = wide_sheet
    # The live server's first request imports every view: make it with a bound of its own.
    with urllib.request.urlopen(f"{live_server.url}/login/", timeout=60) as response:
        assert response.status == 200
    context = new_context(browser, viewport={"width": 1366, "height": 768})
    try:
        page = context.new_page()
        login(page, live_server, chair.username)
        sheet_url = (
            f"{live_server.url}/c/{problem.competition.slug}/jury/problems/{problem.number}/sheet/"
        )
        page.goto(sheet_url)
        caption = page.locator("table.sheet caption")
        expect(caption).to_contain_text("8 open discrepancies.")
        page.locator("body").press("n")  # opens P6-0001 a
        panel = page.locator("#decide-panel")
        expect(panel.locator("#decide-heading")).to_contain_text("P6-0001 · a")
        expect(page.locator("#sheet_points")).to_be_focused()
        _assert_in_view(page.evaluate(BOXES))
        # What the jurors said of the cell: ben's comment on his mark, ada's post.
        expect(panel.locator("dl.panel-marks")).to_contain_text("juror-ben · 3")
        expect(panel.locator("dl.panel-marks")).to_contain_text("Both forms are plural")
        expect(panel).to_contain_text("Discussion (1 post)")
        expect(panel.locator("ul.thread")).to_contain_text("The second form is singular.")
        expect(panel.get_by_role("link", name="Discussion of P6-0001 a")).to_be_visible()

        page.keyboard.type("2.5")
        page.keyboard.press("Tab")
        page.keyboard.type("between the two readings")
        page.keyboard.press("Enter")
        expect(page.locator("#decide-status")).to_have_text("Decision recorded: P6-0001 a.")
        expect(caption).to_contain_text("7 open discrepancies.")  # out of band, no reload
        page.keyboard.press("Enter")  # next discrepancy: P6-0001 b
        expect(panel.locator("#decide-heading")).to_contain_text("P6-0001 · b")
        expect(panel).to_contain_text("No juror commented on their mark.")
        page.locator("#sheet_points").fill("2")
        page.locator("#sheet_reason").fill("the lower reading")
        page.locator("form.decide button").click()
        expect(caption).to_contain_text("6 open discrepancies.")
        # The first paper is final now: its total shows in the Final column, in view.
        expect(page.locator("#paper-P6-0001 td").last).to_have_text("10.5")
        _assert_in_view(page.evaluate(BOXES))
        assert page.url == sheet_url
    finally:
        close_contexts([context])

"""The chair decides three discrepancies from the comparison sheet without leaving it.

Two jurors disagree on four criteria of three papers. The chair opens the sheet, follows
"next discrepancy" with the key n, types the points and the reason, submits with Enter,
sees the cell turn to "✓ decided" in place, and goes on with Enter on "Next
discrepancy". One decision is first refused (out of range): the typed values stay and
the field says what is wrong. The page never changes.
"""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from playwright.sync_api import expect

from .conftest import login

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

# Paper -> {criterion: (anna, boris)}; tolerance 0, so different marks are discrepant.
MARKS = {
    "P7-0001": {"a": (2, 0), "b": (0, 2), "c": (1, 1)},
    "P7-0002": {"a": (1, 1), "b": (1, 1), "c": (1, 1)},
    "P7-0003": {"a": (1, "0.5"), "b": (2, "1.5"), "c": (1, 1)},
}
# The open discrepancies in the sheet's order (by paper code, then criterion).
ORDER = [("P7-0001", "a"), ("P7-0001", "b"), ("P7-0003", "a"), ("P7-0003", "b")]


@pytest.fixture
def jury(db):
    from tests.grading.factories import (
        ChairFactory,
        JurorFactory,
        PaperFactory,
        ProblemJuryFactory,
        paper_graded,
        rubric_with,
    )
    from tests.puzzles.factories import OutputFactory, TaskFactory

    task = TaskFactory(answer_key=[["one"], ["two"]])
    problem = task.problem
    ProblemJuryFactory(problem=problem, tolerance=Decimal(0))
    rubric = rubric_with(problem, ("a", 2, "0.5"), ("b", 2, "0.5"), ("c", 2, "0.5"))
    rubric.criteria.filter(code="a").update(task=task, items=[1])
    anna, boris = JurorFactory(username="anna"), JurorFactory(username="boris")
    for code, marks in MARKS.items():
        paper = PaperFactory(problem=problem, code=code)
        OutputFactory(system=paper.system, task=task, raw_text='["uno", "dos"]')
        paper_graded(
            paper,
            {
                anna: {c: v[0] for c, v in marks.items()},
                boris: {c: v[1] for c, v in marks.items()},
            },
        )
    chair = ChairFactory(username="chair-e2e")
    criteria = {c.code: c.pk for c in rubric.criteria.all()}
    return problem, chair, criteria


def test_chair_decides_three_discrepancies_from_the_sheet(live_server, new_page, jury):
    from grading.models import Resolution

    problem, chair, criteria = jury
    page = new_page()
    login(page, live_server, chair.username)
    sheet_url = (
        f"{live_server.url}/c/{problem.competition.slug}/jury/problems/{problem.number}/sheet/"
    )
    page.goto(sheet_url)
    expect(page.locator("h1")).to_contain_text(f"Comparison sheet · Problem {problem.number}")
    expect(page.locator("table.sheet caption")).to_contain_text("4 open discrepancies")
    expect(page.locator("table.sheet th[scope=row]").first).to_have_css("position", "sticky")
    panel = page.locator("#decide-panel")
    status = page.locator("#decide-status")

    page.locator("body").press("n")  # the first open discrepancy
    for number, (code, criterion) in enumerate(ORDER[:3], start=1):
        cell = page.locator(f"#cell-{code}-{criteria[criterion]}")
        expect(panel.locator("h3").first).to_contain_text(f"{code} · {criterion}")
        expect(cell).to_have_class(re.compile(r"\bcurrent\b"))
        expect(cell).to_contain_text("≠ discrepant")
        points = panel.locator("#sheet_points")
        expect(points).to_be_focused()
        if number == 1:
            expect(panel).to_contain_text("uno")  # the answer of the criterion's item
            page.keyboard.type("9")
            page.keyboard.press("Tab")
            page.keyboard.type("too generous")
            page.keyboard.press("Enter")
            expect(points).to_have_attribute("aria-invalid", "true")
            expect(points).to_have_attribute("aria-describedby", "sheet_points_error")
            expect(panel.locator("#sheet_points_error")).to_be_visible()
            expect(points).to_have_value("9")
            expect(panel.locator("#sheet_reason")).to_have_value("too generous")
            expect(points).to_be_focused()
            page.keyboard.press("Control+a")
        page.keyboard.type("1")
        page.keyboard.press("Tab")
        page.keyboard.press("Control+a")
        page.keyboard.type(f"decision {number}")
        page.keyboard.press("Enter")
        expect(status).to_have_text(f"Decision recorded: {code} {criterion}.")
        expect(cell).to_have_class(re.compile(r"\bdecided\b"))
        expect(cell).to_contain_text("✓ decided")
        expect(cell).to_contain_text("→ 1")
        expect(page.locator("#next-discrepancy")).to_be_focused()
        page.keyboard.press("Enter")  # follows "Next discrepancy"

    # The fourth discrepancy is open in the panel; the chair never left the sheet.
    last_code, last_criterion = ORDER[3]
    expect(panel.locator("h3").first).to_contain_text(f"{last_code} · {last_criterion}")
    assert page.url == sheet_url
    expect(page.locator("table.sheet td.cell.decided")).to_have_count(3)
    expect(page.locator("table.sheet td.cell.discrepant")).to_have_count(1)
    expect(page.locator("#paper-P7-0001 td.num").last).to_have_text(
        "3"
    )  # decided 1 + decided 1 + agreed 1
    decided = sorted(
        Resolution.objects.filter(paper__problem=problem).values_list(
            "paper__code", "criterion__code", "points", "reason"
        )
    )
    assert decided == [
        ("P7-0001", "a", Decimal(1), "decision 1"),
        ("P7-0001", "b", Decimal(1), "decision 2"),
        ("P7-0003", "a", Decimal(1), "decision 3"),
    ]


def test_sheet_with_a_decision_open_and_the_overview_pass_axe(browser, live_server, jury):
    """axe (WCAG 2.1 A and AA) on the sheet with the decision panel open, refused and
    decided, and on the chair's overview."""
    from .axe import axe_context, axe_violations, violations_text
    from .conftest import close_contexts

    problem, chair, criteria = jury
    refused: list[str] = []
    context = axe_context(browser, refused, viewport={"width": 1400, "height": 900})
    found = {}
    try:
        page = context.new_page()
        login(page, live_server, chair.username)
        base = f"{live_server.url}/c/{problem.competition.slug}/jury/problems/{problem.number}"
        page.goto(f"{base}/overview/")
        expect(page.locator("h1")).to_contain_text("Overview")
        found["overview"] = axe_violations(page)
        page.goto(f"{base}/sheet/")
        found["sheet"] = axe_violations(page)
        page.locator("#next-discrepancy").click()
        points = page.locator("#sheet_points")
        expect(points).to_be_focused()
        points.fill("9")
        page.locator("#sheet_reason").fill("too generous")
        page.locator("form.decide button").click()
        expect(points).to_have_attribute("aria-invalid", "true")
        found["sheet, decision refused"] = axe_violations(page)
        points.fill("1")
        page.locator("form.decide button").click()
        expect(page.locator("#decide-status")).to_contain_text("Decision recorded")
        found["sheet, decided"] = axe_violations(page)
    finally:
        close_contexts([context])
    assert not refused, refused
    found = {k: v for k, v in found.items() if v}
    assert not found, violations_text(found)

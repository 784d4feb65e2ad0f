"""A juror on a phone-sized screen grades a paper with the keyboard alone.

At 390x844 the rubric comes below the problem and the answers, so the page must not put
focus in a points field the juror cannot see: it starts on the heading, a link goes to the
first unmarked criterion, and each field is scrolled into view as it gets focus. A refused
mark marks its field invalid; a refused submit focuses the criterion still unmarked;
Ctrl+Enter submits and opens the next unfinished paper.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from .conftest import close_contexts, login, new_context

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

CODES = ("1a", "1b", "1c")
NAVIGATION_TIMEOUT_MS = 30_000


@pytest.fixture
def papers(db):
    from grading.models import Paper
    from puzzles.models import Output
    from tests.grading.factories import (
        AssignmentFactory,
        CriterionFactory,
        JurorFactory,
        RubricFactory,
    )
    from tests.puzzles.factories import ProblemFactory, SystemFactory, TaskFactory

    problem = ProblemFactory(context="\n".join(f"{n}. kaimek: dogs" for n in range(1, 40)))
    task = TaskFactory(
        problem=problem,
        number=1,
        query="Translate into English:\n1. kaimek\n2. tasorel",
        answer_key=[["dogs"], ["your house"]],
    )
    rubric = RubricFactory(problem=problem)
    for order, code in enumerate(CODES, start=1):
        CriterionFactory(rubric=rubric, code=code, order=order)
    juror = JurorFactory(username="phone-juror")
    codes = []
    for index in range(2):
        system = SystemFactory(competition=problem.competition, name=f"Secret-{index}")
        Output.objects.create(
            system=system,
            task=task,
            raw_text='["dogs", "house"]',
            parsed_items=["dogs", "house"],
            extracted_items=["dogs", "house"],
            explanation="Plural -ek.",
        )
        paper = Paper.objects.create(problem=problem, system=system, code=f"P1-KEY{index}")
        AssignmentFactory(paper=paper, juror=juror)
        codes.append(paper.code)
    return juror.username, codes


def points(page, code: str):
    return page.locator(f"input.points[data-criterion='{code}']")


def settle(page) -> None:
    """No htmx request in flight (expect() polls outside the page: the CSP allows no eval)."""
    expect(page.locator(".htmx-request")).to_have_count(0)


def test_a_juror_grades_on_a_narrow_screen_with_the_keyboard_only(browser, live_server, papers):
    username, (code, following) = papers
    context = new_context(browser, viewport={"width": 390, "height": 844})
    # A first page load on a busy machine (shared CPUs) can take longer than one click.
    context.set_default_navigation_timeout(NAVIGATION_TIMEOUT_MS)
    refused: list[str] = []
    context.on(
        "console",
        lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None,
    )
    try:
        page = context.new_page()
        page.on("dialog", lambda dialog: dialog.accept())  # "Submit P1-KEY0?"
        login(page, live_server, username)
        page.goto(f"{live_server.url}/jury/papers/{code}/")

        # The first points field is far below: focus is on the heading, in view.
        heading = page.locator("#paper-heading")
        expect(heading).to_be_focused()
        expect(heading).to_be_in_viewport()
        expect(points(page, "1a")).not_to_be_in_viewport()
        expect(page.locator("a.next-paper")).to_have_text(f"Next unfinished paper: {following}")

        # Tab reaches the way to the rubric; Enter puts focus in the first field, in view.
        page.keyboard.press("Tab")
        expect(page.locator("a.to-points")).to_be_focused()
        page.keyboard.press("Enter")
        for criterion in ("1a", "1b"):
            field = points(page, criterion)
            expect(field).to_be_focused()
            expect(field).to_be_in_viewport()
            page.keyboard.type("1")
            page.keyboard.press("Enter")  # saves and moves on
            form = page.locator(f"form.criterion:has(input[data-criterion='{criterion}'])")
            expect(form.locator(".status.saved")).to_have_text("saved")
            settle(page)
        expect(points(page, "1c")).to_be_focused()
        expect(points(page, "1c")).to_be_in_viewport()

        # 1c left blank: the submit is refused, announced, and focus goes to 1c.
        page.keyboard.press("Control+Enter")
        alert = page.locator("#submit-error[role=alert]")
        expect(alert).to_have_text("Error: not marked yet: 1c")
        expect(points(page, "1c")).to_be_focused()
        expect(points(page, "1c")).to_be_in_viewport()
        expect(points(page, "1a")).to_have_value("1")

        # A value out of range: refused, the field says so; a good value clears it.
        page.keyboard.type("9")
        page.keyboard.press("Enter")
        field = points(page, "1c")
        expect(field).to_have_attribute("aria-invalid", "true")
        described = field.get_attribute("aria-describedby")
        expect(page.locator(f"#{described}")).to_contain_text(re.compile(r"Error:\s*1c"))
        page.keyboard.press("Control+A")
        page.keyboard.type("1")
        page.keyboard.press("Enter")
        form = page.locator("form.criterion:has(input[data-criterion='1c'])")
        expect(form.locator(".status.saved")).to_have_text("saved")
        expect(field).not_to_have_attribute("aria-invalid", "true")
        settle(page)

        # Ctrl+Enter submits and opens the next unfinished paper.
        page.keyboard.press("Control+Enter")
        expect(page).to_have_url(re.compile(rf"/jury/papers/{following}/$"))
        expect(page.locator(".messages [role=status]")).to_contain_text(f"{code} submitted")
        expect(page.locator("#paper-heading")).to_be_focused()
        expect(page.locator("a.next-paper")).to_have_count(0)  # none left but this one
        assert "Secret-" not in page.content()
    finally:
        close_contexts([context])
    assert not refused, refused

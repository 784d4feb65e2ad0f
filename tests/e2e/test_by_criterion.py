"""A juror grades one criterion across 20 papers from the keyboard alone, accepting the
suggested mark on some papers ("s") and typing another value on others, each time moving on
with Enter; the marks are then in the database with the accepted flag as done."""

from __future__ import annotations

import re
import urllib.request
from decimal import Decimal

import pytest
from playwright.sync_api import expect

from tests.grading.criterion_data import build, flags_of

from .conftest import login

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PAPERS = 20
TYPED = "1.5"  # never a suggestion of 1a (maximum 2, step 0.5, three items: 0.5, 1 or 2)


def suggestion_1a(index: int) -> Decimal:
    matched = sum(flags_of(index)[:3])
    return {0: Decimal(0), 1: Decimal("0.5"), 2: Decimal(1), 3: Decimal(2)}[matched]


# Twenty papers, three requests each, and the live server's first request: more than the
# conftest's 60 s on a busy machine.
@pytest.mark.timeout(150)
def test_a_juror_grades_a_criterion_across_papers_with_the_keyboard(live_server, new_page):
    from grading.models import Mark

    data = build(PAPERS)
    # The live server's first request imports every view (7 to 15 s on a busy 2-core machine,
    # past the browser's 10 s bound): make it here, with a bound of its own.
    with urllib.request.urlopen(f"{live_server.url}/login/", timeout=60) as response:
        assert response.status == 200
    page = new_page()
    login(page, live_server, data.juror.username)
    page.goto(f"{live_server.url}/jury/")
    link = page.get_by_role("link", name="1a", exact=True)
    link.focus()
    page.keyboard.press("Enter")
    field = page.get_by_label("points for 1a")
    accepted = {}
    for index, paper in enumerate(data.papers):
        expect(page.locator("#progress")).to_contain_text(f"{index} of {PAPERS} marked")
        expect(page.locator("#progress")).to_contain_text(paper.code)
        expect(field).to_be_focused()
        suggestion = suggestion_1a(index)
        expect(page.locator(".suggestion strong")).to_have_text(f"{suggestion.normalize():f}")
        accept = index % 3 != 0
        accepted[paper.code] = accept
        if accept:
            page.keyboard.press("s")
            expect(field).to_have_value(f"{suggestion.normalize():f}")
        else:
            page.keyboard.type(TYPED)
        page.keyboard.press("Enter")
        if index + 1 < PAPERS:
            nxt = data.papers[index + 1].code
            expect(page).to_have_url(re.compile(re.escape(f"?paper={nxt}") + "$"))
        else:  # the last paper: Enter saves in place
            expect(page.locator("form.by-criterion .status")).to_have_text("saved")
    # Back one paper with Alt+Left: its saved mark is there, ready to change.
    page.keyboard.press("Alt+ArrowLeft")
    expect(page).to_have_url(re.compile(re.escape(f"?paper={data.papers[-2].code}") + "$"))
    expect(field).to_be_focused()
    expect(field).to_have_value(
        f"{suggestion_1a(PAPERS - 2).normalize():f}" if accepted[data.papers[-2].code] else TYPED
    )

    marks = {
        m.assignment.paper.code: m
        for m in Mark.objects.filter(
            assignment__juror=data.juror, criterion=data.criteria["1a"]
        ).select_related("assignment__paper")
    }
    assert len(marks) == PAPERS
    for index, paper in enumerate(data.papers):
        mark = marks[paper.code]
        expected = suggestion_1a(index) if accepted[paper.code] else Decimal(TYPED)
        assert (mark.points, mark.from_suggestion) == (expected, accepted[paper.code]), paper
        assert mark.history.latest().from_suggestion == accepted[paper.code]
    assert not Mark.objects.filter(assignment__juror=data.other).exists()

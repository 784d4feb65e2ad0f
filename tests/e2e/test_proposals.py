"""A juror proposes an accepted alternative from the distinct answers; the organizer accepts
it on the answer-key page; the juror's distinct answers then show it as a match.

The data is the demo jury (``manage.py demo``). The item is the first one where a paper of
juror1 gave an answer the key does not accept.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from .conftest import login

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PASSWORD = "ioleval-demo"
JUROR = "juror1"
REASON = "The suffix is optional in the data (example 4)."


@dataclass
class Item:
    url: str  # the juror's distinct answers of the item
    answer: str  # a normalized answer the key does not accept
    task: str  # the task's external id
    item_number: int
    systems: list[str]


@pytest.fixture
def item(db) -> Item:
    from django.contrib.auth import get_user_model
    from django.urls import reverse

    from grading.access import distinct_item
    from grading.models import Assignment
    from grading.selectors import distinct_page
    from puzzles.models import System, Task

    call_command("demo", verbosity=0)
    juror = get_user_model().objects.get(username=JUROR)
    problem_ids = sorted(
        set(Assignment.objects.filter(juror=juror).values_list("paper__problem_id", flat=True))
    )
    for problem_id in problem_ids:
        for task in Task.objects.filter(problem_id=problem_id).order_by("number"):
            for number in range(1, task.n_items + 1):
                page = distinct_page(distinct_item(juror, problem_id, task.number, number), juror)
                wrong = [a for a in page.answers if a.text and a.em == "no"]
                if wrong:
                    return Item(
                        url=reverse("grading:distinct", args=[problem_id, task.number, number]),
                        answer=wrong[0].text,
                        task=task.external_id,
                        item_number=number,
                        systems=list(System.objects.values_list("name", flat=True)),
                    )
    pytest.fail("juror1 has no paper with an answer the key does not accept")


def answer_row(page, answer: str):
    return page.locator("table.distinct tbody tr").filter(
        has=page.locator(f"th:text-is('{answer}')")
    )


def test_a_juror_proposes_and_the_organizer_accepts(new_page, live_server, item):
    juror = new_page()
    login(juror, live_server, JUROR, PASSWORD)
    juror.get_by_role("link", name="Distinct answers").first.click()
    expect(juror.locator("h1")).to_contain_text("Distinct answers")
    juror.goto(f"{live_server.url}{item.url}")
    row = answer_row(juror, item.answer)
    expect(row).to_contain_text("✗ no")
    row.get_by_role("link", name="Propose as alternative").click()
    expect(juror.get_by_label("Answer")).to_have_value(item.answer)
    juror.get_by_label("Reason").fill(REASON)
    juror.get_by_role("button", name="Propose").click()
    expect(juror.locator(".messages")).to_contain_text("an organizer will accept or reject it")
    expect(answer_row(juror, item.answer)).to_contain_text("proposal pending")
    html = juror.content()
    assert not [name for name in item.systems if name in html]

    organizer = new_page()
    login(organizer, live_server, "organizer", PASSWORD)
    organizer.goto(f"{live_server.url}/c/demo/answers/")
    proposal = organizer.locator("table.proposals tbody tr").filter(has_text=REASON)
    expect(proposal).to_contain_text(JUROR)
    expect(proposal).to_contain_text(item.task)
    proposal.get_by_role("button", name="Accept and rescore").click()
    expect(organizer.locator(".messages")).to_contain_text(f"item {item.item_number}")
    expect(organizer.locator("table.proposals")).to_have_count(0)

    juror.reload()
    row = answer_row(juror, item.answer)
    expect(row).to_contain_text("✓ yes")
    expect(row).not_to_contain_text("proposal pending")
    expect(juror.locator("section#proposal")).to_contain_text("accepted")

"""Grade by criterion on a 390 px phone: the answers take the screen's width (one column,
the criterion's form below them), their table fits it, and nothing scrolls sideways."""

from __future__ import annotations

import urllib.request

import pytest
from playwright.sync_api import expect

from tests.grading.criterion_data import build

from .conftest import close_contexts, login, new_context

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
# Each item's line of the assignment, so that the answers table has its Question column.
QUERY = (
    "Translate into English:\n"
    "1. kaimekotanarun\n"
    "2. tasorelun mavi\n"
    "3. nipenakaru sutalke amokra\n"
    "4. omokratari"
)

MEASURE = """() => {
  const root = document.documentElement;
  const answers = document.querySelector("section.paper");
  const rubric = document.querySelector("section.rubric");
  const table = answers.querySelector("table.answers");
  const column = (name) => table.querySelector(`td.${name}`).getBoundingClientRect().width;
  return {
    viewport: root.clientWidth,
    page: root.scrollWidth,
    answersWidth: answers.getBoundingClientRect().width,
    answersScroll: answers.scrollWidth - answers.clientWidth,
    tableRight: table.getBoundingClientRect().right,
    answersRight: answers.getBoundingClientRect().right,
    answerColumn: column("answer"),
    questionColumn: column("question"),
    formBelow: rubric.getBoundingClientRect().top >= answers.getBoundingClientRect().bottom,
  };
}"""


def test_grade_by_criterion_fits_a_390_px_screen(browser, live_server):
    data = build(3, slug="phone")
    data.task.query = QUERY
    data.task.save(update_fields=["query"])
    # A model's answer may be one long word: it wraps rather than widening the table.
    long = ["kaimekotanarunsutalkeamokranipenakarutasorelunmaviomokratari", "house", "red", "two"]
    data.task.outputs.filter(system=data.papers[0].system).update(
        parsed_items=long, extracted_items=long
    )
    # The live server's first request imports every view: make it with a bound of its own.
    with urllib.request.urlopen(f"{live_server.url}/login/", timeout=60) as response:
        assert response.status == 200
    context = new_context(browser, viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        page = context.new_page()
        login(page, live_server, data.juror.username)
        url = (
            f"{live_server.url}/jury/problems/{data.problem.pk}/criteria/{data.criteria['1b'].pk}/"
        )
        page.goto(url)
        expect(page.get_by_label("points for 1b")).to_be_visible()
        expect(page.locator("section.paper")).to_contain_text("kaimekotanarun")
        found = page.evaluate(MEASURE)
        assert found["page"] <= found["viewport"], found  # the page never scrolls sideways
        assert found["answersScroll"] <= 1, found  # nor does the answers' section
        assert found["tableRight"] <= found["answersRight"] + 1, found
        # The answers take the screen's width (less the page's margins), with the form below.
        assert found["answersWidth"] >= 0.9 * found["viewport"], found
        assert found["formBelow"], found
        assert found["answerColumn"] >= 60 and found["questionColumn"] >= 80, found
    finally:
        close_contexts([context])

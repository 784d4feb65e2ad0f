"""Marks typed and not yet left are saved, and leaving with a value not stored asks first.

Before: a points value typed and never blurred was lost on reload (only comments saved as
they were typed), and nothing warned on leaving while a save was pending or had failed. A
save refused because an organizer made a new rubric version meanwhile says so.
"""

from __future__ import annotations

import re
import urllib.request
from decimal import Decimal

import pytest
from playwright.sync_api import expect

from tests.grading.criterion_data import PASSWORD, build

from .conftest import login

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def data(live_server):
    built = build(3)
    # The live server's first request imports every view (seconds on a busy machine).
    with urllib.request.urlopen(f"{live_server.url}/login/", timeout=60) as response:
        assert response.status == 200
    return built


def _posts(page) -> list[str]:
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if "/marks/" in r.url else None)
    return posts


def _dialogs(page, *, accept: bool = False) -> list[str]:
    """Record each dialog's type and dismiss it (for beforeunload: stay on the page), or
    accept it (leave)."""
    seen: list[str] = []

    def handle(dialog):
        seen.append(dialog.type)
        dialog.accept() if accept else dialog.dismiss()

    page.on("dialog", handle)
    return seen


def test_a_points_value_typed_and_not_left_is_there_after_a_reload(live_server, new_page, data):
    page = new_page()
    dialogs = _dialogs(page)
    login(page, live_server, data.juror.username, PASSWORD)
    code = data.papers[0].code
    page.goto(f"{live_server.url}/jury/papers/{code}/")
    posts = _posts(page)
    field = page.get_by_label("points for 1a", exact=True)
    field.click()
    page.keyboard.type("1.5")
    form = page.locator("form.criterion").filter(has=field)
    expect(form.locator(".status")).to_have_text("saved")  # a pause in typing saved it
    expect(field).to_be_focused()  # never left
    page.keyboard.press("Tab")  # leaving now sends nothing more: one save per change
    page.wait_for_timeout(1200)
    assert len(posts) == 1, posts
    page.reload()
    expect(page.get_by_label("points for 1a", exact=True)).to_have_value("1.5")
    assert dialogs == []

    # The same on grade by criterion.
    page.goto(
        f"{live_server.url}/jury/problems/{data.problem.pk}/criteria/{data.criteria['1b'].pk}/?paper={code}"
    )
    field = page.get_by_label("points for 1b", exact=True)
    expect(field).to_be_focused()
    page.keyboard.type("2")
    expect(page.locator("form.by-criterion .status")).to_have_text("saved")
    page.reload()
    expect(page.get_by_label("points for 1b", exact=True)).to_have_value("2")
    assert dialogs == []


def test_leaving_with_a_save_that_failed_asks_first(live_server, new_page, data):
    page = new_page()
    dialogs = _dialogs(page)
    login(page, live_server, data.juror.username, PASSWORD)
    page.goto(f"{live_server.url}/jury/papers/{data.papers[0].code}/")
    field = page.get_by_label("points for 1a", exact=True)
    form = page.locator("form.criterion").filter(has=field)

    page.route("**/marks/**", lambda route: route.fulfill(status=500, body="boom"))
    field.click()
    page.keyboard.type("1")
    expect(form.locator(".status")).to_have_text("not saved: server error (500). Try again.")
    home = page.get_by_role("link", name="My papers")
    home.click()
    expect(page).to_have_url(re.compile(rf"/jury/papers/{data.papers[0].code}/$"))
    assert dialogs == ["beforeunload"]  # asked, and the juror stayed
    expect(field).to_have_value("1")
    page.unroute("**/marks/**")

    # A value the server refuses is not stored either.
    field.fill("7")
    field.dispatch_event("change")
    expect(form.locator(".status")).to_contain_text("is outside 0..2")
    home.click()
    assert dialogs == ["beforeunload"] * 2

    # Once stored, leaving asks nothing.
    field.fill("2")
    field.dispatch_event("change")
    expect(form.locator(".status")).to_have_text("saved")
    home.click()
    expect(page).to_have_url(re.compile(r"/jury/$"))
    assert dialogs == ["beforeunload"] * 2


def test_a_save_after_a_new_rubric_version_says_reload(live_server, new_page, data):
    from grading.models import Mark
    from grading.services import rubric_current, rubric_replace, rubric_specs, rubrics_export

    page = new_page()
    dialogs = _dialogs(page, accept=True)
    login(page, live_server, data.juror.username, PASSWORD)
    page.goto(f"{live_server.url}/jury/papers/{data.papers[0].code}/")
    # An organizer makes a new version while the page is open.
    criteria = rubrics_export(data.competition)["problems"][0]["criteria"]
    specs = rubric_specs(problem=data.problem, criteria=criteria, where="test")
    rubric_replace(problem=data.problem, specs=specs, new_version=True)

    field = page.get_by_label("points for 1a", exact=True)
    form = page.locator("form.criterion").filter(has=field)
    field.click()
    page.keyboard.type("1")
    expect(form.locator(".status")).to_have_text(
        re.compile(r"^the rubric has changed: reload the page")
    )
    expect(field).to_have_attribute("aria-invalid", "true")
    assert not Mark.objects.exists()
    page.reload()  # the typed value is not stored: the browser asks, and the juror leaves
    assert dialogs == ["beforeunload"]
    field = page.get_by_label("points for 1a", exact=True)
    field.click()
    page.keyboard.type("1")
    expect(page.locator("form.criterion").filter(has=field).locator(".status")).to_have_text(
        "saved"
    )
    mark = Mark.objects.get()
    assert (mark.criterion.rubric, mark.points) == (rubric_current(data.problem), 1)


def test_the_last_paper_of_a_criterion_says_when_it_is_done(live_server, new_page, data):
    from grading.services import mark_save_by_code

    for paper in data.papers[:-1]:
        mark_save_by_code(
            juror=data.juror, code=paper.code, criterion_id=data.criteria["1a"].pk, points="1"
        )
    page = new_page()
    login(page, live_server, data.juror.username, PASSWORD)
    last = data.papers[-1].code
    page.goto(
        f"{live_server.url}/jury/problems/{data.problem.pk}/criteria/"
        f"{data.criteria['1a'].pk}/?paper={last}"
    )
    state = page.locator("#criterion-state")
    expect(state).to_contain_text("This is the last paper: 1 of 3 papers still unmarked for 1a.")
    page.keyboard.type("2")
    page.keyboard.press("Enter")  # the last paper: saves in place
    expect(page.locator("form.by-criterion .status")).to_have_text("saved")
    expect(state).to_contain_text("Criterion 1a is done: all 3 papers marked.")
    expect(page.locator("#progress")).to_contain_text("3 of 3 marked")
    page.locator("#next-criterion").click()
    expect(page).to_have_url(re.compile(rf"/criteria/{data.criteria['1b'].pk}/$"))
    expect(page.get_by_label("points for 1b", exact=True)).to_be_focused()


def _marked_but_1a(data, code: str) -> None:
    """Mark every criterion of paper `code` (1a with 0.5): a submit would be accepted."""
    from grading.services import mark_save_by_code

    for criterion, points in (("1a", "0.5"), ("1b", "1"), ("1c", "1"), ("1d", "1")):
        mark_save_by_code(
            juror=data.juror, code=code, criterion_id=data.criteria[criterion].pk, points=points
        )


def _submitted_and_1a(data, code: str):
    from grading.models import Assignment, Mark

    assignment = Assignment.objects.get(paper__code=code, juror=data.juror)
    mark = Mark.objects.get(assignment=assignment, criterion__code="1a")
    return assignment.submitted_at is not None, mark.points


def test_ctrl_enter_after_a_failed_save_saves_again_before_submitting(live_server, new_page, data):
    code, following = data.papers[0].code, data.papers[1].code
    _marked_but_1a(data, code)
    page = new_page()
    page.on("dialog", lambda dialog: dialog.accept())  # "Submit P1-0000?"
    login(page, live_server, data.juror.username, PASSWORD)
    page.goto(f"{live_server.url}/jury/papers/{code}/")
    field = page.get_by_label("points for 1a", exact=True)
    form = page.locator("form.criterion").filter(has=field)

    page.route("**/marks/**", lambda route: route.fulfill(status=500, body="boom"))
    field.click()
    page.keyboard.press("Control+A")
    page.keyboard.type("1")
    expect(form.locator(".status")).to_have_text("not saved: server error (500). Try again.")
    page.unroute("**/marks/**")
    posts = _posts(page)
    page.keyboard.press("Control+Enter")  # the 1 is saved first, then the paper submitted
    expect(page).to_have_url(re.compile(rf"/jury/papers/{following}/$"))
    assert len(posts) == 1, posts
    assert _submitted_and_1a(data, code) == (True, 1)


def test_ctrl_enter_with_a_save_that_fails_again_does_not_submit(live_server, new_page, data):
    code = data.papers[0].code
    _marked_but_1a(data, code)
    page = new_page()
    dialogs = _dialogs(page)
    login(page, live_server, data.juror.username, PASSWORD)
    page.goto(f"{live_server.url}/jury/papers/{code}/")
    field = page.get_by_label("points for 1a", exact=True)
    form = page.locator("form.criterion").filter(has=field)

    page.route("**/marks/**", lambda route: route.fulfill(status=500, body="boom"))
    posts = _posts(page)
    field.click()
    page.keyboard.press("Control+A")
    page.keyboard.type("1")
    expect(form.locator(".status")).to_have_text("not saved: server error (500). Try again.")
    page.keyboard.press("Control+Enter")  # tried again, failed again: not submitted
    alert = page.locator("#submit-error[role=alert]")
    expect(alert).to_have_text(
        "Error: not submitted: the mark for 1a is not saved (see its message)."
    )
    expect(field).to_be_focused()
    assert len(posts) == 2, posts
    assert dialogs == []  # neither the submit's confirmation nor a navigation
    assert _submitted_and_1a(data, code) == (False, Decimal("0.5"))


def test_ctrl_enter_after_the_rubric_changed_does_not_submit(live_server, new_page, data):
    from grading.services import rubric_replace, rubric_specs, rubrics_export

    code = data.papers[0].code
    _marked_but_1a(data, code)
    page = new_page()
    dialogs = _dialogs(page)
    login(page, live_server, data.juror.username, PASSWORD)
    page.goto(f"{live_server.url}/jury/papers/{code}/")
    criteria = rubrics_export(data.competition)["problems"][0]["criteria"]
    specs = rubric_specs(problem=data.problem, criteria=criteria, where="test")
    rubric_replace(problem=data.problem, specs=specs, new_version=True)  # marks carried over

    field = page.get_by_label("points for 1a", exact=True)
    form = page.locator("form.criterion").filter(has=field)
    field.click()
    page.keyboard.press("Control+A")
    page.keyboard.type("1")
    expect(form.locator(".status")).to_have_text(
        re.compile(r"^the rubric has changed: reload the page")
    )
    posts = _posts(page)
    page.keyboard.press("Control+Enter")
    alert = page.locator("#submit-error[role=alert]")
    expect(alert).to_have_text(
        "Error: not submitted: the mark for 1a is not saved (see its message)."
    )
    assert posts == []  # the same values would be refused again
    assert dialogs == []
    assert _submitted_and_1a(data, code) == (False, Decimal("0.5"))


@pytest.mark.usefixtures("postgres_only")
def test_a_save_while_the_jury_is_busy_says_not_saved_and_goes_through_after(
    live_server, new_page, data, settings
):
    """An import or a new rubric version holds the problem's jury row: a save that waits
    past its bound is refused (409) and the page says so, on the grading page and on grade
    by criterion; sent again once the row is free, the same value is stored."""
    import threading

    from django.db import connections, transaction

    from grading.models import Mark, ProblemJury

    settings.IOLEVAL_SAVE_LOCK_TIMEOUT = 0.3
    ProblemJury.objects.get_or_create(problem=data.problem)
    held, done = threading.Event(), threading.Event()

    def hold():
        try:
            with transaction.atomic():
                ProblemJury.objects.select_for_update().get(problem=data.problem)
                held.set()
                done.wait(60)
        finally:
            connections.close_all()

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        held.wait(10)
        page = new_page()
        _dialogs(page, accept=True)  # leaving with the refused value: leave
        login(page, live_server, data.juror.username, PASSWORD)
        code = data.papers[0].code
        page.goto(f"{live_server.url}/jury/papers/{code}/")
        busy = "not saved: the jury is busy (an import or a new rubric version): try again"
        field = page.get_by_label("points for 1a", exact=True)
        form = page.locator("form.criterion").filter(has=field)
        field.fill("1")
        field.dispatch_event("change")
        expect(form.locator(".status")).to_have_text(busy)
        page.goto(
            f"{live_server.url}/jury/problems/{data.problem.pk}/criteria/"
            f"{data.criteria['1b'].pk}/?paper={code}"
        )
        by_criterion = page.get_by_label("points for 1b", exact=True)
        by_criterion.fill("2")
        by_criterion.dispatch_event("change")
        expect(page.locator("form.by-criterion .status")).to_have_text(busy)
    finally:
        done.set()
        holder.join(10)
    by_criterion.dispatch_event("change")  # the same value, sent again
    expect(page.locator("form.by-criterion .status")).to_have_text("saved")
    assert Mark.objects.get(assignment__juror=data.juror, criterion=data.criteria["1b"]).points == 2
    assert not Mark.objects.filter(criterion=data.criteria["1a"]).exists()

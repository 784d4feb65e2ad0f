"""The jury's whole flow in a real browser.

Juror A grades a paper with autosave and submits; juror B grades it differently and
submits; the chair sees the discrepancy on the comparison sheet, discusses and decides,
finalizes the problem; the organizer sees the system's total. No page a juror (or the
chair) sees names the system behind the paper.

The data is the demo jury (``manage.py demo``), in which problem 2 is partly graded. Before
grading starts, problem 2 starts afresh: its assignments (with their marks) go, and it is
given to juror2 and juror3 alone, so the chair is no assignee of it; its other papers are
graded beforehand (the two jurors agree on them) so that the problem can be finalized.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from urllib.parse import parse_qs

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from .conftest import close_page, login

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PASSWORD = "ioleval-demo"
SLUG = "demo"
PROBLEM = 2
JUROR_A, JUROR_B = "juror2", "juror3"
# Criterion code -> points typed; the jurors differ on 2c only (tolerance 0).
MARKS_A = {"2a": "2", "2b": "3", "2c": "3.5"}
MARKS_B = {"2a": "2", "2b": "3", "2c": "2.5"}
DISCREPANT = "2c"
DECISION = "3"
FINAL_TOTAL = "8"  # 2 + 3 + the decided 3
# Set E2E_SCREENSHOTS=/some/dir to keep screenshots of the grading page and the sheet.
SCREENSHOTS = os.environ.get("E2E_SCREENSHOTS")


@dataclass
class Flow:
    code: str  # the paper driven through the browser
    system: str  # its system's name, which jurors must never see
    systems: list[str]  # every system name of the competition
    criteria: dict[str, int]  # criterion code -> id


@pytest.fixture
def flow(db) -> Flow:
    from django.contrib.auth import get_user_model

    from grading.models import (
        Assignment,
        DiscussionComment,
        Mark,
        Paper,
        ProblemJuror,
        ProblemJury,
        Resolution,
    )
    from grading.services import (
        assignment_submit,
        jurors_assign,
        mark_save,
        problem_jurors_set,
        rubric_current,
    )
    from puzzles.models import Problem

    call_command("demo", verbosity=0)
    User = get_user_model()
    problem = Problem.objects.get(competition__slug=SLUG, number=PROBLEM)
    criteria = list(rubric_current(problem).criteria.order_by("order"))
    assert [c.code for c in criteria] == list(MARKS_A)
    assert not ProblemJury.objects.filter(problem=problem, finalized_at__isnull=False).exists()
    # Before grading starts, problem 2 starts afresh with a jury of exactly jurors A and B:
    # the chair must not be an open assignee of it (the sheet is refused to a chair still
    # grading), and the demo's marks, threads and decisions of it go with its assignments.
    Assignment.objects.filter(paper__problem=problem).delete()
    Resolution.objects.filter(paper__problem=problem).delete()
    DiscussionComment.objects.filter(paper__problem=problem).delete()
    assert not Mark.objects.filter(assignment__paper__problem=problem).exists()
    ProblemJuror.objects.filter(problem=problem).delete()
    problem_jurors_set(problem=problem, usernames=[JUROR_A, JUROR_B])
    jurors_assign(competition=problem.competition, per_paper=2)
    papers = list(Paper.objects.filter(problem=problem).select_related("system").order_by("code"))
    for paper in papers:
        assigned = Assignment.objects.filter(paper=paper).values_list("juror__username", flat=True)
        assert sorted(assigned) == [JUROR_A, JUROR_B]
    chair = User.objects.get(username="chair")
    assert not Assignment.objects.filter(paper__problem=problem, juror=chair).exists()
    paper, others = papers[0], papers[1:]
    for other in others:  # both jurors agree on the other papers, so the problem can close
        for assignment in Assignment.objects.filter(paper=other):
            for criterion in criteria:
                mark_save(
                    assignment=assignment, criterion=criterion, points=criterion.step, comment=""
                )
            assignment_submit(assignment=assignment)
    return Flow(
        code=paper.code,
        system=paper.system.name,
        systems=list(problem.competition.systems.values_list("name", flat=True)),
        criteria={c.code: c.pk for c in criteria},
    )


def sign_in(page, live_server, username: str) -> None:
    login(page, live_server, username, PASSWORD)


def assert_anonymous(page, flow: Flow) -> None:
    """The page names no system (it is a juror's or the chair's view)."""
    html = page.content()
    leaked = [name for name in flow.systems if name in html]
    assert not leaked, f"{page.url} shows system name(s) {leaked}"


def settle(page) -> None:
    """Wait until no htmx request is in flight.

    The live server serves requests in threads: on the shared in-memory SQLite test
    database two concurrent writes (a points field and a comment saving at once) fail
    with "database table is locked". One at a time, then.
    """
    # Not page.wait_for_function: while it polls, it evaluates its predicate as a string in
    # the page, which the Content-Security-Policy (no unsafe-eval) refuses. expect() polls
    # from Playwright's own isolated world.
    expect(page.locator(".htmx-request")).to_have_count(0)


def criterion_form(page, code: str):
    return page.locator("form.criterion").filter(
        has=page.locator(f"input.points[data-criterion='{code}']")
    )


def is_mark_post(flow: Flow, code: str, **fields: str):
    """Match the autosave response of a criterion that posted these field values."""
    path = f"/jury/papers/{flow.code}/marks/{flow.criteria[code]}/"

    def match(response) -> bool:
        request = response.request
        if request.method != "POST" or not response.url.endswith(path):
            return False
        posted = parse_qs(request.post_data or "", keep_blank_values=True)
        return all(posted.get(name) == [value] for name, value in fields.items())

    return match


def expect_points(page, code: str, points: str) -> None:
    """The field shows these points (3.5 may be rendered as 3.50)."""
    field = page.locator(f"input.points[data-criterion='{code}']")
    expect(field).not_to_have_value("")
    assert Decimal(field.input_value()) == Decimal(points)


def type_marks_with_keyboard(page, flow: Flow, marks: dict[str, str]) -> None:
    """Type each criterion's points, Enter moves on; wait for each autosave."""
    codes = list(marks)
    expect(page.locator(f"input.points[data-criterion='{codes[0]}']")).to_be_focused()
    for index, code in enumerate(codes):
        with page.expect_response(is_mark_post(flow, code, points=marks[code])) as response:
            page.keyboard.type(marks[code])
            page.keyboard.press("Enter")
        assert response.value.status == 200
        expect(criterion_form(page, code).locator(".status.saved")).to_have_text("saved")
        settle(page)
        if index + 1 < len(codes):
            following = page.locator(f"input.points[data-criterion='{codes[index + 1]}']")
            expect(following).to_be_focused()


def comment(page, flow: Flow, code: str, text: str) -> None:
    """Type a comment; it autosaves after a pause in typing (no blur needed)."""
    with page.expect_response(is_mark_post(flow, code, comment=text)) as response:
        criterion_form(page, code).locator("textarea").press_sequentially(text)
    assert response.value.status == 200
    expect(criterion_form(page, code).locator(".status.saved")).to_have_text("saved")
    settle(page)


def try_invalid_points(page, flow: Flow, code: str, points: str):
    """Type points the server refuses; return the autosave response."""
    field = page.locator(f"input.points[data-criterion='{code}']")
    with page.expect_response(is_mark_post(flow, code, points=points)) as response:
        field.fill(points)
        field.press("Enter")
    settle(page)
    return response.value


def submit_paper(page, flow: Flow) -> None:
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("button:has-text('Submit paper')")
    expect(page.locator(".messages")).to_contain_text(f"{flow.code} submitted")
    expect(page.locator("h1 .pill")).to_have_text("submitted")
    for field in page.locator("form.criterion input.points").all():
        expect(field).to_be_disabled()


def open_paper_from_my_papers(page, flow: Flow) -> None:
    expect(page.locator("h1")).to_have_text("My papers")  # where a juror lands
    assert_anonymous(page, flow)
    page.click(f"a:text-is('{flow.code}')")
    expect(page.locator("h1")).to_contain_text(f"Paper {flow.code}")
    assert_anonymous(page, flow)


def test_two_jurors_disagree_and_the_chair_decides(new_page, live_server, flow):
    thread_url = f"{live_server.url}/jury/papers/{flow.code}/criteria/{flow.criteria[DISCREPANT]}/"
    sheet_url = f"{live_server.url}/c/{SLUG}/jury/problems/{PROBLEM}/sheet/"

    # --- juror A grades with autosave and keyboard navigation ---
    a = new_page()
    sign_in(a, live_server, JUROR_A)
    open_paper_from_my_papers(a, flow)
    type_marks_with_keyboard(a, flow, MARKS_A)
    comment(a, flow, DISCREPANT, "Base six found; the multiplier is only half explained.")
    # Above the maximum: refused, with the reason shown in place of "saved".
    assert try_invalid_points(a, flow, "2a", "5").status == 422
    status = criterion_form(a, "2a").locator(".status")
    expect(status).to_have_text(re.compile(r"^2a: 5 is outside 0\.\.3\b"))
    expect(status).to_have_class(re.compile(r"\berror\b"))
    if SCREENSHOTS:
        a.screenshot(path=str(Path(SCREENSHOTS) / "grade.png"), full_page=True)

    a.reload()  # the marks persisted, the refused one did not replace the valid one
    for code, points in MARKS_A.items():
        expect_points(a, code, points)
    expect(criterion_form(a, DISCREPANT).locator("textarea")).to_have_value(
        "Base six found; the multiplier is only half explained."
    )
    assert_anonymous(a, flow)

    a.goto(f"{live_server.url}/jury/")  # the list shows the draft's progress
    row = a.locator("tr", has=a.locator(f"a:text-is('{flow.code}')"))
    expect(row.locator(".pill")).to_have_text("draft")
    expect(row.locator("td.num")).to_have_text("3 / 3")
    a.click(f"a:text-is('{flow.code}')")
    submit_paper(a, flow)
    assert_anonymous(a, flow)

    # --- juror B grades the same paper differently ---
    b = new_page()
    sign_in(b, live_server, JUROR_B)
    open_paper_from_my_papers(b, flow)
    for code in MARKS_A:  # B's page starts empty: A's marks are A's own
        expect(b.locator(f"input.points[data-criterion='{code}']")).to_have_value("")
    type_marks_with_keyboard(b, flow, MARKS_B)
    # Before submitting, B may not see the other marks of the paper...
    assert b.goto(thread_url).status == 403
    # ... and A, who has submitted, sees only submitted marks: not B's draft.
    a.goto(thread_url)
    expect(a.locator("table.marks")).to_contain_text(JUROR_A)
    expect(a.locator("table.marks")).not_to_contain_text(JUROR_B)
    assert_anonymous(a, flow)
    b.go_back()
    expect(b.locator("h1")).to_contain_text(f"Paper {flow.code}")
    submit_paper(b, flow)
    response = b.goto(thread_url)  # now B sees both marks
    assert response.status == 200
    marks = b.locator("table.marks")
    expect(marks.locator("tr", has_text=JUROR_A)).to_contain_text(MARKS_A[DISCREPANT])
    expect(marks.locator("tr", has_text=JUROR_B)).to_contain_text(MARKS_B[DISCREPANT])
    assert_anonymous(b, flow)

    # --- the chair sees the discrepancy, discusses, decides, finalizes ---
    chair = new_page()
    sign_in(chair, live_server, "chair")
    chair.goto(sheet_url)
    expect(chair.locator("h1")).to_contain_text(f"Comparison sheet · Problem {PROBLEM}")
    assert_anonymous(chair, flow)
    row = chair.locator("table.sheet tr", has_text=flow.code)
    expect(row.locator("td.cell")).to_have_count(len(MARKS_A))
    expect(row.locator("td.cell.discrepant")).to_have_count(1)
    discrepant = row.locator("td.cell").nth(list(MARKS_A).index(DISCREPANT))
    expect(discrepant).to_have_class(re.compile(r"\bdiscrepant\b"))
    # Both submitted marks, in the jurors' order (3.5 may be rendered as 3.50).
    both = rf"{re.escape(MARKS_A[DISCREPANT])}0? · {re.escape(MARKS_B[DISCREPANT])}0?"
    expect(discrepant).to_contain_text(re.compile(both))
    expect(row.locator("td.cell.agreed")).to_have_count(len(MARKS_A) - 1)
    papers = chair.locator("table.sheet tr:has(td.cell)")
    expect(papers).to_have_count(4)
    if SCREENSHOTS:
        chair.screenshot(path=str(Path(SCREENSHOTS) / "sheet.png"), full_page=True)

    chair.check("input[name=only]")
    chair.click("form.controls button:has-text('Filter')")
    chair.wait_for_url(re.compile(r"only=discrepancies"))
    expect(papers).to_have_count(1)
    expect(papers.first).to_contain_text(flow.code)

    # The cell opens the chair's decision panel on the sheet; its discussion is linked there.
    chair.locator("table.sheet tr", has_text=flow.code).locator("td.cell.discrepant a").click()
    chair.locator("#decide-panel").get_by_role(
        "link", name=f"Discussion of {flow.code} {DISCREPANT}"
    ).click()
    chair.wait_for_url(thread_url)
    expect(chair.locator("h1")).to_contain_text(f"{flow.code} · {DISCREPANT}")
    assert_anonymous(chair, flow)
    chair.fill("textarea[name=text]", "Half of the multiplier is there: 3 points.")
    chair.click("form[action$='/comment/'] button")
    expect(chair.locator("ul.thread")).to_contain_text("Half of the multiplier is there")
    decide = chair.locator("form[action$='/decide/']")
    decide.locator("[name=points]").fill(DECISION)
    decide.locator("[name=reason]").fill("The multiplier is stated, not derived.")
    decide.locator("button").click()
    expect(chair.locator(".messages")).to_contain_text("Decision recorded")
    expect(chair.locator("main")).to_contain_text(f"Agreed mark: {DECISION}")

    chair.click(".topbar a:has-text('Comparison sheet')")
    chair.wait_for_url(sheet_url)
    row = chair.locator("table.sheet tr", has_text=flow.code)
    decided = row.locator("td.cell").nth(list(MARKS_A).index(DISCREPANT))
    expect(decided).to_have_class(re.compile(r"\bdecided\b"))
    expect(decided).to_contain_text(f"→ {DECISION}")
    expect(row.locator("td.cell.discrepant")).to_have_count(0)
    expect(row.locator("td.num").last).to_have_text(FINAL_TOTAL)
    confirmations = []
    chair.once("dialog", lambda dialog: (confirmations.append(dialog.message), dialog.accept()))
    chair.click(f"button:has-text('Finalize problem {PROBLEM}')")
    expect(chair.locator(".messages")).to_contain_text(f"Problem {PROBLEM} finalized")
    assert confirmations and confirmations[0].startswith(f"Finalize problem {PROBLEM}?")
    expect(chair.locator("h1 .pill")).to_have_text("finalized")
    assert_anonymous(chair, flow)

    # --- the totals: the organizer sees the system's points, a juror is refused ---
    totals_url = f"{live_server.url}/c/{SLUG}/jury/totals/"
    assert a.goto(totals_url).status == 403
    organizer = new_page()
    sign_in(organizer, live_server, "organizer")
    organizer.goto(totals_url)
    header = organizer.locator("table tr").first.locator("th").all_inner_texts()
    column = header.index(f"P{PROBLEM}")
    row = organizer.locator("table tr", has=organizer.locator(f"td:text-is('{flow.system}')"))
    expect(row.locator("td").nth(column)).to_have_text(FINAL_TOTAL)


def test_a_failed_autosave_says_not_saved(new_page, live_server, flow):
    page = new_page()
    sign_in(page, live_server, JUROR_A)
    page.goto(f"{live_server.url}/jury/papers/{flow.code}/")
    field = page.locator("input.points[data-criterion='2a']")
    status = criterion_form(page, "2a").locator(".status")

    page.route("**/marks/**", lambda route: route.fulfill(status=500, body="boom"))
    field.fill("1")
    field.dispatch_event("change")
    expect(status).to_have_text("not saved: server error (500). Try again.")
    expect(status).to_have_class(re.compile(r"\berror\b"))
    page.unroute("**/marks/**")

    page.route("**/marks/**", lambda route: route.abort())
    field.fill("2")
    field.dispatch_event("change")
    expect(status).to_have_text(re.compile(r"^not saved: no connection"))
    page.unroute("**/marks/**")

    # Logged out in another tab: the login page must not land inside the rubric.
    context = page.context
    kept = [c for c in context.cookies() if c["name"] != "sessionid"]
    context.clear_cookies()
    context.add_cookies(kept)
    with page.expect_response(lambda r: "/marks/" in r.url) as response:
        field.fill("2")
        field.dispatch_event("change")
    assert response.value.status == 401
    expect(status).to_contain_text("not saved: you are logged out.")
    expect(status.locator("a")).to_have_attribute("href", re.compile(r"^/login/\?next="))
    expect(page.locator("#id_password")).to_have_count(0)
    # Logging in again in another tab rotates the CSRF token; the old page saves anyway.
    other = context.new_page()
    login(other, live_server, JUROR_A, PASSWORD)  # returns once the tab has loaded /jury/
    close_page(other)  # not other.close(): see close_page
    with page.expect_response(lambda r: "/marks/" in r.url) as response:
        field.dispatch_event("change")  # the same value: the failed save may be sent again
    assert response.value.status == 200
    expect(status).to_have_text("saved")
    # The status is still there to report the next try; without the CSRF cookie either,
    # the refusal is a 403.
    context.clear_cookies()
    field.fill("3")
    field.dispatch_event("change")
    expect(status).to_have_text("not saved: refused (403). Reload the page.")


def test_one_change_is_one_save(new_page, live_server, flow):
    page = new_page()
    sign_in(page, live_server, JUROR_A)
    page.goto(f"{live_server.url}/jury/papers/{flow.code}/")
    posts = []
    page.on("request", lambda r: posts.append(r.url) if "/marks/" in r.url else None)
    last = list(MARKS_A)[-1]
    field = page.locator(f"input.points[data-criterion='{last}']")
    field.fill("1")
    field.press("Enter")  # saves in place on the last field...
    expect(criterion_form(page, last).locator(".status")).to_have_text("saved")
    field.press("Tab")  # ...and leaving it must not send the same values again
    settle(page)
    page.wait_for_timeout(300)
    assert len(posts) == 1, posts

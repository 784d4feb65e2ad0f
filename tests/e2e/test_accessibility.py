"""Every page of every role passes axe-core (WCAG 2.1 A and AA) in Debian's chromium.

The data is the demo (``manage.py demo``): problem 3 finalized, problem 1 in discussion
(two papers submitted by juror1 and juror2, one paper open for each), problem 2 being
graded (the chair's papers submitted, so the chair reads the review), the context lab's
demo puzzles. Each role's test visits each of its pages (1280 x 800)
and fails with one line per violation: page, rule id, impact, help, targets.

At 320 px (a phone, or 1280 px at 400% zoom, WCAG 1.4.10 Reflow) the thread, the
leaderboard and the totals do not scroll sideways: their wide tables scroll inside a
focusable, labelled region of their own.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.core.management import call_command
from django.urls import reverse
from playwright.sync_api import expect

from .axe import axe_context, axe_violations, violations_text
from .conftest import close_contexts, login

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(180),  # the demo takes ~10 s to load, then a page or twenty
]

PASSWORD = "ioleval-demo"
SLUG = "demo"
PROBLEM = 1  # in discussion: papers submitted by both jurors, threads, a sheet
NARROW = {"width": 320, "height": 640}
WIDE = {"width": 1280, "height": 800}  # a laptop: the grading page's panels scroll here


@dataclass
class Demo:
    open_paper: str  # juror1's paper of problem 1 not yet submitted
    submitted_paper: str  # juror1's paper of problem 1 submitted by both its jurors
    criterion: int  # problem 1's first criterion (a thread)
    problem: int  # problem 1's id


@pytest.fixture
def demo(db) -> Demo:
    from grading.models import Assignment
    from grading.review.cache import review_cached
    from grading.services import rubric_current
    from puzzles.models import Competition, Problem

    call_command("demo", verbosity=0)
    competition = Competition.objects.get(slug=SLUG)
    Competition.objects.filter(pk=competition.pk).update(public_board=True)
    # The review's bootstrap and charts take seconds on a busy machine: build them here,
    # into the cache the live server (same process) reads, not within a page load's 10 s.
    review_cached(competition=competition, with_charts=True)
    problem = Problem.objects.get(competition=competition, number=PROBLEM)
    mine = Assignment.objects.filter(paper__problem=problem, juror__username="juror1")
    open_paper = mine.filter(submitted_at__isnull=True).order_by("paper__code").first()
    submitted = mine.filter(submitted_at__isnull=False).order_by("paper__code").first()
    assert open_paper and submitted, "the demo no longer has open and submitted problem-1 papers"
    criterion = rubric_current(problem).criteria.order_by("order").first()
    return Demo(
        open_paper=open_paper.paper.code,
        submitted_paper=submitted.paper.code,
        criterion=criterion.pk,
        problem=problem.pk,
    )


def thread_path(demo: Demo) -> str:
    return f"/jury/papers/{demo.submitted_paper}/criteria/{demo.criterion}/"


def role_pages(demo: Demo) -> dict[str, list[str]]:
    """Every page each role reaches in the demo, by path."""
    c = f"/c/{SLUG}"
    return {
        "": ["/login/", f"/board/{SLUG}/"],
        "juror1": [
            "/",
            "/jury/",
            f"/jury/papers/{demo.open_paper}/",
            f"/jury/papers/{demo.submitted_paper}/",
            thread_path(demo),
            reverse("grading:by_criterion", args=[demo.problem, demo.criterion]),
            reverse("grading:by_criterion", args=[demo.problem, demo.criterion])
            + f"?paper={demo.submitted_paper}",
            reverse("grading:distinct_first", args=[demo.problem]),
        ],
        "chair": [
            f"{c}/jury/problems/{PROBLEM}/sheet/",
            f"{c}/jury/problems/{PROBLEM}/overview/",
            thread_path(demo),
            f"{c}/review/",
        ],
        "organizer": [
            "/",
            "/competitions/",
            "/competitions/import/",
            f"{c}/import/",
            f"{c}/",
            f"{c}/leaderboard/",
            f"{c}/answers/",
            f"{c}/jury/",
            f"{c}/jury/problems/{PROBLEM}/rubric/",
            f"{c}/jury/totals/",
            f"{c}/review/",
            f"{c}/review/inputs/",
            f"{c}/review/explanations/",
            f"{c}/analytics/formats/",
            f"{c}/analytics/probes/",
            f"{c}/analytics/oracle/",
            f"{c}/analytics/tiers/",
            f"{c}/analytics/runs/",
            f"{c}/analytics/techniques/",
            f"{c}/analytics/ablations/",
            "/context/",
            "/context/p/demo-vashko/",
            "/context/results/",
            "/context/judges/",
            "/accounts/",
            "/logins/locked/",
            thread_path(demo),
        ],
    }


def open_as(browser, live_server, username: str, refused: list[str], contexts: list, **options):
    context = axe_context(browser, refused, **options)
    contexts.append(context)
    page = context.new_page()
    if username:
        login(page, live_server, username, PASSWORD)
    return page


def visit(page, live_server, path: str) -> None:
    response = page.goto(f"{live_server.url}{path}")
    assert response is not None and response.status == 200, (path, response and response.status)
    expect(page.locator(".htmx-request")).to_have_count(0)


def audit(browser, live_server, username: str, paths: list[str]) -> dict[str, list[dict]]:
    """Visit each path as the user (anonymous for ""); return axe's violations by path."""
    refused: list[str] = []
    contexts: list = []
    found = {}
    try:
        page = open_as(browser, live_server, username, refused, contexts, viewport=WIDE)
        for path in paths:
            visit(page, live_server, path)
            violations = axe_violations(page)
            if violations:
                found[path] = violations
    finally:
        close_contexts(contexts)
    assert not refused, refused
    return found


def assert_role_passes(browser, live_server, demo: Demo, username: str) -> None:
    found = audit(browser, live_server, username, role_pages(demo)[username])
    assert not found, f"axe (WCAG 2.1 A/AA) as {username or 'anonymous'}:\n" + violations_text(
        found
    )


def test_anonymous_pages_pass_axe(browser, live_server, demo):
    assert_role_passes(browser, live_server, demo, "")


def test_juror_pages_pass_axe(browser, live_server, demo):
    assert_role_passes(browser, live_server, demo, "juror1")


def test_chair_pages_pass_axe(browser, live_server, demo):
    assert_role_passes(browser, live_server, demo, "chair")


def test_organizer_pages_pass_axe(browser, live_server, demo):
    assert_role_passes(browser, live_server, demo, "organizer")


# Elements that scroll sideways: each must be a keyboard-reachable, named region.
UNREACHABLE_SCROLLERS = """
() => [...document.querySelectorAll("main *")]
  .filter((el) => el.scrollWidth > el.clientWidth + 1
    && ["auto", "scroll"].includes(getComputedStyle(el).overflowX))
  .filter((el) => el.getAttribute("tabindex") !== "0"
    || !(el.getAttribute("aria-label") || el.getAttribute("aria-labelledby")))
  .map((el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "")
    + (el.className ? "." + String(el.className).split(" ").join(".") : ""))
"""


def test_wide_pages_do_not_scroll_sideways_at_320px(browser, live_server, demo):
    refused: list[str] = []
    contexts: list = []
    problems = []
    try:
        chair = open_as(browser, live_server, "chair", refused, contexts, viewport=NARROW)
        organizer = open_as(browser, live_server, "organizer", refused, contexts, viewport=NARROW)
        pages = [
            (chair, thread_path(demo)),
            (organizer, f"/c/{SLUG}/leaderboard/"),
            (organizer, f"/c/{SLUG}/jury/totals/"),
        ]
        for page, path in pages:
            visit(page, live_server, path)
            width, viewport = page.evaluate(
                "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
            )
            if width > viewport:
                problems.append(f"{path}: the page is {width} px wide in a {viewport} px window")
            for scroller in page.evaluate(UNREACHABLE_SCROLLERS):
                problems.append(f"{path}: {scroller} scrolls but is no focusable, named region")
            violations = axe_violations(page)
            if violations:
                problems.append(violations_text({f"{path} (320 px)": violations}))
    finally:
        close_contexts(contexts)
    assert not refused, refused
    assert not problems, "\n".join(problems)

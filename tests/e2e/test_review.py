"""The result review in a real browser, as an organizer uses it; jurors are refused it.

The data is the demo (``manage.py demo``): problem 3 finalized, problems 1 and 2 partly
graded (every paper by at least one juror, a discrepancy of problem 1 in discussion), 60
invented contestants with per-criterion points, thresholds. The fixture then has the jurors
finish problems 1 and 2 through the grading services (every juror submits every paper;
problem 1's open discrepancy stays open), so that every selected system has a jury total
from every assigned juror, provisional until problems 1 and 2 are finalized.
"""

from __future__ import annotations

import re
from decimal import ROUND_FLOOR, Decimal

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from .conftest import login

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PASSWORD = "ioleval-demo"
SLUG = "demo"
# The share of each criterion's points the jurors give a system on problems 1 and 2.
SHARES = {
    "Frontier-A": Decimal("1"),
    "Frontier-B": Decimal("0.75"),
    "Team Lexicon": Decimal("0.5"),
    "OpenModel-7B": Decimal("0"),
}


def _points(maximum: Decimal, step: Decimal, share: Decimal) -> Decimal:
    return (maximum * share / step).to_integral_value(rounding=ROUND_FLOOR) * step


@pytest.fixture
def graded(db):
    """The demo with problems 1 and 2 graded by every assigned juror (not finalized)."""
    from grading.models import Assignment, Mark
    from grading.review.build import review_build
    from grading.services import assignment_submit, mark_save, rubric_current
    from puzzles.models import Competition

    call_command("demo", verbosity=0)
    competition = Competition.objects.get(slug=SLUG)
    open_assignments = (
        Assignment.objects.filter(
            paper__problem__competition=competition, submitted_at__isnull=True
        )
        .select_related("paper__system", "paper__problem")
        .order_by("paper__code", "juror__username")
    )
    assert {a.paper.problem.number for a in open_assignments} == {1, 2}
    for assignment in open_assignments:
        share = SHARES[assignment.paper.system.name]
        for criterion in rubric_current(assignment.paper.problem).criteria.all():
            mark_save(
                assignment=assignment,
                criterion=criterion,
                points=_points(criterion.maximum, criterion.step, share),
                comment="",
            )
        assignment_submit(assignment=assignment)
    assert not Mark.objects.filter(
        assignment__paper__problem__competition=competition, points__isnull=True
    ).exists()
    return review_build(competition=competition, resamples=200)


def _juror_urls(live_server) -> list[str]:
    from grading.review.report import TABLES
    from ioleval.tables import FORMATS

    base = f"{live_server.url}/c/{SLUG}"
    return [
        f"{base}/review/",
        f"{base}/review.json",
        f"{base}/review.pdf",
        f"{base}/review/inputs/",
        f"{base}/review/explanations/",
        f"{base}/review/explanations.csv",
        *(f"{base}/review/{table}.{fmt}" for table in TABLES for fmt in FORMATS),
    ]


def test_organizer_reads_the_review_and_downloads_the_report(page, live_server, graded):
    review = graded
    assert review.provisional and review.correlation.n == 4
    # The demo's marks and the fixture's (SHARES) both count, so only the top system's medal
    # is asserted here; the page is checked against the service's medal of every system
    # below.
    medals = {s.system: s.medal for s in review.systems}
    assert medals["Frontier-A"] == "gold"

    login(page, live_server, "organizer", PASSWORD)
    page.goto(f"{live_server.url}/c/{SLUG}/")
    page.click("text=Result review")
    page.wait_for_url(re.compile(rf"/c/{SLUG}/review/$"))
    expect(page.locator("h1")).to_contain_text("Result review")
    expect(page.get_by_role("status")).to_contain_text("rovisional")

    # The correlation: the sentence states n and Spearman's rho as the service computed it.
    sentence = page.locator("h2:has-text('Jury against automatic') + p")
    expect(sentence).to_contain_text("4 systems")
    expect(sentence).to_contain_text(f"{review.correlation.spearman:.2f}")

    # Charts: server-side SVG, each an image of its own URL, loaded and drawn.
    charts = page.locator("figure.chart img")
    expect(charts.first).to_be_visible()
    assert charts.count() == 5
    for index in range(charts.count()):
        chart = charts.nth(index)
        expect(chart).to_have_attribute("alt", re.compile(r"\w"))
        chart.scroll_into_view_if_needed()
        expect(chart).to_have_js_property("complete", True)  # polled outside the page's CSP
        assert chart.evaluate("img => img.naturalWidth") > 0  # drawn, not a broken image

    # Medals and placement: each system's row says its medal and its place.
    systems = page.locator("table").first
    for s in review.systems:
        row = systems.locator("tbody tr", has_text=s.system)
        expect(row).to_contain_text(s.medal_text or "—")
        if s.placement_text:
            expect(row).to_contain_text(s.placement_text)
    gold = systems.locator("tbody tr", has_text="Frontier-A")
    expect(gold).to_contain_text("old")

    # The agreement table: one block a problem, with alpha, ICC(A,k) and ICC(A,1), each table
    # in its own scroll region.
    agreement = page.locator("h2:has-text('Juror agreement') ~ h3")
    expect(agreement).to_have_count(len(review.agreement))
    tables = page.locator("h2:has-text('Juror agreement') ~ div.scroll table")
    expect(tables.first.locator("th").first).to_be_visible()
    expect(page.get_by_text("Discrepant cells").first).to_be_visible()
    expect(tables.first).to_contain_text("ICC(A,1)")
    first = review.agreement[0]
    if first.alpha.value is not None:
        expect(tables.first).to_contain_text(f"{first.alpha.value:.2f}")

    with page.expect_download() as download:
        page.click("text=PDF report")
    assert download.value.suggested_filename.endswith(".pdf")
    with open(download.value.path(), "rb") as pdf:
        assert pdf.read(5) == b"%PDF-"


def test_a_juror_is_refused_every_review_url(page, live_server, graded):
    login(page, live_server, "juror1", PASSWORD)
    for url in _juror_urls(live_server):
        if url.endswith("/"):  # a page: the browser shows the refusal
            response = page.goto(url)
            body = page.content()
        else:  # a download: fetched with the juror's session
            response = page.request.get(url)
            body = response.text()
        assert response.status == 403, url
        for system in SHARES:
            assert system not in body, (url, system)

"""The challenge analytics in a real browser, as an organizer uses them on the demo: each
page from the competition page's links, its heading, its chart drawn, its CSV export; the
oracle's preview of two members; a runs upload refused with the file, line and field named
and nothing changed."""

from __future__ import annotations

import csv
import re

import pytest
from playwright.sync_api import expect

from puzzles.analytics.oracle.selectors import oracle_page
from puzzles.models import Run
from puzzles.templatetags.puzzles_tags import pct

from .conftest import login

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SLUG = "demo"
# link on the competition page -> (path, heading, CSV link, CSV file, its first columns)
PAGES = {
    "Format failures": (
        "formats",
        "Format failures",
        "CSV",
        "format-failures",
        ["system", "tier", "empty_before"],
    ),
    "Knowledge probes": (
        "probes",
        "Knowledge probes",
        "CSV",
        "probes",
        ["model", "system", "automatic_score"],
    ),
    "Scores by tier": ("tiers", "Scores by tier", "CSV", "tiers", ["tier", "tier_label", "n"]),
    "Runs and teams": (
        "runs",
        "Runs and teams",
        "Selection check (CSV)",
        "selection",
        ["team", "selected_run", "selected_public"],
    ),
    "Techniques": (
        "techniques",
        "Techniques",
        "Techniques (CSV)",
        "techniques",
        ["score", "technique", "teams_using", "teams_with_scored_runs"],
    ),
    "Ablations": (
        "ablations",
        "Ablations",
        "Changes (CSV)",
        "ablations",
        ["model", "condition", "reference"],
    ),
}
MEMBERS = ["Frontier-A", "Team Lexicon"]


def _open_from_competition(page, live_server, link: str, path: str) -> None:
    page.goto(f"{live_server.url}/c/{SLUG}/")
    page.locator("main").get_by_role("link", name=link, exact=True).click()
    page.wait_for_url(re.compile(rf"/c/{SLUG}/analytics/{path}/"))


def _chart_drawn(page) -> None:
    chart = page.locator("main figure img")
    expect(chart).to_have_count(1)
    expect(chart).to_have_attribute("alt", re.compile(r"\w"))
    chart.scroll_into_view_if_needed()
    expect(chart).to_be_visible()
    expect(chart).to_have_js_property("complete", True)
    assert chart.evaluate("img => img.naturalWidth") > 0  # drawn, not a broken image


def _download_csv(page, name: str, filename: str) -> list[list[str]]:
    with page.expect_download() as download:
        page.locator("main").get_by_role("link", name=name, exact=True).click()
    assert download.value.suggested_filename == filename
    with open(download.value.path(), encoding="utf-8-sig", newline="") as handle:
        return list(csv.reader(handle))


def test_organizer_reads_each_analytics_page_and_downloads_its_csv(
    new_page, live_server, organizer, demo_competition
):
    page = new_page()
    login(page, live_server, organizer.username)
    for link, (path, heading, csv_link, csv_name, columns) in PAGES.items():
        _open_from_competition(page, live_server, link, path)
        expect(page.locator("h1")).to_contain_text(heading)
        _chart_drawn(page)
        rows = _download_csv(page, csv_link, f"{SLUG}-{csv_name}.csv")
        assert rows[0][: len(columns)] == columns, path
        assert len(rows) > 1, path  # the demo has data for every analysis


def test_organizer_previews_an_oracle_of_two_members_and_downloads_it(
    new_page, live_server, organizer, demo_competition
):
    expected = oracle_page(demo_competition, members=MEMBERS).preview
    page = new_page()
    login(page, live_server, organizer.username)
    _open_from_competition(page, live_server, "Oracle ensemble", "oracle")
    expect(page.locator("h1")).to_contain_text("Oracle ensemble")
    # Before a preview there is nothing to chart.
    expect(page.locator("main figure")).to_have_count(0)
    for member in MEMBERS:
        page.locator(f"input[name=members][value='{member}']").check()
    page.get_by_role("button", name="Preview").click()
    page.wait_for_url(re.compile(r"[?&]members="))
    expect(page.get_by_role("heading", name="Preview")).to_be_visible()
    _chart_drawn(page)
    expect(page.locator("main")).to_contain_text(f"Oracle score {pct(expected.overall.score)}")
    shares = page.locator("#oracle-shares tbody tr")
    expect(shares).to_have_count(2)
    for share in expected.shares:
        expect(shares.filter(has_text=share.member)).to_contain_text(pct(share.share))
    tasks = page.locator("#oracle-tasks tbody tr")
    expect(tasks).to_have_count(len(expected.tasks))
    for row, task in enumerate(expected.tasks):
        supplier = task.member or "(no output)"
        if task.tied:
            supplier += f" (tied with {', '.join(task.tied)})"
        expect(tasks.nth(row).locator("td").nth(2)).to_have_text(supplier)
    expect(page.locator("#oracle-maximum")).to_contain_text(
        f"Attainable maximum {pct(expected.maximum.score)}"
    )
    rows = _download_csv(page, "CSV", f"{SLUG}-oracle.csv")
    assert rows[0][:3] == ["task", "weight", "member"]
    # The tasks, then the oracle's overall row and the attainable maximum's.
    assert [r[2] for r in rows[1:-2]] == [t.member or "" for t in expected.tasks]
    assert [r[0] for r in rows[-2:]] == ["overall", "attainable maximum"]


BAD_RUNS = (
    "team,run,submitted_at,status,failure,public,private,selected\n"
    "Frontier-A,1,2026-03-01T10:00:00Z,scored,,0.5,0.4,1\n"
    "Frontier-B,1,2026-03-01T11:00:00Z,scored,,high,0.4,1\n"
)


def test_a_bad_runs_upload_names_file_line_and_field_and_changes_nothing(
    new_page, live_server, organizer, demo_competition
):
    before = list(
        Run.objects.submissions().order_by("pk").values_list("pk", "public_score", "private_score")
    )
    assert before
    page = new_page()
    login(page, live_server, organizer.username)
    _open_from_competition(page, live_server, "Runs and teams", "runs")
    summary = page.locator("h2:has-text('Submissions per team') + p")
    shown = summary.inner_text()
    assert shown.startswith(f"{len(before)} runs of ")
    form = page.locator("main form[enctype='multipart/form-data']").first
    form.locator("input[type=file]").set_input_files(
        {"name": "bad-runs.csv", "mimeType": "text/csv", "buffer": BAD_RUNS.encode()}
    )
    form.get_by_role("button", name="Import").click()
    page.wait_for_url(re.compile(rf"/c/{SLUG}/analytics/runs/$"))
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("bad-runs.csv, line 3, field 'public'")
    expect(alert).to_contain_text("'high' is not a number")
    expect(summary).to_have_text(shown)
    after = list(
        Run.objects.submissions().order_by("pk").values_list("pk", "public_score", "private_score")
    )
    assert after == before

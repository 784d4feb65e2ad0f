"""The challenge analytics part of the PDF report (puzzles.analytics.report_pdf): a section
per analysis in report.SECTIONS' order with its chart (the page's own) and its table, the
JSON report's note where an analysis has no data, nothing at all when none has, and untrusted
names escaped. The PDF itself is tested on the grading side (the review's report)."""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from puzzles.analytics import report_pdf
from puzzles.analytics.probes.imports import probes_import
from puzzles.analytics.report import SECTIONS
from puzzles.analytics.report_pdf import analytics_report_html
from puzzles.analytics.runs.imports import runs_import
from puzzles.analytics.techniques.services import runs_tag
from puzzles.services import competition_rescore
from tests.puzzles.factories import (
    CompetitionFactory,
    OutputFactory,
    ProblemFactory,
    SystemFactory,
    TaskFactory,
)

pytestmark = pytest.mark.django_db

IMG = "<img src=x onerror=alert(1)>"
SCRIPT = "</svg><script>alert(2)</script>"
SECTION = re.compile(r'<section id="analytics-(\w+)">(.*?)</section>', re.S)
SVG = re.compile(r"<svg.*?</svg>", re.S)


def _sections(html: str) -> dict[str, str]:
    return dict(SECTION.findall(html))


def _assert_svgs_whole(html: str) -> list[str]:
    """Every chart is one well-formed SVG document: no name closed it or slipped a tag in."""
    svgs = SVG.findall(html)
    assert html.count("<svg") == html.count("</svg>") == len(svgs)
    for svg in svgs:
        root = ET.fromstring(svg)
        assert root.tag.endswith("svg")
        assert not [e for e in root.iter() if e.tag.rsplit("}", 1)[-1] in {"script", "img"}]
    return svgs


def test_every_section_has_its_chart_and_table_on_the_demo(demo_competition):
    html = analytics_report_html(demo_competition)
    assert "Challenge analytics" in html
    sections = _sections(html)
    assert list(sections) == [name for name, _ in SECTIONS]
    for name, body in sections.items():
        assert "<svg" in body and "<table>" in body, name
    _assert_svgs_whole(html)
    # The sentences the pages give.
    assert "The best run on the public board was also the best" in sections["runs"]
    assert "Spearman rho" in sections["runs"] and "Pearson r" in sections["probes"]


@pytest.mark.parametrize(
    "analysis", ["runs", "tiers", "formats", "techniques", "probes", "ablations"]
)
def test_each_chart_is_the_one_its_page_shows(demo_competition, organizer_client, analysis):
    url = reverse(f"puzzles:analytics_{analysis}_chart", args=[demo_competition.slug])
    svg = organizer_client.get(url).content.decode()
    assert svg.startswith("<svg")
    assert svg in _sections(analytics_report_html(demo_competition))[analysis]


def test_the_oracle_chart_is_the_pages_for_its_members(demo_competition, organizer_client):
    section = _sections(analytics_report_html(demo_competition))["oracle"]
    assert "Oracle (demo)" in section
    members = ["Ensemble-3", "Frontier-A", "Team Lexicon"]
    url = reverse("puzzles:analytics_oracle_chart", args=[demo_competition.slug])
    svg = organizer_client.get(url, {"members": members}).content.decode()
    assert svg in section


def test_long_tables_show_their_first_rows_and_say_how_many_more(demo_competition, monkeypatch):
    monkeypatch.setattr(report_pdf, "TOP_ROWS", 2)
    runs = _sections(analytics_report_html(demo_competition))["runs"]
    table = runs.split("<h3>Selection check</h3>", 1)[1]
    assert table.count("<tr>") == 1 + 2  # the header and two teams
    assert "6 more teams in the CSV export" in runs


def test_an_empty_competition_has_no_analytics_part():
    assert analytics_report_html(CompetitionFactory(slug="empty")) == ""


def _scored_competition(names: list[str], slug: str = "pdf"):
    """One task, a system per name with a right answer (tiers and formats have data)."""
    competition = CompetitionFactory(slug=slug)
    problem = ProblemFactory(competition=competition, number=1)
    task = TaskFactory(problem=problem, answer_key=[["one"]])
    for name in names:
        OutputFactory(system=SystemFactory(competition=competition, name=name), task=task)
    competition_rescore(competition=competition)
    return competition


def test_an_analysis_without_data_shows_its_note_in_one_line():
    competition = _scored_competition(["Alpha", "Beta"])
    sections = _sections(analytics_report_html(competition))
    notes = {name: section(competition) for name, section in SECTIONS}
    for name in ("runs", "oracle", "techniques", "probes", "ablations"):
        assert notes[name]["available"] is False
        assert sections[name].split("</h2>", 1)[1].strip() == (
            f'<p class="note">{notes[name]["note"]}</p>'
        )
    for name in ("tiers", "formats"):
        assert "<svg" in sections[name] and "<table>" in sections[name], name
    assert "Alpha" in sections["formats"]


def test_hostile_names_are_escaped_and_the_charts_stay_whole():
    competition = _scored_competition([IMG, SCRIPT])
    runs = "team,run,submitted_at,status,failure,public,private,selected\n" + "".join(
        f'"{team}",{run},2026-03-0{run}T10:00:00Z,scored,,0.{run}{i},0.{run},{int(run == 1)}\n'
        for i, team in enumerate((IMG, SCRIPT))
        for run in (1, 2)
    )
    runs_import(competition=competition, stream=io.StringIO(runs), file="runs.csv")
    for team in (IMG, SCRIPT):
        runs_tag(competition=competition, team=team, runs=[1], technique=SCRIPT)
    probes = "model,problem,probe_type,item,correct\n" + "".join(
        f'"{model}",1,{IMG},q{i},{i % 2}\n' for model in (IMG, SCRIPT) for i in range(2)
    )
    probes_import(competition=competition, stream=io.StringIO(probes), file="probes.csv")

    html = analytics_report_html(competition)
    sections = _sections(html)
    for name in ("runs", "tiers", "formats", "techniques", "probes"):
        assert "<svg" in sections[name], name
    assert "<img" not in html and "<script" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "&lt;/svg&gt;&lt;script&gt;alert(2)&lt;/script&gt;" in html
    svgs = _assert_svgs_whole(html)
    # The names are in the charts too, as escaped text.
    assert any("&lt;img src=x" in svg for svg in svgs)


def _with_runs(names: list[str], slug: str):
    competition = _scored_competition(names, slug=slug)
    runs = "team,run,submitted_at,status,failure,public,private,selected\n" + "".join(
        f"{team},{run},2026-03-0{run}T10:00:00Z,scored,,0.{run},0.{run},{int(run == 1)}\n"
        for team in names
        for run in (1, 2)
    )
    runs_import(competition=competition, stream=io.StringIO(runs), file="runs.csv")
    for team in names:
        runs_tag(competition=competition, team=team, runs=[1], technique="voting")
    return competition


def test_the_part_reads_in_a_constant_number_of_queries():
    small = _with_runs(["A", "B"], "small")
    large = _with_runs([f"T{i}" for i in range(12)], "large")
    counts = set()
    for competition in (small, large):
        with CaptureQueriesContext(connection) as captured:
            assert "Runs and teams" in analytics_report_html(competition)
        counts.add(len(captured))
    assert len(counts) == 1, counts

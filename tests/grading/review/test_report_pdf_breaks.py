"""Where the review's PDF breaks its pages (issue 19, section 7): a heading stays with its
content, a table's header never ends a page without a row after it, a split table never
leaves one row alone; and the format heat map of many systems stays readable.

Read back with pypdf (tests/pdf_pages.py) from the PDF `manage.py report --format pdf` writes,
on the demo and on a 40-system jury long enough to break every long table.
"""

from __future__ import annotations

import io
import random
import re

import pytest
from django.core.management import call_command

from benchmarks.scale.bulk import jury_complete
from benchmarks.scale.data import build_board, build_jury
from grading.pdf import render_pdf
from grading.review.cache import review_cached
from grading.review.report import review_pdf_html
from puzzles.analytics.formats.charts import PDF_ROWS
from puzzles.analytics.report_pdf import analytics_report_html
from puzzles.demo import DEMO_SLUG
from puzzles.models import Competition
from tests import chart_geometry as geometry
from tests.pdf_pages import breaks, landmarks, page_lines, squeeze

pytestmark = pytest.mark.django_db

HEATMAP = re.compile(r'<figure class="chart heatmap">(.*?)</figure>', re.S)


def _report(competition: Competition) -> tuple[bytes, str]:
    """Return the PDF report (with the challenge analytics) and the HTML it was made from."""
    page = review_cached(competition=competition, resamples=100)
    html = review_pdf_html(
        page.review, page.charts, analytics_html=analytics_report_html(competition)
    )
    return render_pdf(html), html


def test_the_demos_report_breaks_pages_between_whole_blocks(demo):
    pdf, html = _report(Competition.objects.get(slug=DEMO_SLUG))
    marks = landmarks(html)
    assert len(marks.headings) >= 8 and len(marks.table_headers) >= 8
    assert len(page_lines(pdf)) >= 10
    assert breaks(pdf, html) == []


def test_a_long_review_breaks_pages_between_whole_blocks():
    rng = random.Random(19)
    board = build_board(slug="long", prefix="L", n_problems=3, n_systems=40, n_criteria=3, rng=rng)
    jury_complete(build_jury(board, group_size=3, per_paper=2, rng=rng).board, rng)
    pdf, html = _report(board.competition)
    pages = page_lines(pdf)
    # Long enough that the systems table and the observations run over several pages.
    (systems_header,) = [
        h for h in landmarks(html).table_headers if h.startswith("SystemAutomatic(GM)")
    ]
    repeated = sum(any(squeeze(line) == systems_header for line in lines) for lines in pages)
    assert repeated >= 2, "the systems table repeats its header on each of its pages"
    assert breaks(pdf, html) == []


def test_the_heat_map_of_the_iolai_systems_is_readable_in_the_pdf(iolai_dir):
    call_command("import_iolai", str(iolai_dir), "--slug", "iolai", stdout=io.StringIO())
    competition = Competition.objects.get(slug="iolai")
    systems = set(competition.systems.values_list("name", flat=True))
    html = analytics_report_html(competition)
    charts = HEATMAP.findall(html)
    assert len(charts) == -(-len(systems) // PDF_ROWS)  # 46 systems: 4 charts of at most 12
    drawn = []
    for svg in charts:
        rows = geometry.y_tick_labels(svg)
        assert len(rows) <= PDF_ROWS
        drawn += rows
        # Drawn at its natural size (8 in = 576 units wide at 203.2 mm): the text keeps its
        # 7-8 pt, and the chart fits a landscape page's 178 mm with room for a heading.
        _x, _y, width, height = geometry.viewbox(svg)
        assert width == pytest.approx(576, abs=1)
        assert height * 203.2 / width <= 150
        assert min(t.size for t in geometry.texts(svg)) >= 7
        assert geometry.outside(svg) == [] and geometry.overlapping(svg) == []
    assert sorted(drawn) == sorted(systems)
    assert "figure.chart.heatmap svg { width: 203.2mm; max-height: none; }" in html
    pdf, report = _report(competition)
    assert breaks(pdf, report) == []

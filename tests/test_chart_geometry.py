"""Every chart of the app, drawn on the demo, on the real IOL-AI 2026 data and on the review's
builders at a larger size, checked on its SVG (issue 19, section 7): no text leaves the
picture, no two labels overlap, no label covers a point, count axes are ticked at whole
numbers, names are readable rather than identifiers, and a p-value is never "p = 0.000".

The geometry is measured by tests/chart_geometry.py with matplotlib's DejaVu Sans metrics.
"""

from __future__ import annotations

import io
import random
import re
from dataclasses import replace

import pytest
from django.core.management import call_command

from benchmarks.scale.bulk import jury_complete
from benchmarks.scale.data import build_board, build_jury
from grading.review.build import review_build, review_charts
from grading.review.charts import difficulty_scatter, jury_vs_auto_scatter, placement_histogram
from grading.review.wording import difficulty_sentence
from ioleval.wording import p_cell, p_text
from puzzles.analytics.ablations.charts import ablations_page_chart
from puzzles.analytics.ablations.selectors import ablations_page
from puzzles.analytics.formats.charts import formats_page_chart
from puzzles.analytics.formats.selectors import formats_page
from puzzles.analytics.oracle.charts import oracle_chart
from puzzles.analytics.oracle.selectors import competition_figures
from puzzles.analytics.probes.charts import probes_scatter
from puzzles.analytics.probes.selectors import probes_page
from puzzles.analytics.report import oracle_json
from puzzles.analytics.runs.charts import runs_page_chart
from puzzles.analytics.runs.selectors import runs_page
from puzzles.analytics.stats.formats import FAMILIES, FAMILY_LABELS, STAGES
from puzzles.analytics.techniques.charts import techniques_page_chart
from puzzles.analytics.techniques.selectors import techniques_page
from puzzles.analytics.tiers.charts import tier_strips
from puzzles.analytics.tiers.selectors import tiers_page
from puzzles.context.lab.charts import max_dq_bars
from puzzles.context.lab.pages import corpus_page
from puzzles.context.results.pages import context_results_page
from puzzles.demo import DEMO_SLUG
from puzzles.models import Competition
from tests import chart_geometry as geometry
from tests.grading.review.builders import review_competition

pytestmark = pytest.mark.django_db

# Charts whose left axis counts something (contestants, submissions, puzzles).
COUNT_AXES = ("review placement", "runs", "context max D_Q")
IDENTIFIERS = [f"{f}_{s}" for f in FAMILIES for s in STAGES]


def analytics_charts(competition: Competition) -> dict[str, str]:
    """Draw every analytics chart of a competition as its page draws it."""
    charts = {
        "formats": formats_page_chart(formats_page(competition)),
        "tiers": tier_strips(tiers_page(competition).strips()),
        "runs": runs_page_chart(runs_page(competition)),
        "techniques": techniques_page_chart(techniques_page(competition)),
        "probes": probes_scatter(probes_page(competition).points),
        "ablations": ablations_page_chart(ablations_page(competition)),
    }
    figures = competition_figures(competition)
    for i, entry in enumerate(oracle_json(competition, figures=figures).get("oracles", [])):
        if "shares" in entry:
            charts[f"oracle {i}"] = oracle_chart(figures.combine(entry["members"]))
    return charts


def review_svgs(competition: Competition) -> dict[str, str]:
    drawn = review_charts(review_build(competition=competition, resamples=100))
    names = ("scatter", "divergence", "placement", "difficulty", "agreement")
    return {f"review {name}": getattr(drawn, name) for name in names}


def assert_readable(charts: dict[str, str]) -> None:
    """Check every chart's geometry and wording; fail with every fault at once."""
    faults = []
    for name, svg in charts.items():
        cut = [t.text for t in geometry.outside(svg)]
        if cut:
            faults.append(f"{name}: cut off {cut}")
        crossed = geometry.overlapping(svg)
        if crossed:
            faults.append(f"{name}: overlapping {crossed}")
        covered = geometry.covering(svg)
        if covered:
            faults.append(f"{name}: labels over points {covered}")
        if name in COUNT_AXES:
            ticks = [t for t in geometry.y_tick_labels(svg) if re.fullmatch(r"[-\d.,]+", t)]
            if not all(re.fullmatch(r"\d+", t) for t in ticks):
                faults.append(f"{name}: count axis ticked {ticks}")
        if "p = 0.000" in svg or "p = 0.00<" in svg:
            faults.append(f"{name}: p = 0.000")
        shown = [t.text for t in geometry.texts(svg)]
        raw = [t for t in shown if any(i in t for i in IDENTIFIERS)]
        if raw:
            faults.append(f"{name}: identifiers {raw}")
    assert not faults, "\n".join(faults)


def test_every_chart_of_the_demo_is_readable(demo):
    competition = Competition.objects.get(slug=DEMO_SLUG)
    charts = {**review_svgs(competition), **analytics_charts(competition)}
    charts["context max D_Q"] = corpus_page(tokenizer="normalized").chart_svg
    charts["context mean EM"] = context_results_page(seed=0, tokenizer="normalized").chart
    assert len(charts) == 14
    assert all("<svg" in svg and "No data" not in svg for svg in charts.values()), [
        n for n, svg in charts.items() if "No data" in svg
    ]
    assert_readable(charts)
    for name in COUNT_AXES:  # each has its count axis here
        assert geometry.y_tick_labels(charts[name]), name
    # The heat map names its columns as the page does, not by the export's identifiers.
    labels = {t.text for t in geometry.texts(charts["formats"])}
    assert {f"{FAMILY_LABELS[f]}, {s}" for f in FAMILIES for s in STAGES} <= labels


def test_every_analytics_chart_of_the_iolai_data_is_readable(iolai_dir):
    call_command("import_iolai", str(iolai_dir), "--slug", "iolai", stdout=io.StringIO())
    competition = Competition.objects.get(slug="iolai")
    charts = analytics_charts(competition)
    systems = competition.systems.count()
    heat = charts["formats"]
    assert systems >= 46
    assert len(geometry.y_tick_labels(heat)) == systems  # one row per system
    assert_readable({name: svg for name, svg in charts.items() if "<svg" in svg})


def test_the_review_charts_of_forty_systems_are_readable():
    # More systems than the charts name (NAMED): the scatter names some and says which.
    rng = random.Random(19)
    board = build_board(slug="big", prefix="B", n_problems=3, n_systems=40, n_criteria=3, rng=rng)
    jury_complete(build_jury(board, group_size=3, per_paper=2, rng=rng).board, rng)
    charts = review_svgs(board.competition)
    assert "names: the 15 best" in charts["review scatter"]
    assert_readable(charts)
    named = [t.text for t in geometry.texts(charts["review scatter"]) if "system" in t.text]
    assert len(named) >= 15  # crowded, yet most names find a place


def test_labels_of_a_crowded_difficulty_chart_neither_overlap_nor_cover_points():
    # 25 criteria, several sharing a place and many within a label's width of another: the
    # labels used to be drawn at a fixed offset, on top of each other.
    points = [
        {"criterion": f"P{p}.{c}", "humans": 0.4 + 0.01 * (k % 3), "models": 0.7 - 0.01 * (k % 4)}
        for k, (p, c) in enumerate((p, c) for p in range(1, 6) for c in "abcde")
    ]
    svg = difficulty_scatter(points, note="Spearman rho = 0.10, p = 0.6, n = 25")
    assert_readable({"difficulty": svg})
    # Each name is drawn, or counted among those left out for want of room.
    shown = " ".join(t.text for t in geometry.texts(svg))
    drawn = sum(p["criterion"] in shown for p in points)
    left_out = re.search(r"(\d+) names? left out", shown)
    assert drawn + (int(left_out[1]) if left_out else 0) == len(points)
    assert drawn >= 10


def test_a_note_never_covers_a_point_in_the_corner():
    # A point in the top left corner, where the statistic's box used to be drawn.
    svg = jury_vs_auto_scatter(
        [{"system": "A", "auto_score": 1.0, "jury_total": 29.5}, *_line(8)],
        jury_maximum=30,
        note="Spearman rho = 0.97, n = 9",
    )
    assert_readable({"scatter": svg})
    svg = difficulty_scatter(
        [
            {"criterion": "P1.a", "humans": 0.0, "models": 1.0},
            {"criterion": "P1.b", "humans": 0.5, "models": 0.5},
        ],
        note="Spearman rho = 1.00, p < 0.001, n = 2",
    )
    assert_readable({"difficulty": svg})


def _line(n: int) -> list[dict]:
    return [{"system": f"S{i}", "auto_score": 10.0 * i, "jury_total": 3.0 * i} for i in range(n)]


def test_small_counts_are_ticked_at_whole_numbers():
    charts = {
        "review placement": placement_histogram([10, 12, 12, 20], None, [], maximum=30),
        "context max D_Q": max_dq_bars({0: 1, 2: 1}),
    }
    assert_readable(charts)
    assert all(geometry.y_tick_labels(svg) for svg in charts.values())


def test_p_values_are_never_written_as_zero():
    assert p_text(0.0000123) == "p < 0.001" and p_cell(0.0000123) == "< 0.001"
    assert p_text(0.0123) == "p = 0.0123" and p_cell(0.0123) == "0.0123"
    assert p_text(None) == "p n/a" and p_cell(float("nan")) == "—"
    built = review_competition(slug="tiny")
    review = review_build(competition=built.competition, resamples=100)
    difficulty = replace(review.difficulty, spearman=0.99, spearman_p=1e-9)
    review = replace(review, difficulty=difficulty)
    svg = review_charts(review).difficulty
    assert "p &lt; 0.001" in svg and "p = 0" not in svg
    assert "p < 0.001" in difficulty_sentence(difficulty)

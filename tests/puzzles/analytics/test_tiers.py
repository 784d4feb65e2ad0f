"""Tiers (issue 12, item 2): the per-tier figures (golden values, medians against
statistics.median), the page grouped by tier without oracles, the chart, the exports, the
query count at two sizes and the organizers-only rule."""

from __future__ import annotations

import io
import random
import statistics

import pytest
from django.urls import reverse
from openpyxl import load_workbook

from puzzles.analytics.stats.tiers import TIER_ORDER, median, tier_key, tier_stats
from puzzles.analytics.tiers.charts import tier_strips
from puzzles.analytics.tiers.selectors import tiers_page
from puzzles.models import Competition, Output, Problem, System, Task
from puzzles.templatetags.puzzles_tags import heat
from tests.puzzles.analytics.queries import assert_constant_queries

# --- pure figures ------------------------------------------------------------------------


def test_tier_stats_golden_values_in_the_stated_order():
    scores = [
        ("frontier", 0.6),
        ("zeta-custom", 0.1),
        ("baseline", 0.1),
        ("challenge", 0.2),
        ("challenge", 0.5),
        ("challenge", 0.3),
        ("challenge", 0.9),
        ("baseline", 0.0),
        ("alpha-custom", 0.4),
    ]
    table = tier_stats(scores)
    assert [t.tier for t in table] == [
        "baseline",
        "challenge",
        "frontier",
        "alpha-custom",
        "zeta-custom",
    ]
    challenge = table[1]
    assert challenge.n == 4
    assert challenge.median == pytest.approx(0.4)  # (0.3 + 0.5) / 2
    assert challenge.mean == pytest.approx(0.475)
    assert (challenge.minimum, challenge.maximum) == (0.2, 0.9)
    assert challenge.scores == (0.2, 0.3, 0.5, 0.9)
    assert table[0].median == pytest.approx(0.05) and table[2].median == 0.6
    assert tier_stats([]) == []


def test_stated_order_puts_known_tiers_first():
    assert sorted(["other", "zz", "open", "baseline", "aa"], key=tier_key) == [
        "baseline",
        "open",
        "other",
        "aa",
        "zz",
    ]
    assert TIER_ORDER[:4] == ("baseline", "challenge", "open", "frontier")


def test_medians_match_statistics_median():
    generator = random.Random(12)
    for n in range(1, 40):
        values = [generator.random() for _ in range(n)]
        assert median(values) == pytest.approx(statistics.median(values))
        (row,) = tier_stats(("t", v) for v in values)
        assert row.median == pytest.approx(statistics.median(values))
        assert row.mean == pytest.approx(statistics.fmean(values))
    assert median([]) == 0.0


def test_chart_draws_one_row_per_tier_and_says_when_empty():
    svg = tier_strips([("baseline", (0.1, 0.2), 0.15), ("challenge", (0.5,), 0.5)])
    assert svg.startswith("<svg") and "baseline" in svg and "challenge" in svg
    assert "median" in svg and "<script" not in svg
    assert "No system with outputs" in tier_strips([])


# --- page ----------------------------------------------------------------------------------

TIERS = ("baseline", "challenge", "open", "frontier")


def _build(n_systems: int, *, oracle: bool = True) -> Competition:
    """Build a competition with two tasks and n systems spread over four tiers (score grows
    with the index), plus an oracle ensemble that scores best on every task."""
    competition = Competition.objects.create(slug=f"tiers{n_systems}", name="Tiers")
    problem = Problem.objects.create(competition=competition, number=1)
    tasks = [
        Task.objects.create(
            problem=problem,
            external_id=f"T{k}",
            number=k,
            task_type="translation",
            answer_key=[["a"]],
        )
        for k in (1, 2)
    ]
    systems = System.objects.bulk_create(
        System(competition=competition, name=f"sys{i:02d}", tier=TIERS[i % len(TIERS)])
        for i in range(n_systems)
    )
    figures = {s.pk: (i + 1) / (n_systems + 1) for i, s in enumerate(systems)}
    if oracle:
        best = System.objects.create(
            competition=competition, name="Best of all", tier="ensemble", oracle=True
        )
        systems.append(best)
        figures[best.pk] = 1.0
    Output.objects.bulk_create(
        Output(
            system=s,
            task=t,
            raw_text='["a"]',
            parsed_items=["a"],
            extracted_items=["a"],
            scores={"iol2026": {"parsed": {"em": figures[s.pk], "chrf": figures[s.pk]}}},
        )
        for s in systems
        for t in tasks
    )
    return competition


def test_page_groups_by_tier_and_leaves_oracles_out(db):
    page = tiers_page(_build(8))
    assert [g.tier for g in page.groups] == list(TIERS)
    assert page.oracles == ["Best of all"]
    names = [s.name for g in page.groups for s in g.systems]
    assert "Best of all" not in names and len(names) == 8
    challenge = page.groups[1]
    assert challenge.label == "challenge submission"
    assert [s.name for s in challenge.systems] == ["sys05", "sys01"]  # best first
    # sys01 and sys05 score 2/9 and 6/9 on both tasks
    assert challenge.stats.median == pytest.approx(statistics.median([2 / 9, 6 / 9]), abs=1e-3)
    assert challenge.systems[0].task_scores == [pytest.approx(6 / 9, abs=1e-3)] * 2
    assert page.export_rows()[1][:3] == ["challenge", "challenge submission", 2]


def test_page_shows_table_chart_heat_map_and_oracle_note(organizer_client):
    competition = _build(8)
    response = organizer_client.get(reverse("puzzles:analytics_tiers", args=[competition.slug]))
    text = response.content.decode()
    assert response.status_code == 200
    assert "Left out: 1 oracle ensemble (Best of all)" in text
    assert reverse("puzzles:analytics_tiers_chart", args=[competition.slug]) in text
    assert '<th scope="rowgroup" colspan="4">challenge submission (2)</th>' in text
    # the leaderboard's own colour and contrast-safe ink, not a second scale
    assert f'style="{heat(round(6 / 9, 4))}"' in text
    assert text.index("baseline (2)") < text.index("challenge submission (2)")
    assert text.index("challenge submission (2)") < text.index("open model (2)")
    chart = organizer_client.get(reverse("puzzles:analytics_tiers_chart", args=[competition.slug]))
    assert chart["Content-Type"] == "image/svg+xml" and b"<svg" in chart.content
    detail = organizer_client.get(reverse("puzzles:competition", args=[competition.slug]))
    assert reverse("puzzles:analytics_tiers", args=[competition.slug]) in detail.content.decode()


def test_page_without_oracles_or_systems(organizer_client):
    competition = Competition.objects.create(slug="empty-tiers", name="Empty")
    response = organizer_client.get(reverse("puzzles:analytics_tiers", args=[competition.slug]))
    text = response.content.decode()
    assert "this competition has none" in text and "No system with outputs yet" in text
    chart = organizer_client.get(reverse("puzzles:analytics_tiers_chart", args=[competition.slug]))
    assert b"No system with outputs" in chart.content


def test_exports(organizer_client):
    competition = _build(8)
    url = reverse("puzzles:analytics_tiers_export", args=[competition.slug, "csv"])
    lines = organizer_client.get(url).content.decode().splitlines()
    assert lines[0] == '"tier","tier_label","n","median","mean","min","max"'
    assert len(lines) == 1 + 4 and lines[1].startswith('"baseline","baseline",2,')
    xlsx = organizer_client.get(url.replace(".csv", ".xlsx"))
    rows = list(load_workbook(io.BytesIO(xlsx.content)).active.values)
    assert rows[0][0] == "tier" and len(rows) == 5
    assert rows[2][3] == pytest.approx(4 / 9, abs=1e-3)  # challenge: median of 2/9 and 6/9
    assert organizer_client.get(url.replace(".csv", ".pdf")).status_code == 404


def test_page_chart_and_exports_use_constant_queries(organizer_client):
    small, large = _build(4), _build(24)
    assert_constant_queries(organizer_client, (small, large), "tiers")


def test_jurors_get_403(client, juror):
    competition = _build(4)
    client.force_login(juror)
    for url in (
        reverse("puzzles:analytics_tiers", args=[competition.slug]),
        reverse("puzzles:analytics_tiers_chart", args=[competition.slug]),
        reverse("puzzles:analytics_tiers_export", args=[competition.slug, "csv"]),
    ):
        assert client.get(url).status_code == 403, url

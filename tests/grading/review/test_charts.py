"""Review charts: well-formed inline SVG, literal untrusted text, deterministic, PDF-ready."""

from __future__ import annotations

import io
import logging
import re
import threading
import xml.etree.ElementTree as ET

import matplotlib
import pytest

from grading.review import charts
from grading.review.charts import (
    Agreement,
    CriterionDifficulty,
    Divergence,
    SystemScore,
    agreement_bars,
    difficulty_scatter,
    divergence_bars,
    jury_vs_auto_scatter,
    placement,
    placement_histogram,
)

SVG = "{http://www.w3.org/2000/svg}"
THRESHOLDS = {"gold": 70, "silver": 55, "bronze": 40, "honourable_mention": 30}
HOSTILE = [
    "<script>alert(1)</script>",
    "Tom & Jerry",
    'say "hi" it\'s',
    "end ]]> here",
    '<img src=x onerror="alert(1)">',
    "<a href='https://evil.example/'>x</a>",
    "costs $5 and $6",
    "$\\frac{a}{b}$",
]


def systems(names, external=()):
    return [
        SystemScore(name, 10 + 4 * i, 90 - 3.5 * i, external=name in external)
        for i, name in enumerate(names)
    ]


def every_chart(names):
    """One SVG of each chart, with `names` as systems, problems and criterion codes."""
    points = systems(names, external=names[:1])
    return {
        "scatter": jury_vs_auto_scatter(points, note="rho = 0.9"),
        "divergence": divergence_bars(
            [
                Divergence(problem, name, 7 - 3 * i)
                for i, name in enumerate(names)
                for problem in (names[0], "P2")
            ]
        ),
        "placement": placement_histogram([30, 45.5, 45.5, 61, 72], THRESHOLDS, points),
        "difficulty": difficulty_scatter(
            [CriterionDifficulty(name, i / 10, 1 - i / 10) for i, name in enumerate(names)]
        ),
        "agreement": agreement_bars(
            [Agreement(name, 0.7, (0.5, 0.9), 0.8, (0.6, 0.95)) for name in names]
        ),
    }


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == SVG + "svg"
    return root


def texts(root: ET.Element) -> list[str]:
    return ["".join(node.itertext()) for node in root.iter(SVG + "text")]


HANDLER = re.compile(r"<[^>]+\son[a-z]+\s*=", re.I)
NAMES = ["Claude Opus", "Gemini Flash", "GPT-x", "Baseline"]


@pytest.mark.parametrize("kind", sorted(every_chart(NAMES)))
def test_chart_is_inline_svg_with_a_title(kind):
    svg = every_chart(NAMES)[kind]
    assert svg.startswith("<svg ") and "<?xml" not in svg and "<!DOCTYPE" not in svg
    root = parse(svg)
    assert root.get("role") == "img" and root.get("width") == "100%"
    assert root.get("height") is None and root.get("viewBox")
    title = root.find(SVG + "title")
    assert title is not None and title.text == root.get("aria-label") and title.text
    # matplotlib's group ids ("figure_1") would repeat in a page with several charts.
    assert "figure_1" not in svg and "axes_1" not in svg
    # Presentation attributes only: nothing for a strict style-src to block, no `*` rule
    # reaching the rest of the page.
    assert " style=" not in svg and "<style" not in svg
    assert root.get("stroke-linejoin") == "round"


@pytest.mark.parametrize("kind", sorted(every_chart(NAMES)))
def test_chart_shows_the_labels_given(kind):
    shown = " ".join(texts(parse(every_chart(NAMES)[kind])))
    expected = NAMES if kind != "divergence" else [*NAMES, "P2"]
    for name in expected:
        assert name in shown, (kind, name)


def test_scatter_marks_external_figures_in_the_legend():
    with_external = texts(parse(jury_vs_auto_scatter(systems(NAMES, external=["GPT-x"]))))
    assert "external figures" in with_external and "least-squares fit" in with_external
    without = texts(parse(jury_vs_auto_scatter(systems(NAMES), fit_line=False)))
    assert "external figures" not in without and "least-squares fit" not in without


def test_placement_labels_the_thresholds_and_places_every_system():
    shown = texts(parse(placement_histogram([50.0] * 10, THRESHOLDS, systems(NAMES))))
    for label in ("gold 70", "silver 55", "bronze 40", "HM 30", *NAMES):
        assert label in shown


def test_placement_without_contestants_or_thresholds():
    alone = texts(parse(placement_histogram([], THRESHOLDS, systems(NAMES))))
    assert "gold 70" in alone and "contestants" not in alone and "Baseline" in alone
    no_lines = texts(parse(placement_histogram([40, 60], None, systems(NAMES))))
    assert "Baseline" in no_lines and not any(t.startswith("gold") for t in no_lines)
    partial = texts(parse(placement_histogram([40], {"gold": 70, "silver": None}, [])))
    assert "gold 70" in partial and not any(t.startswith("silver") for t in partial)


def test_systems_with_the_same_total_get_labels_on_different_rows():
    placed = [(50.0, "A system", False), (50.0, "B system", False), (90.0, "C", False)]
    levels = placement._label_levels(placed, 100.0)
    assert levels[0] != levels[1] and levels[2] == 0


def test_divergence_tells_the_sign_without_colour():
    svg = divergence_bars([Divergence("P1", "A", 12.0), Divergence("P1", "B", -8.0)])
    shown = texts(parse(svg))
    assert "jury higher" in shown and "automatic higher" in shown
    assert svg.count("url(#h") == 2  # the negative bar and its legend key are hatched


def test_agreement_says_na_for_a_missing_value():
    shown = texts(parse(agreement_bars([Agreement("P1", None, None, 0.7, (0.5, 0.9))])))
    assert "n/a" in shown and "ICC(2,k)" in shown


@pytest.mark.parametrize("name", HOSTILE)
def test_untrusted_names_come_out_as_text(name):
    for kind, svg in every_chart([name, "Other"]).items():
        root = parse(svg)  # well-formed: nothing broke out of its element
        assert name in texts(root), kind
        assert not re.search(r"<script", svg, re.I), kind
        assert not HANDLER.search(svg), kind  # as tests/test_csp.py checks pages
        for node in root.iter():
            assert not node.tag.endswith(("script", "foreignObject", "}a", "image")), kind
            for attribute, value in node.attrib.items():
                assert not attribute.lower().startswith("on"), (kind, attribute)
                if attribute.endswith("href"):
                    assert value.startswith("#"), (kind, value)
                assert "evil.example" not in value and "javascript:" not in value, kind


def test_dollar_signs_are_drawn_literally_and_no_global_setting_leaks():
    before = dict(matplotlib.rcParams)
    name = "Model $x$ costs $$"
    svg = jury_vs_auto_scatter(systems([name, "B", "C"]))
    assert name in texts(parse(svg))
    assert dict(matplotlib.rcParams) == before  # parse_math, fonttype... restored


def test_control_characters_and_long_names_keep_the_svg_well_formed():
    names = ["bell\x07and\x00nul\x1b", "x" * 200, "line\nbreak"]
    shown = texts(parse(jury_vs_auto_scatter(systems(names))))
    assert "bell and nul" in shown and "line break" in shown
    assert "x" * (charts.LABEL_CHARS - 1) + "\u2026" in shown


@pytest.mark.parametrize(
    "render",
    [
        lambda: jury_vs_auto_scatter([]),
        lambda: jury_vs_auto_scatter([SystemScore("A", None, 40)]),
        lambda: divergence_bars([]),
        lambda: divergence_bars([{"problem": "P1", "system": "A", "difference": float("nan")}]),
        lambda: placement_histogram([], None, []),
        lambda: placement_histogram([], {}, [SystemScore("A", 50, None)]),
        lambda: difficulty_scatter([]),
        lambda: agreement_bars([]),
        lambda: agreement_bars([Agreement("P1")]),
    ],
)
def test_empty_input_gives_a_small_no_data_svg(render):
    svg = render()
    root = parse(svg)
    assert texts(root) == ["No data"] and root.get("role") == "img" and len(svg) < 1000


def test_rows_may_be_mappings_or_objects():
    as_dicts = [
        {"system": s.system, "auto_score": s.auto_score, "jury_total": s.jury_total}
        for s in systems(NAMES)
    ]
    assert jury_vs_auto_scatter(as_dicts) == jury_vs_auto_scatter(systems(NAMES))


def test_same_input_same_bytes_and_charts_do_not_share_ids():
    first, second = every_chart(NAMES), every_chart(NAMES)
    assert first == second
    ids = {kind: set(re.findall(r'id="([^"]+)"', svg)) for kind, svg in first.items()}
    kinds = sorted(ids)
    for i, a in enumerate(kinds):
        for b in kinds[i + 1 :]:
            assert not ids[a] & ids[b], (a, b)


def test_concurrent_renders_match_sequential_ones():
    expected = every_chart(NAMES)
    results, errors = [], []

    def work():
        try:
            results.append(every_chart(NAMES))
        except Exception as error:  # reported below, with the thread's traceback lost
            errors.append(error)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors and results == [expected] * 4


def test_twenty_systems_by_fourteen_problems_render():
    names = [f"System {i:02d}" for i in range(20)]
    problems = [f"P{j}" for j in range(1, 15)]
    rows = [
        Divergence(problem, name, (i * 7 + j * 13) % 61 - 30)
        for i, name in enumerate(names)
        for j, problem in enumerate(problems)
    ]
    shown = texts(parse(divergence_bars(rows)))
    assert all(name in shown for name in names) and all(p in shown for p in problems)
    points = systems(names, external=names[::3])
    assert all(name in texts(parse(jury_vs_auto_scatter(points))) for name in names)
    placed = texts(parse(placement_histogram(range(0, 100, 3), THRESHOLDS, points)))
    assert all(name in placed for name in names)


def test_chart_renders_in_the_pdf_report(caplog):
    from pypdf import PdfReader

    from grading.pdf import render_pdf

    svg = jury_vs_auto_scatter(systems(["Claude Opus", "Gemini Flash", "Baseline"]))
    html = f"<!doctype html><html><body><h1>Review</h1><figure>{svg}</figure></body></html>"
    with caplog.at_level(logging.WARNING, logger="weasyprint"):
        pdf = render_pdf(html)
    assert pdf.startswith(b"%PDF") and len(pdf) > 2000
    text = "".join(PdfReader(io.BytesIO(pdf)).pages[0].extract_text().split())
    assert "GeminiFlash" in text and "automaticscore" in text  # drawn as text, not paths
    assert not caplog.records  # WeasyPrint warns about SVG properties in style attributes


def test_hundreds_of_systems_name_only_the_best_and_most_divergent_and_say_so():
    many = [
        SystemScore(f"S{i:03d}", auto_score=(i * 37) % 100, jury_total=i / 3) for i in range(300)
    ]
    scatter = texts(parse(jury_vs_auto_scatter(many)))
    named = [t for t in scatter if re.fullmatch(r"S\d{3}", t)]
    # A name with no room left on the crowded chart is left out (never drawn over another)
    # and counted; the best totals come first, so theirs are drawn.
    left_out = next(re.search(r"(\d+) names? left out", t) for t in scatter if "left out" in t)
    assert len(named) + int(left_out[1]) == charts.NAMED and len(named) >= 20
    assert {"S299", "S298", "S285"} <= set(named)  # the best jury totals
    gap = max(many, key=lambda s: abs(s.auto_score - s.jury_total))
    assert gap.system in named
    assert any("names: the 15 best and 15 largest gaps of 300" in t for t in scatter)

    rows = [Divergence("P1", s.system, s.auto_score - s.jury_total) for s in many]
    bars = texts(parse(divergence_bars(rows)))
    shown = [t for t in bars if re.fullmatch(r"S\d{3}", t)]
    biggest = sorted(rows, key=lambda r: -abs(r.difference))[: charts.NAMED]
    assert sorted(shown) == sorted(r.system for r in biggest)
    assert f"the {charts.NAMED} systems with the largest gaps, of 300" in bars

    placed = texts(parse(placement_histogram(range(0, 100, 3), THRESHOLDS, many)))
    assert [t for t in placed if re.fullmatch(r"S\d{3}", t)] == [
        f"S{i:03d}" for i in range(300 - charts.NAMED, 300)
    ]
    assert f"{300 - charts.NAMED} more" in placed


def test_thirty_systems_are_all_named():
    names = [f"System {i:02d}" for i in range(charts.NAMED)]
    points = [SystemScore(name, 2 * i, 3 * i) for i, name in enumerate(names)]
    # Thirty points a label's height apart on a diagonal from the origin: the two lowest
    # have no room left inside the axes, and the chart says so rather than overlap names.
    scatter = texts(parse(jury_vs_auto_scatter(points)))
    drawn = [n for n in names if n in scatter]
    assert len(drawn) >= charts.NAMED - 2
    if len(drawn) < charts.NAMED:
        assert f"{charts.NAMED - len(drawn)} names left out (no room): see the table" in scatter
    placed = texts(parse(placement_histogram(range(0, 100, 3), THRESHOLDS, points)))
    assert all(n in placed for n in names) and not any(t.endswith(" more") for t in placed)

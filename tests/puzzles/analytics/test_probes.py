"""Knowledge probes (issue 12, item 6): statistics against scipy, the import's refusals,
the page, its chart and exports, query counts and the demo."""

from __future__ import annotations

import io

import numpy as np
import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from openpyxl import load_workbook
from scipy import stats as sps

from puzzles.analytics.probes.demo import PROBE_ONLY_MODEL
from puzzles.analytics.probes.imports import probes_import
from puzzles.analytics.probes.selectors import probes_page
from puzzles.analytics.stats.probes import (
    ALL,
    MIN_MODELS,
    Accuracy,
    accuracies,
    correlate,
    correlations,
    probe_types,
    sentence,
)
from puzzles.errors import ImportFailure
from puzzles.models import Competition, ExternalScore, ProbeResult, Problem, System
from tests.puzzles.analytics.queries import assert_constant_queries

# --- pure statistics ---------------------------------------------------------------------


def test_accuracies_count_per_model_and_type_and_overall():
    table = accuracies([("m1", "lexicon", 4, 3), ("m1", "context", 2, 0), ("m2", "lexicon", 5, 5)])
    got = {(a.model, a.probe_type): (a.n, a.correct, a.accuracy) for a in table}
    assert got == {
        ("m1", "context"): (2, 0, 0.0),
        ("m1", "lexicon"): (4, 3, 0.75),
        ("m1", ALL): (6, 3, 0.5),
        ("m2", "lexicon"): (5, 5, 1.0),
        ("m2", ALL): (5, 5, 1.0),
    }
    assert [a.probe_type for a in table][:3] == ["context", "lexicon", ALL]


def exact_p(x, y, statistic) -> float:
    """Return scipy's exact two-sided permutation p (|statistic| at least the observed)."""
    return sps.permutation_test(
        (y,),
        lambda v: abs(statistic(x, v).statistic),
        permutation_type="pairings",
        n_resamples=np.inf,
        alternative="greater",
    ).pvalue


def test_correlation_matches_scipy_with_exact_p_values():
    x = [0.2, 0.5, 0.45, 0.9, 0.7, 0.1]
    y = [0.3, 0.4, 0.6, 0.8, 0.65, 0.2]
    c = correlate(zip(x, y, strict=True), probe_type="lexicon")
    pearson, spearman = sps.pearsonr(x, y), sps.spearmanr(x, y)
    assert c.n == 6 and c.note is None
    assert c.pearson == pytest.approx(pearson.statistic)
    assert c.spearman == pytest.approx(spearman.statistic)
    # six models: exact permutation p-values over the 720 orderings
    assert c.pearson_p == pytest.approx(exact_p(x, y, sps.pearsonr))
    assert c.spearman_p == pytest.approx(exact_p(x, y, sps.spearmanr))
    assert c.spearman_p_method == c.pearson_p_method == "exact permutation, all 720 orderings"
    assert "Pearson r = " in sentence(c) and "6 models" in sentence(c)
    assert "(exact permutation, all 720 orderings)" in sentence(c)


def test_correlation_above_ten_models_uses_the_t_approximations():
    rng = np.random.default_rng(5)
    x = rng.uniform(size=14)
    y = x + rng.normal(0, 0.3, size=14)
    c = correlate(zip(x, y, strict=True))
    assert c.pearson_p == pytest.approx(sps.pearsonr(x, y).pvalue)
    assert c.spearman_p == pytest.approx(sps.spearmanr(x, y).pvalue)
    assert c.pearson_p_method == "t test, 12 df (normal pairs)"
    assert c.spearman_p_method == "t approximation, 12 df"


def test_correlations_per_type_leave_out_models_without_a_score():
    table = accuracies(
        [(f"m{i}", t, 10, (i * k) % 11) for i in range(1, 6) for k, t in ((1, "a"), (3, "b"))]
        + [("no-score", "a", 10, 10)]
    )
    scores = {"m1": 0.1, "m2": 0.5, "m3": 0.2, "m4": 0.9, "m5": 0.4, "no-score": None}
    found = {c.probe_type: c for c in correlations(table, scores)}
    assert list(found) == ["a", "b", ALL]
    xs = [a.accuracy for a in table if a.probe_type == "b"]
    ys = [scores[a.model] for a in table if a.probe_type == "b"]
    assert found["b"].n == 5
    assert found["b"].spearman == pytest.approx(sps.spearmanr(xs, ys).statistic)
    assert found["b"].pearson_p == pytest.approx(exact_p(xs, ys, sps.pearsonr))


def test_degenerate_cases_are_sentences():
    few = correlate([(0.1, 0.2), (0.5, None), (0.3, 0.4)])
    assert few.pearson is None and few.n == 2 and f"at least {MIN_MODELS}" in few.note
    flat = correlate([(0.5, 0.2), (0.5, 0.4), (0.5, 0.9)])
    assert flat.spearman is None and "probe accuracy is the same for all 3 models" in flat.note
    assert sentence(flat).startswith(f"{ALL}: Not computed")


def test_each_reason_for_no_correlation_is_its_own_sentence():
    two = correlate([(0.1, 0.2), (0.3, 0.4)], probe_type="lexicon")
    assert (two.probe_type, two.n) == ("lexicon", 2)
    assert two.note == (
        "Not computed: 2 models with both a probe accuracy and an automatic score; at least "
        "3 are needed."
    )
    assert sentence(two) == f"lexicon: {two.note}"
    one = correlate([(0.1, 0.2)])
    assert one.note.startswith("Not computed: 1 model with both")
    flat_score = correlate([(0.1, 0.5), (0.2, 0.5), (0.3, 0.5)], probe_type="context")
    assert (flat_score.probe_type, flat_score.n) == ("context", 3)
    assert flat_score.note == (
        "Not computed: the automatic score is the same for all 3 models, so nothing varies with it."
    )
    flat_both = correlate([(0.4, 0.5)] * 4)
    assert flat_both.n == 4
    assert flat_both.note == (
        "Not computed: the probe accuracy and the automatic score are the same for all 4 "
        "models, so nothing varies with it."
    )


def test_three_models_in_line_are_enough_and_get_the_exact_p_of_six_orderings():
    # Accuracy and score rise together: r = rho = 1; of the 3! = 6 orderings only this one
    # and its reverse are as extreme, so p = 2/6 for both.
    c = correlate([(0.1, 0.2), (0.2, 0.4), (0.3, 0.6)], probe_type="lexicon")
    assert c.pearson_p == pytest.approx(2 / 6) and c.spearman_p == pytest.approx(2 / 6)
    assert sentence(c) == (
        "lexicon: across 3 models, Pearson r = 1.000 (p = 0.333 (exact permutation, all 6 "
        "orderings)), Spearman rho = 1.000 (p = 0.333 (exact permutation, all 6 orderings))."
    )


def test_probe_types_add_the_overall_row_only_when_the_table_has_it():
    assert probe_types([Accuracy("m", "lexicon", 2, 1), Accuracy("m", "context", 2, 2)]) == [
        "context",
        "lexicon",
    ]
    assert probe_types([Accuracy("m", ALL, 2, 1), Accuracy("m", "lexicon", 2, 1)]) == [
        "lexicon",
        ALL,
    ]


# --- import ------------------------------------------------------------------------------


@pytest.fixture
def competition(db):
    competition = Competition.objects.create(slug="probe-comp", name="Probe comp")
    for n in (1, 2):
        Problem.objects.create(competition=competition, number=n)
    System.objects.create(competition=competition, name="Alpha")
    return competition


GOOD = (
    "model,problem,probe_type,item,correct\n"
    "Alpha,1,language context,q1,1\n"
    "Alpha,Basque,lexicon,w1,no\n"
    "Beta,2,language context,q1,TRUE\n"
)


def _import(competition, text: str, file: str = "probes.csv"):
    return probes_import(competition=competition, stream=io.StringIO(text), file=file)


def test_import_stores_matches_systems_and_replaces(competition):
    result = _import(competition, GOOD)
    assert result.results == 3 and result.unmatched == ["Beta"]
    alpha = ProbeResult.objects.get(model="Alpha", item="w1")
    assert alpha.system.name == "Alpha" and alpha.language == "Basque" and not alpha.correct
    assert ProbeResult.objects.get(model="Beta").system is None
    assert ProbeResult.objects.get(model="Beta").problem.number == 2
    _import(competition, "model,problem,probe_type,item,correct\nGamma,1,lexicon,x,yes\n")
    assert list(ProbeResult.objects.values_list("model", flat=True)) == ["Gamma"]


@pytest.mark.parametrize(
    ("body", "line", "field", "words"),
    [
        ("Alpha,7,lexicon,q,1\n", 3, "problem", "no problem 7"),
        ("Alpha,1,lexicon,q,maybe\n", 3, "correct", "not a boolean"),
        ("Alpha,1,lexicon,q1,1\n", 3, "item", "first on line 2"),
        (",1,lexicon,q,1\n", 3, "model", "model is empty"),
        # int() refuses texts of over 4,300 digits with an error of its own (it was a 500).
        ("Alpha," + "9" * 5000 + ",lexicon,q,1\n", 3, "problem", "'9999999999"),
        ("Alpha,2147483648,lexicon,q,1\n", 3, "problem", "not a problem number"),
    ],
)
def test_import_refusals_name_file_line_field_and_write_nothing(
    competition, body, line, field, words
):
    _import(competition, GOOD)
    before = list(ProbeResult.objects.values_list("pk", flat=True))
    text = "model,problem,probe_type,item,correct\nAlpha,1,lexicon,q1,0\n" + body
    with pytest.raises(ImportFailure) as exc:
        _import(competition, text, file="bad.csv")
    assert (exc.value.file, exc.value.line, exc.value.field) == ("bad.csv", line, field)
    assert words in exc.value.message
    assert list(ProbeResult.objects.values_list("pk", flat=True)) == before


def test_import_refuses_a_missing_column(competition):
    with pytest.raises(ImportFailure) as exc:
        _import(competition, "model,problem,probe_type,item\nAlpha,1,lexicon,q\n", file="x.csv")
    assert (exc.value.file, exc.value.line, exc.value.field) == ("x.csv", 1, "correct")
    assert not ProbeResult.objects.exists()


def test_command_imports_and_refuses(competition, tmp_path):
    good, bad = tmp_path / "good.csv", tmp_path / "bad.csv"
    good.write_text(GOOD, encoding="utf-8")
    bad.write_text(GOOD + "Alpha,1,lexicon,z,2\n", encoding="utf-8")
    out = io.StringIO()
    call_command("import_probes", "probe-comp", str(good), stdout=out)
    assert "3 probe results of 2 models" in out.getvalue()
    with pytest.raises(CommandError, match=r"bad\.csv, line 5, field 'correct'"):
        call_command("import_probes", "probe-comp", str(bad), stdout=io.StringIO())
    assert ProbeResult.objects.count() == 3


# --- page, chart, exports, queries -------------------------------------------------------


def _build(n_systems: int) -> Competition:
    competition = Competition.objects.create(slug=f"probes{n_systems}", name="Scale")
    problem = Problem.objects.create(competition=competition, number=1)
    systems = System.objects.bulk_create(
        System(competition=competition, name=f"sys{i}", external=True) for i in range(n_systems)
    )
    ExternalScore.objects.bulk_create(
        ExternalScore(system=s, score=(i + 1) / (n_systems + 1)) for i, s in enumerate(systems)
    )
    ProbeResult.objects.bulk_create(
        ProbeResult(
            competition=competition,
            model=s.name,
            system=s,
            problem=problem,
            probe_type=probe_type,
            item=f"q{k}",
            correct=k <= i % 6,
        )
        for i, s in enumerate(systems)
        for probe_type in ("language context", "lexicon")
        for k in range(6)
    )
    return competition


def test_page_chart_and_exports_use_constant_queries(organizer_client):
    small, large = _build(3), _build(15)
    assert_constant_queries(organizer_client, (small, large), "probes")


def test_page_shows_table_correlations_and_chart(organizer_client):
    competition = _build(5)
    html = organizer_client.get(reverse("puzzles:analytics_probes", args=[competition.slug]))
    text = html.content.decode()
    assert "sys4" in text and "lexicon" in text and "Pearson r = " in text
    assert reverse("puzzles:analytics_probes_chart", args=[competition.slug]) in text
    chart = organizer_client.get(reverse("puzzles:analytics_probes_chart", args=[competition.slug]))
    assert chart["Content-Type"] == "image/svg+xml" and b"<svg" in chart.content
    detail = organizer_client.get(reverse("puzzles:competition", args=[competition.slug]))
    assert reverse("puzzles:analytics_probes", args=[competition.slug]) in detail.content.decode()


def test_exports(organizer_client):
    competition = _build(4)
    url = reverse("puzzles:analytics_probes_export", args=[competition.slug, "csv"])
    lines = organizer_client.get(url).content.decode().splitlines()
    assert lines[0].startswith('"model","system","automatic_score","probe_type"')
    assert len(lines) == 1 + 4 * 3  # two probe types and all probes per model
    xlsx = organizer_client.get(url.replace(".csv", ".xlsx"))
    rows = list(load_workbook(io.BytesIO(xlsx.content)).active.values)
    assert rows[0][0] == "model" and len(rows) == 13 and rows[1][6] == pytest.approx(1 / 6)
    assert organizer_client.get(url.replace(".csv", ".pdf")).status_code == 404


def test_jurors_get_403(client, juror):
    competition = _build(3)
    client.force_login(juror)
    for url in (
        reverse("puzzles:analytics_probes", args=[competition.slug]),
        reverse("puzzles:analytics_probes_chart", args=[competition.slug]),
        reverse("puzzles:analytics_probes_export", args=[competition.slug, "csv"]),
    ):
        assert client.get(url).status_code == 403, url


def test_upload_post_redirect_get(organizer_client, competition):
    url = reverse("puzzles:analytics_probes", args=[competition.slug])
    upload = io.BytesIO(GOOD.encode())
    upload.name = "up.csv"
    response = organizer_client.post(url, {"file": upload}, follow=True)
    assert response.redirect_chain[-1][0] == url
    assert ProbeResult.objects.count() == 3 and "3 probe results" in response.content.decode()
    bad = io.BytesIO(b"model,problem,probe_type,item,correct\nAlpha,9,lexicon,q,1\n")
    bad.name = "bad.csv"
    response = organizer_client.post(url, {"file": bad}, follow=True)
    assert "bad.csv, line 2, field &#x27;problem&#x27;" in response.content.decode()
    assert ProbeResult.objects.count() == 3
    huge = io.BytesIO(b"model,problem,probe_type,item,correct\nAlpha," + b"9" * 5000 + b",x,q,1\n")
    huge.name = "huge.csv"
    response = organizer_client.post(url, {"file": huge}, follow=True)
    assert "huge.csv, line 2, field &#x27;problem&#x27;" in response.content.decode()
    assert ProbeResult.objects.count() == 3


def test_demo_has_probes_and_loads_twice(demo_competition):
    from puzzles.demo import demo_competition_load

    count = ProbeResult.objects.filter(competition=demo_competition).count()
    demo_competition_load()
    assert ProbeResult.objects.filter(competition=demo_competition).count() == count > 0
    page = probes_page(demo_competition)
    assert PROBE_ONLY_MODEL in [r.model for r in page.rows]
    overall = page.correlations[-1]
    assert overall.probe_type == ALL and overall.pearson is not None
    assert len(page.points) >= MIN_MODELS

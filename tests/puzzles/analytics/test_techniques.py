"""Techniques (issue 12, item 5): statistics against scipy and a hand example, tagging on
the page and from a CSV (refusals name file, line and field and write nothing), the page,
its chart and exports, query counts, roles, escaping and the demo."""

from __future__ import annotations

import io
import itertools
import json
import math
import warnings
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from openpyxl import load_workbook
from scipy import stats as sps

from ioleval.errors import AppError
from puzzles.analytics.stats.techniques import (
    SEED,
    TaggedRun,
    TeamDifference,
    TechniqueEffect,
    bootstrap_interval,
    effect_sentence,
    sign_flip_test,
    technique_effects,
)
from puzzles.analytics.techniques.charts import techniques_forest
from puzzles.analytics.techniques.selectors import techniques_json, techniques_page
from puzzles.analytics.techniques.services import runs_tag, runs_untag, tags_import
from puzzles.errors import ImportFailure
from puzzles.models import Competition, Run, System, Technique
from tests.puzzles.analytics.queries import assert_constant_queries

# --- pure statistics ---------------------------------------------------------------------


def _run(team, run, score, *names):
    return TaggedRun(team=team, run=run, score=score, techniques=frozenset(names))


# A: with cot {0.6, 0.8} (mean 0.7), without {0.5} -> +0.2
# B: with cot {0.4}, without {0.3, 0.5} (mean 0.4) -> 0.0
# C: with cot {0.9}, without {0.6} -> +0.3
# D: cot on every run -> uses it, no comparison
# E: no technique
RUNS = [
    _run("A", 1, 0.6, "cot"),
    _run("A", 2, 0.8, "cot", "json"),
    _run("A", 3, 0.5),
    _run("B", 1, 0.4, "cot"),
    _run("B", 2, 0.3),
    _run("B", 3, 0.5, "json"),
    _run("C", 1, 0.9, "cot"),
    _run("C", 2, 0.6),
    _run("D", 1, 0.7, "cot", "retry"),
    _run("D", 2, 0.2, "cot"),
    _run("E", 1, 0.1),
]


def _by_name(effects):
    return {e.technique: e for e in effects}


def test_hand_example_adoption_and_effect():
    effects = _by_name(technique_effects(RUNS, techniques=["voting"]))
    cot = effects["cot"]
    assert (cot.teams_using, cot.teams_scored, cot.runs_tagged) == (4, 5, 6)
    assert cot.adoption == pytest.approx(0.8)
    assert [d.team for d in cot.differences] == ["A", "B", "C"]
    assert [d.difference for d in cot.differences] == pytest.approx([0.2, 0.0, 0.3])
    assert cot.n == 3 and cot.effect == pytest.approx(0.5 / 3)
    assert cot.low <= cot.effect <= cot.high
    assert 0.0 <= cot.low and cot.high <= 0.3 + 1e-12
    # json: A 0.8 - mean(0.6, 0.5) = +0.25, B 0.5 - mean(0.4, 0.3) = +0.15
    json_ = effects["json"]
    assert [d.difference for d in json_.differences] == pytest.approx([0.25, 0.15])
    assert json_.n == 2 and json_.effect == pytest.approx(0.2)
    assert effects["voting"].teams_using == 0 and effects["voting"].effect is None
    assert "no scored run uses it" in effects["voting"].note


@pytest.mark.parametrize("method", ["percentile", "BCa"])
def test_interval_matches_scipy_bootstrap(method):
    rng = np.random.default_rng(7)
    runs = []
    for t in range(12):
        for k in range(6):
            used = k % 2 == t % 3 % 2
            runs.append(
                _run(f"T{t}", k, float(rng.uniform(0, 1)) + (0.1 if used else 0.0), *(["v"] * used))
            )
    (effect,) = technique_effects(runs, method=method, resamples=2000, seed=11)
    diffs = np.array([d.difference for d in effect.differences])
    assert effect.n == len(diffs) == 12
    assert effect.effect == pytest.approx(diffs.mean())
    expected = sps.bootstrap(
        (diffs,),
        np.mean,
        n_resamples=2000,
        confidence_level=0.95,
        method=method,
        rng=np.random.default_rng(11),
    ).confidence_interval
    assert (effect.low, effect.high) == pytest.approx((expected.low, expected.high))


def test_default_is_10000_resamples_with_a_fixed_seed():
    values = [0.2, 0.0, 0.3, -0.1]
    expected = sps.bootstrap(
        (np.array(values),),
        np.mean,
        n_resamples=10_000,
        method="percentile",
        rng=np.random.default_rng(SEED),
    ).confidence_interval
    assert bootstrap_interval(values) == pytest.approx((expected.low, expected.high))
    assert bootstrap_interval(values) == bootstrap_interval(values)


def test_fewer_than_two_teams_give_no_interval_and_say_why():
    effects = _by_name(technique_effects(RUNS))
    retry = effects["retry"]  # only D uses it: D has runs with and without
    assert retry.n == 1 and retry.effect == pytest.approx(0.5)
    assert retry.low is None and retry.high is None and not retry.has_interval
    assert "only one team" in retry.note
    assert "No interval" in effect_sentence(retry)
    only_all = _by_name(technique_effects([_run("A", 1, 0.5, "x"), _run("B", 1, 0.4)]))["x"]
    assert only_all.n == 0 and only_all.effect is None
    assert "both with and without" in only_all.note
    assert bootstrap_interval([0.3]) is None


def test_equal_differences_give_no_interval_and_say_why():
    runs = [_run(t, k, 0.5 + 0.1 * (k == 1), *(["x"] * (k == 1))) for t in "ABC" for k in (1, 2)]
    for method in ("percentile", "BCa"):
        (x,) = technique_effects(runs, method=method)
        assert x.effect == pytest.approx(0.1) and x.n == 3
        assert x.low is None and x.high is None and not x.has_interval
        assert "No interval" in x.note and "the same" in x.note
        sentence = effect_sentence(x)
        assert "95% interval" not in sentence and "no spread" in sentence
    assert bootstrap_interval([0.1, 0.1, 0.1]) is None


def test_bad_parameters_and_missing_scores():
    with pytest.raises(ValueError):
        technique_effects(RUNS, method="basic")
    with pytest.raises(ValueError):
        technique_effects(RUNS, resamples=0)
    # a run without a finite score is no scored run
    assert technique_effects([_run("A", 1, float("nan"), "x")]) == []


def test_sentences_in_plain_words():
    cot = _by_name(technique_effects(RUNS))["cot"]
    text = effect_sentence(cot)
    assert text.startswith("4 of 5 teams (80%) used “cot” on 6 scored runs.")
    assert "0.167 higher than without it (95% interval" in text
    assert "Only 3 teams" in text


def test_sign_flip_test_by_hand_and_against_scipy():
    # [0.2, 0.0, 0.3]: 8 sign patterns (the 0 flips to itself); |mean| >= 0.5 / 3 for
    # (+, ., +) and (-, ., -), twice each: 4 of 8, p = 0.5, exact.
    assert sign_flip_test([0.2, 0.0, 0.3]) == (pytest.approx(0.5), "exact")
    # Six positive differences: only all-plus and all-minus reach |mean|: 2 / 64.
    assert sign_flip_test([0.1, 0.2, 0.3, 0.4, 0.5, 0.6]) == (pytest.approx(2 / 64), "exact")
    assert sign_flip_test([0.1]) is None
    # 15 teams: 2^15 > 10,000 patterns, so random ones with the seed, as scipy draws them.
    values = list(np.random.default_rng(3).normal(0.05, 0.1, 15))
    p, method = sign_flip_test(values)
    expected = sps.permutation_test(
        (np.array(values),),
        np.mean,
        permutation_type="samples",
        n_resamples=10_000,
        rng=np.random.default_rng(SEED),
    ).pvalue
    assert method == "random" and p == pytest.approx(expected)


def test_refusals_say_what_is_wrong_and_one_resample_is_allowed():
    with pytest.raises(ValueError, match=r"^method must be one of percentile, BCa, got 'basic'$"):
        technique_effects(RUNS, method="basic")
    with pytest.raises(ValueError, match=r"^resamples must be at least 1, got 0$"):
        technique_effects(RUNS, resamples=0)
    (x,) = technique_effects([_run("A", 1, 0.6, "x"), _run("A", 2, 0.5)], resamples=1)
    assert x.effect == pytest.approx(0.1)


def test_techniques_come_in_name_order_whatever_the_case():
    effects = technique_effects([_run("A", 1, 0.5, "Zeta", "alpha", "Beta")])
    assert [e.technique for e in effects] == ["alpha", "Beta", "Zeta"]


def test_each_difference_counts_the_runs_on_either_side():
    cot = _by_name(technique_effects(RUNS))["cot"]
    # A: 0.6 and 0.8 with, 0.5 without; B: 0.4 with, 0.3 and 0.5 without; C: one each.
    assert [(d.team, d.runs_with, d.runs_without) for d in cot.differences] == [
        ("A", 2, 1),
        ("B", 1, 2),
        ("C", 1, 1),
    ]
    assert [d.mean_with for d in cot.differences] == pytest.approx([0.7, 0.4, 0.9])
    assert [d.mean_without for d in cot.differences] == pytest.approx([0.5, 0.4, 0.6])


def _scipy_interval(values, *, confidence=0.95, seed=SEED, resamples=10_000):
    found = sps.bootstrap(
        (np.array(values),),
        np.mean,
        n_resamples=resamples,
        confidence_level=confidence,
        method="percentile",
        rng=np.random.default_rng(seed),
    ).confidence_interval
    return found.low, found.high


def test_two_values_have_an_interval_at_the_level_asked():
    assert bootstrap_interval([0.1, 0.3]) == pytest.approx(_scipy_interval([0.1, 0.3]))
    values = [0.2, 0.0, 0.3, -0.1, 0.25]
    at_90 = bootstrap_interval(values, confidence=0.9)
    assert at_90 == pytest.approx(_scipy_interval(values, confidence=0.9))
    assert at_90 != pytest.approx(_scipy_interval(values))


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # numpy, on inf
def test_an_infinite_bound_is_no_interval():
    # scipy's percentile interval of [0, 1, inf] is (0, inf): not an interval to print.
    assert bootstrap_interval([0.0, 1.0, math.inf]) is None


@pytest.mark.filterwarnings("ignore:.*:RuntimeWarning")  # numpy, on one resample
def test_a_bca_interval_scipy_cannot_give_is_none_and_its_warning_stays_inside():
    # One resample: every resample lies on one side of the estimate, so BCa's bias
    # correction is infinite and scipy answers nan (with a DegenerateDataWarning).
    with warnings.catch_warnings():
        warnings.simplefilter("error", sps.DegenerateDataWarning)
        assert bootstrap_interval([0.1, 0.3, -0.1], method="BCa", resamples=1) is None
    runs = [
        _run(t, 1, s + d, "x") for t, s, d in (("A", 0.5, 0.1), ("B", 0.6, 0.3), ("C", 0.3, -0.1))
    ]
    runs += [_run(t, 2, s) for t, s in (("A", 0.5), ("B", 0.6), ("C", 0.3))]
    (x,) = technique_effects(runs, method="BCa", resamples=1)
    assert x.effect == pytest.approx(0.1) and not x.has_interval
    assert x.note == "No interval: the bootstrap gave none."


def _enumerated_p(values):
    """Return the two-sided sign-flip p by trying every sign pattern."""
    observed = abs(sum(values)) / len(values)
    means = [
        abs(sum(s * v for s, v in zip(signs, values, strict=True))) / len(values)
        for signs in itertools.product((1, -1), repeat=len(values))
    ]
    return sum(m >= observed - 1e-12 for m in means) / len(means)


def test_sign_flips_are_exact_while_the_patterns_fit_the_resamples():
    # Two values 0.1 and 0.3: means 0.2, 0.1, -0.1, -0.2; |mean| >= 0.2 twice of 4.
    assert sign_flip_test([0.1, 0.3]) == (pytest.approx(0.5), "exact")
    nine = [0.05, -0.02, 0.1, 0.07, -0.04, 0.12, 0.03, 0.08, -0.01]
    assert sign_flip_test(nine) == (pytest.approx(_enumerated_p(nine)), "exact")  # 512 patterns
    three = [0.2, -0.05, 0.3]
    assert sign_flip_test(three, resamples=8) == (pytest.approx(_enumerated_p(three)), "exact")
    assert sign_flip_test(three, resamples=7)[1] == "random"


def _teams(differences, name="x"):
    """One run with and one without the technique per team, at the given differences."""
    runs = []
    for k, d in enumerate(differences):
        runs += [_run(f"T{k}", 1, 0.4 + d, name), _run(f"T{k}", 2, 0.4)]
    return runs


def test_the_effects_random_sign_flips_use_the_resamples_and_seed_asked():
    # 16 teams: 2^16 = 65,536 patterns > 20,000 resamples, so random ones; p near 0.3, so
    # another draw of 20,000 would almost surely give another p.
    diffs = list(np.random.default_rng(16).normal(0.01, 0.1, 16))
    (x,) = technique_effects(_teams(diffs), resamples=20_000, seed=7)
    expected = sps.permutation_test(
        (np.array([d.difference for d in x.differences]),),
        np.mean,
        permutation_type="samples",
        n_resamples=20_000,
        rng=np.random.default_rng(7),
    ).pvalue
    assert x.p_method == "random" and x.p == pytest.approx(expected)
    assert 0.05 < x.p < 0.95
    (again,) = technique_effects(_teams(diffs), resamples=20_000, seed=7)
    assert again.p == x.p


def test_the_effects_interval_is_scipys_from_two_teams_at_the_level_asked():
    (two,) = technique_effects(_teams([0.1, 0.3]))
    assert (two.low, two.high) == pytest.approx(_scipy_interval([0.1, 0.3]))
    assert two.note == "Only 2 teams: the interval is rough."
    (x,) = technique_effects(_teams([0.1, 0.3, -0.05, 0.2, 0.0]), confidence=0.9)
    diffs = [d.difference for d in x.differences]
    assert (x.low, x.high) == pytest.approx(_scipy_interval(diffs, confidence=0.9))


def test_the_rough_interval_note_stops_at_five_teams():
    (four,) = technique_effects(_teams([0.1, 0.3, -0.05, 0.2]))
    assert four.has_interval and four.note == "Only 4 teams: the interval is rough."
    (five,) = technique_effects(_teams([0.1, 0.3, -0.05, 0.2, 0.0]))
    assert five.has_interval and five.note == ""


def test_each_reason_for_no_effect_or_interval_in_full():
    effects = _by_name(technique_effects(RUNS, techniques=["voting"]))
    assert effects["voting"].note == "No effect: no scored run uses it."
    assert effects["retry"].note == (
        "No interval: only one team has scored runs both with and without it (a bootstrap "
        "over teams needs at least 2)."
    )
    only_all = _by_name(technique_effects([_run("A", 1, 0.5, "x"), _run("B", 1, 0.4)]))["x"]
    assert only_all.note == "No effect: no team has scored runs both with and without it."
    (same,) = technique_effects(_teams([0.1, 0.1, 0.1]))
    assert same.note == (
        "No interval: all 3 teams' differences are the same, so resampling them has no spread "
        "to build one from."
    )


def test_effect_sentences_in_full():
    none = TechniqueEffect(
        technique="cot",
        teams_using=1,
        teams_scored=2,
        runs_tagged=1,
        differences=(TeamDifference("A", 1, 1, 0.5, 0.5),),
        effect=0.0,
        note="A note.",
    )
    assert effect_sentence(none) == (
        "1 of 2 teams (50%) used “cot” on 1 scored run. Within the 1 team with scored runs "
        "both with and without it, runs with it scored on average the same as without it. "
        "A note."
    )
    lower = TechniqueEffect(
        technique="json",
        teams_using=2,
        teams_scored=3,
        runs_tagged=2,
        differences=(TeamDifference("A", 1, 1, 0.4, 0.5), TeamDifference("B", 1, 1, 0.3, 0.4)),
        effect=-0.1,
        low=-0.2,
        high=0.05,
        p=0.5,
        p_method="exact",
        p_adjusted=1.0,
    )
    assert effect_sentence(lower, score="private") == (
        "2 of 3 teams (67%) used “json” on 2 scored runs. Within the 2 teams with scored runs "
        "both with and without it, runs with it scored on the private score on average 0.100 "
        "lower than without it (95% interval -0.200 to 0.050). Sign-flip test p = 0.5 "
        "(exact), Holm-adjusted p = 1: not flagged."
    )
    assert effect_sentence(lower).startswith("2 of 3 teams (67%) used “json” on 2 scored runs.")
    assert "runs with it scored on average 0.100 lower" in effect_sentence(lower)


def _family_runs():
    """Three techniques on their own teams: "a" on 6 teams, each +0.01k with it (exact
    p = 2 / 64 = 0.03125), "b" on 7 teams likewise (p = 2 / 128 = 0.015625), "c" on 3 teams
    with differences 0.2, 0.0, 0.3 (p = 0.5)."""
    runs = []
    for name, diffs in (
        ("a", [0.01 * k for k in range(1, 7)]),
        ("b", [0.01 * k for k in range(1, 8)]),
        ("c", [0.2, 0.0, 0.3]),
    ):
        for k, diff in enumerate(diffs):
            runs += [_run(f"{name}{k}", 1, 0.4 + diff, name), _run(f"{name}{k}", 2, 0.4)]
    return runs


def test_holm_flags_the_techniques_of_one_family_by_hand():
    effects = _by_name(technique_effects(_family_runs()))
    assert [effects[n].p for n in "abc"] == pytest.approx([2 / 64, 2 / 128, 0.5])
    # Holm, m = 3: 3 x 0.015625 = 0.046875 (b), max(that, 2 x 0.03125) = 0.0625 (a),
    # max(0.0625, 1 x 0.5) = 0.5 (c). Unadjusted, a (0.031) would pass 0.05 too.
    assert [effects[n].p_adjusted for n in "abc"] == pytest.approx([0.0625, 0.046875, 0.5])
    assert [effects[n].flagged for n in "abc"] == [False, True, False]
    assert effects["a"].p < 0.05
    text = effect_sentence(effects["b"], score="private")
    assert "runs with it scored on the private score on average" in text
    assert "Sign-flip test p = 0.0156 (exact), Holm-adjusted p = 0.0469: flagged." in text
    assert "not flagged" in effect_sentence(effects["a"])
    # A technique that no two teams compare is no test: not in the family.
    one = _by_name(technique_effects([*_family_runs(), _run("z", 1, 0.9, "d"), _run("z", 2, 0.1)]))
    assert one["d"].p is None and one["d"].p_adjusted is None and not one["d"].flagged
    assert one["b"].p_adjusted == pytest.approx(0.046875)


def test_forest_chart_is_svg_and_escapes():
    svg = techniques_forest(
        [
            ("<b>cot</b> & co", 3, 0.1, -0.05, 0.2, False),
            ("retry", 1, -0.1, None, None, False),
            ("voting", 7, 0.2, 0.1, 0.3, True),
        ]
    )
    assert svg.startswith("<svg") and "<b>" not in svg and "&lt;b&gt;cot" in svg
    assert "n=3" in svg and "voting (n=7) *" in svg and "No technique" in techniques_forest([])


# --- tagging -----------------------------------------------------------------------------

T0 = datetime(2026, 3, 1, 10, tzinfo=UTC)


@pytest.fixture
def competition(db):
    competition = Competition.objects.create(slug="tech-comp", name="Tech comp")
    for t, name in enumerate(("Alpha", "Beta")):
        system = System.objects.create(competition=competition, name=name)
        for k in (1, 2, 3):
            Run.objects.create(
                system=system,
                run_index=k,
                submitted_at=T0 + timedelta(hours=k),
                status="scored",
                public_score=0.3 + 0.1 * k + 0.05 * t,
            )
    # An ablation run: the techniques page neither counts nor tags it.
    Run.objects.create(
        system=System.objects.get(competition=competition, name="Alpha"),
        run_index=50,
        submitted_at=T0,
        status="scored",
        public_score=0.9,
        condition="no language name",
        seed=1,
    )
    return competition


def _tags(competition):
    return sorted(
        Run.techniques.through.objects.filter(run__system__competition=competition).values_list(
            "run__system__name", "run__run_index", "technique__name"
        )
    )


def test_tag_and_untag_runs(competition):
    change = runs_tag(
        competition=competition, team="Alpha", runs=[1, 3], technique="  chain   of thought "
    )
    assert change.changed == 2 and change.new_technique
    assert "“chain of thought” is a new technique" in " ".join(change.lines())
    again = runs_tag(competition=competition, team="Alpha", runs=None, technique="Chain of Thought")
    assert again.changed == 1 and not again.new_technique and again.technique == "chain of thought"
    assert _tags(competition) == [("Alpha", k, "chain of thought") for k in (1, 2, 3)]
    assert Technique.objects.filter(competition=competition).count() == 1
    out = runs_untag(
        competition=competition, team="Alpha", runs=[2, 3], technique="chain of thought"
    )
    assert out.changed == 2 and not out.technique_removed
    last = runs_untag(competition=competition, team="Alpha", runs=[1], technique="chain of thought")
    assert last.technique_removed and not Technique.objects.exists()


@pytest.mark.parametrize(
    "kwargs, field",
    [
        ({"team": "Nobody", "runs": [1], "technique": "x"}, "team"),
        ({"team": "Alpha", "runs": [1, 9], "technique": "x"}, "runs"),
        ({"team": "Alpha", "runs": [1], "technique": "   "}, "technique"),
        ({"team": "Alpha", "runs": [1], "technique": "x" * 121}, "technique"),
    ],
)
def test_tag_refusals_write_nothing(competition, kwargs, field):
    with pytest.raises(AppError) as exc:
        runs_tag(competition=competition, **kwargs)
    assert exc.value.field == field
    assert not _tags(competition) and not Technique.objects.exists()


def test_tagging_all_runs_leaves_ablation_runs_and_lists_few_missing(competition):
    runs_tag(competition=competition, team="Alpha", runs=None, technique="voting")
    assert _tags(competition) == [("Alpha", k, "voting") for k in (1, 2, 3)]
    with pytest.raises(AppError) as exc:
        runs_tag(competition=competition, team="Alpha", runs=list(range(1, 5000)), technique="x")
    assert exc.value.message.endswith("has no run 4, 5, 6, 7, 8, 9, 10, 11, 12, 13 and 4986 more")


def test_untag_unknown_technique_is_refused(competition):
    with pytest.raises(AppError, match="no technique"):
        runs_untag(competition=competition, team="Alpha", runs=[1], technique="voting")


def _import(competition, text, file="tags.csv"):
    return tags_import(competition=competition, stream=io.StringIO(text), file=file)


def test_import_adds_tags_and_keeps_old_ones(competition):
    runs_tag(competition=competition, team="Beta", runs=[1], technique="retry loop")
    result = _import(
        competition,
        "team,run,technique\nAlpha,1,chain of thought\nAlpha,2, JSON output \nBeta,1,Retry loop\n",
    )
    assert (result.added, result.rows, result.runs) == (2, 3, 3)
    assert result.new_techniques == ("JSON output", "chain of thought")
    assert "2 tags added on 3 runs" in result.lines()[0]
    assert _tags(competition) == [
        ("Alpha", 1, "chain of thought"),
        ("Alpha", 2, "JSON output"),
        ("Beta", 1, "retry loop"),
    ]


@pytest.mark.parametrize(
    "body, line, field, words",
    [
        ("Nobody,1,x\n", 3, "team", "Nobody"),
        (",1,x\n", 3, "team", "empty"),
        ("Alpha,one,x\n", 3, "run", "not a run index"),
        ("Alpha,7,x\n", 3, "run", "no run 7"),
        ("Alpha,1,\n", 3, "technique", "empty"),
        ("Alpha,1," + "y" * 121 + "\n", 3, "technique", "longer than 120"),
        ("Alpha," + "9" * 5000 + ",x\n", 3, "run", "not a run index"),
        ("Alpha,50,x\n", 3, "run", "no run 50"),  # an ablation run: not a submission
    ],
)
def test_import_refusals_name_file_line_field_and_write_nothing(
    competition, body, line, field, words
):
    with pytest.raises(ImportFailure) as exc:
        _import(competition, "team,run,technique\nBeta,2,fine\n" + body, file="t.csv")
    assert (exc.value.file, exc.value.line, exc.value.field) == ("t.csv", line, field)
    assert words in exc.value.message
    assert not _tags(competition) and not Technique.objects.exists()


def test_import_refuses_missing_column_and_empty_file(competition):
    with pytest.raises(ImportFailure) as exc:
        _import(competition, "team,run\nAlpha,1\n", file="x.csv")
    assert (exc.value.file, exc.value.line, exc.value.field) == ("x.csv", 1, "technique")
    with pytest.raises(ImportFailure, match="no rows"):
        _import(competition, "team,run,technique\n")


def test_tag_runs_command(competition, tmp_path):
    good, bad = tmp_path / "good.csv", tmp_path / "bad.csv"
    good.write_text("team,run,technique\nAlpha,1,cot\nBeta,2,cot\n", encoding="utf-8")
    bad.write_text("team,run,technique\nAlpha,3,vote\nBeta,8,cot\n", encoding="utf-8")
    out = io.StringIO()
    call_command("tag_runs", "tech-comp", str(good), stdout=out)
    assert "2 tags added on 2 runs" in out.getvalue()
    with pytest.raises(CommandError, match=r"bad\.csv, line 3, field 'run'"):
        call_command("tag_runs", "tech-comp", str(bad), stdout=io.StringIO())
    assert len(_tags(competition)) == 2
    with pytest.raises(CommandError, match="unknown competition"):
        call_command("tag_runs", "nope", str(good), stdout=io.StringIO())


# --- page, chart, exports, queries, roles ------------------------------------------------


def _build(n_teams: int) -> Competition:
    competition = Competition.objects.create(slug=f"tech{n_teams}", name="Scale")
    systems = System.objects.bulk_create(
        System(competition=competition, name=f"team{i:02d}") for i in range(n_teams)
    )
    runs = Run.objects.bulk_create(
        Run(
            system=s,
            run_index=k,
            submitted_at=T0 + timedelta(days=k, hours=i),
            status="failed" if k == 4 else "scored",
            failure="runtime" if k == 4 else "",
            public_score=None
            if k == 4
            else 0.2 + 0.02 * i + 0.01 * (i % 3 + 2) * (k % 2) + 0.01 * k,
            # Runs 0-2 only are on the private board, with private = public - 0.05.
            private_score=0.15 + 0.02 * i + 0.01 * (i % 3 + 2) * (k % 2) + 0.01 * k
            if k <= 2
            else None,
        )
        for i, s in enumerate(systems)
        for k in range(5)
    )
    cot, vote, json_ = Technique.objects.bulk_create(
        Technique(competition=competition, name=n) for n in ("chain of thought", "voting", "JSON")
    )
    through = Run.techniques.through
    through.objects.bulk_create(
        [through(run_id=r.pk, technique_id=cot.pk) for r in runs if r.run_index % 2]
        + [through(run_id=r.pk, technique_id=vote.pk) for r in runs if r.run_index >= 2]
        + [
            through(run_id=r.pk, technique_id=json_.pk)
            for r in runs
            if r.system_id == runs[0].system_id
        ]
    )
    return competition


def test_page_chart_and_exports_use_constant_queries(organizer_client):
    small, large = _build(3), _build(20)
    assert_constant_queries(organizer_client, (small, large), "techniques")


def test_page_shows_table_sentences_chart_and_forms(organizer_client):
    competition = _build(5)
    response = organizer_client.get(
        reverse("puzzles:analytics_techniques", args=[competition.slug])
    )
    text = response.content.decode()
    assert "21 of 25 runs are tagged; 20 runs are scored." in text
    # The private score (the paper's) first, then the public; each its own Holm family.
    private = text.index("Adoption and effect on the private score (the IOL-AI paper&#x27;s)")
    public = text.index("Adoption and effect on the public score")
    assert private < public
    assert "15 scored runs with this score." in text[private:public]
    assert "Holm&#x27;s step-down adjustment over the family of 2 tests" in text[private:public]
    # chain of thought on odd runs: every team has both; +0.05 - 0.01... per team
    assert "5 of 5 teams (100%) used “chain of thought” on 10 scored runs." in text[public:]
    # On the private score (runs 0-2) chain of thought is on run 1 alone of each team.
    assert "5 of 5 teams (100%) used “chain of thought” on 5 scored runs." in text[private:public]
    assert "on the private score on average" in text and "Sign-flip test" in text
    assert "1 of 5 teams (20%) used “JSON”" in text and "No effect" in text
    assert 'list="technique-names"' in text and "team04" in text
    chart_url = reverse("puzzles:analytics_techniques_chart", args=[competition.slug])
    assert chart_url in text
    chart = organizer_client.get(chart_url)
    assert chart["Content-Type"] == "image/svg+xml" and b"<svg" in chart.content
    assert "chain of thought · private (n=5)".encode() in chart.content
    assert "chain of thought · public (n=5)".encode() in chart.content


def test_empty_page_says_so(organizer_client, db):
    competition = Competition.objects.create(slug="empty", name="Empty")
    response = organizer_client.get(reverse("puzzles:analytics_techniques", args=["empty"]))
    text = response.content.decode()
    assert response.status_code == 200 and "No techniques yet" in text and "No runs to tag" in text
    chart = organizer_client.get(
        reverse("puzzles:analytics_techniques_chart", args=[competition.slug])
    )
    assert b"No technique" in chart.content


def test_exports(organizer_client):
    competition = _build(4)
    url = reverse("puzzles:analytics_techniques_export", args=[competition.slug, "csv"])
    response = organizer_client.get(url)
    assert "techniques.csv" in response["Content-Disposition"]
    lines = response.content.decode().splitlines()
    assert lines[0].startswith('"score","technique","teams_using","teams_with_scored_runs"')
    assert '"p","p_method","p_holm","flagged_holm"' in lines[0]
    assert len(lines) == 1 + 2 * 3
    xlsx = organizer_client.get(url.replace(".csv", ".xlsx"))
    rows = list(load_workbook(io.BytesIO(xlsx.content)).active.values)
    assert rows[0][:2] == ("score", "technique") and len(rows) == 7
    # The private score's rows first, then the public's.
    assert [r[0] for r in rows[1:]] == ["private"] * 3 + ["public"] * 3
    by_name = {(r[0], r[1]): r for r in rows[1:]}
    page = techniques_page(competition)
    for score in ("private", "public"):
        cot = {e.technique: e for e in page.on(score).effects}["chain of thought"]
        row = by_name[(score, "chain of thought")]
        assert row[6] == 4
        assert row[7] == pytest.approx(cot.effect)
        assert row[8] == pytest.approx(cot.low)
        assert row[10] == pytest.approx(cot.p) and row[12] == pytest.approx(cot.p_adjusted)
        assert row[13] == ("yes" if cot.flagged else "no")
    assert organizer_client.get(url.replace(".csv", ".pdf")).status_code == 404


def test_json_for_the_report(db):
    competition = _build(3)
    data = techniques_json(competition)
    json.dumps(data)
    assert data["scores"] == ["private", "public"] and data["interval"]["resamples"] == 10_000
    assert [part["score"] for part in data["by_score"]] == ["private", "public"]
    assert "Holm" in data["multiplicity"]
    for part in data["by_score"]:
        cot = {t["technique"]: t for t in part["techniques"]}["chain of thought"]
        assert cot["n"] == 3 and len(cot["teams"]) == 3 and cot["ci_low"] <= cot["effect"]
        assert cot["p"] is not None and cot["p_holm"] >= cot["p"]
        assert part["tested"] == sum(t["p"] is not None for t in part["techniques"])


def test_jurors_get_403_and_anonymous_is_redirected(client, juror):
    competition = _build(3)
    urls = [
        reverse("puzzles:analytics_techniques", args=[competition.slug]),
        reverse("puzzles:analytics_techniques_chart", args=[competition.slug]),
        reverse("puzzles:analytics_techniques_export", args=[competition.slug, "csv"]),
    ]
    tag_url = reverse("puzzles:analytics_techniques_tag", args=[competition.slug])
    for url in [*urls, tag_url]:
        response = client.get(url)
        assert response.status_code in (302, 405), url
    assert client.get(urls[0])["Location"].startswith(reverse("login"))
    client.force_login(juror)
    for url in urls:
        assert client.get(url).status_code == 403, url
    post = {"team": "team00", "runs": "1", "technique": "x", "action": "add"}
    assert client.post(tag_url, post).status_code == 403
    assert client.post(urls[0]).status_code == 403
    assert not Technique.objects.filter(name="x").exists()


def test_tag_form_post_redirect_get(organizer_client, competition):
    page = reverse("puzzles:analytics_techniques", args=[competition.slug])
    url = reverse("puzzles:analytics_techniques_tag", args=[competition.slug])
    post = {"team": "Alpha", "runs": "1, 2-3", "technique": " retry  loop ", "action": "add"}
    response = organizer_client.post(url, post, follow=True)
    assert response.redirect_chain[-1][0] == page
    text = response.content.decode()
    assert "3 runs of Alpha (1, 2, 3) tagged with “retry loop”" in text
    assert len(_tags(competition)) == 3
    response = organizer_client.post(url, {**post, "runs": "2", "action": "remove"}, follow=True)
    assert "1 run of Alpha (2) untagged" in response.content.decode()
    assert len(_tags(competition)) == 2
    for bad, words in (
        ({"runs": "two"}, "not a run index"),
        ({"runs": "7"}, "Alpha has no run 7"),
        ({"runs": "3-1"}, "not a range from low to high"),
        ({"runs": " , "}, "give run indices"),
        ({"technique": "z" * 121}, "at most 120 characters"),
        ({"technique": "   "}, "This field is required"),
        ({"team": "Gamma"}, "Select a valid choice"),
    ):
        # Refused, the page comes back (422) with the form as filled and the error.
        response = organizer_client.post(url, {**post, **bad})
        assert response.status_code == 422, bad
        text = response.content.decode()
        assert words in text, bad
        typed = {**post, **bad}
        assert f'value="{typed["runs"]}"' in text and f'value="{typed["technique"]}"' in text
    assert len(_tags(competition)) == 2
    organizer_client.post(url, {**post, "team": "Beta", "runs": "ALL"})
    assert len(_tags(competition)) == 5


def test_tag_form_typed_wrong_comes_back_with_what_was_typed(organizer_client, competition):
    before = _tags(competition)
    url = reverse("puzzles:analytics_techniques_tag", args=[competition.slug])
    post = {"team": "Beta", "runs": "2, 9", "technique": "self consistency", "action": "add"}
    response = organizer_client.post(url, post)
    assert response.status_code == 422
    text = response.content.decode()
    assert 'value="2, 9"' in text and 'value="self consistency"' in text
    assert '<option value="Beta" selected>' in text
    assert "Beta has no run 9" in text and 'id="id_runs_error"' in text
    assert _tags(competition) == before
    assert not Technique.objects.filter(name="self consistency").exists()


def test_tag_upload_post_redirect_get(organizer_client, competition):
    url = reverse("puzzles:analytics_techniques", args=[competition.slug])
    upload = io.BytesIO(b"team,run,technique\nAlpha,1,cot\nBeta,3,cot\n")
    upload.name = "up.csv"
    response = organizer_client.post(url, {"file": upload}, follow=True)
    assert response.redirect_chain[-1][0] == url
    assert "up.csv: 2 tags added" in response.content.decode()
    bad = io.BytesIO(b"team,run,technique\nAlpha,2,cot\nNobody,1,cot\n")
    bad.name = "bad.csv"
    response = organizer_client.post(url, {"file": bad}, follow=True)
    text = response.content.decode()
    assert "bad.csv, line 3, field &#x27;team&#x27;" in text and "Nobody" in text
    assert len(_tags(competition)) == 2


def test_hostile_technique_name_is_escaped(organizer_client, competition):
    hostile = '<script>alert("x")</script>'
    runs_tag(competition=competition, team="Alpha", runs=[1], technique=hostile)
    runs_tag(competition=competition, team="Beta", runs=[1], technique=hostile)
    text = organizer_client.get(
        reverse("puzzles:analytics_techniques", args=[competition.slug])
    ).content.decode()
    assert hostile not in text and "&lt;script&gt;" in text
    chart = organizer_client.get(
        reverse("puzzles:analytics_techniques_chart", args=[competition.slug])
    ).content.decode()
    assert "<script" not in chart and "&lt;script&gt;" in chart
    csv_text = organizer_client.get(
        reverse("puzzles:analytics_techniques_export", args=[competition.slug, "csv"])
    ).content.decode()
    assert "alert" in csv_text


# --- demo --------------------------------------------------------------------------------


def test_demo_tags_give_adoption_and_two_techniques_over_three_teams(demo_competition):
    from puzzles.analytics.techniques.demo import techniques_demo_load

    techniques_demo_load(demo_competition)
    tags = _tags(demo_competition)
    techniques_demo_load(demo_competition)
    assert _tags(demo_competition) == tags
    effects = techniques_page(demo_competition).on("public").effects
    assert sum(e.n >= 3 and e.has_interval for e in effects) >= 2
    assert any(e.teams_using and e.n == 0 for e in effects)
    assert any(e.n == 1 and not e.has_interval for e in effects)

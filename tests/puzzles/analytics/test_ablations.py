"""Ablations (issue 12, items 7 and 8): the statistics against scipy and a hand example, the
selector over RunOutputs, the reference choice, the page, chart and exports, query counts,
escaping and the demo loader."""

from __future__ import annotations

import io
import json
import math
from datetime import UTC, datetime

import pytest
from django.urls import reverse
from openpyxl import load_workbook
from scipy import stats as sps

from puzzles.analytics.ablations.charts import ablation_forest
from puzzles.analytics.ablations.demo import CONDITIONS, REFERENCE, SEEDS, ablations_demo_load
from puzzles.analytics.ablations.selectors import EXPORT_HEADER, ablations_json, ablations_page
from puzzles.analytics.runs.scores import ALL_TASKS, run_problem_scores
from puzzles.analytics.stats.ablations import (
    PAIRED,
    WELCH,
    AblationRun,
    Interval,
    TaskRef,
    ablation_changes,
    change_interval,
    default_reference,
    run_figures,
)
from puzzles.analytics.stats.scores import score_over
from puzzles.models import Competition, Problem, Run, RunOutput, System, Task
from tests.puzzles.analytics.queries import assert_constant_queries

# --- pure statistics ---------------------------------------------------------------------


def test_hand_example_paired_interval_excludes_zero_with_its_p():
    reference = {1: 0.5, 2: 0.6, 3: 0.7}
    condition = {1: 0.3, 2: 0.5, 3: 0.5}
    interval = change_interval(reference, condition)
    # differences -0.2, -0.1, -0.2: mean -1/6, sd 0.057735, se 0.033333, t(0.975, 2) 4.302653
    half = 4.302652729911275 * (0.1 / math.sqrt(3)) / math.sqrt(3)
    assert interval.method == PAIRED
    assert interval.change == pytest.approx(-1 / 6)
    assert (interval.low, interval.high) == pytest.approx((-1 / 6 - half, -1 / 6 + half))
    assert interval.excludes_zero and interval.high < 0
    # t = (-1/6) / (0.1 / 3) = -5 on 2 degrees of freedom, where P(|T| > t) = 1 - t / sqrt(t^2 + 2):
    # p = 1 - 5 / sqrt(27) = 0.03775.
    assert interval.p == pytest.approx(1 - 5 / math.sqrt(27))
    # Alone, no family has adjusted it yet: it is not flagged.
    assert interval.p_adjusted is None and not interval.flagged


def test_paired_interval_matches_scipy_ttest_rel():
    reference = {11: 0.41, 12: 0.52, 13: 0.47, 14: 0.39}
    condition = {11: 0.44, 12: 0.50, 13: 0.49, 14: 0.43}
    interval = change_interval(reference, condition)
    seeds = sorted(reference)
    ci = sps.ttest_rel(
        [condition[s] for s in seeds], [reference[s] for s in seeds]
    ).confidence_interval()
    assert interval.method == PAIRED
    assert (interval.low, interval.high) == pytest.approx((ci.low, ci.high))
    assert not interval.excludes_zero and interval.low < 0 < interval.high
    assert interval.p == pytest.approx(
        sps.ttest_rel([condition[s] for s in seeds], [reference[s] for s in seeds]).pvalue
    )


def test_welch_interval_matches_scipy_when_seeds_differ():
    reference = {1: 0.60, 2: 0.64, 3: 0.58}
    condition = {4: 0.31, 5: 0.35, 6: 0.29, 7: 0.40}
    interval = change_interval(reference, condition)
    ci = sps.ttest_ind(
        list(condition.values()), list(reference.values()), equal_var=False
    ).confidence_interval()
    assert interval.method == WELCH
    assert (interval.low, interval.high) == pytest.approx((ci.low, ci.high))
    assert interval.change == pytest.approx(0.3375 - 0.6066666666666667)
    assert interval.excludes_zero
    assert interval.p == pytest.approx(
        sps.ttest_ind(list(condition.values()), list(reference.values()), equal_var=False).pvalue
    )


def test_runs_without_a_seed_are_unpaired_samples():
    reference = {("run", 1): 0.5, ("run", 2): 0.6}
    condition = {("run", 1): 0.4, ("run", 2): 0.45}
    assert change_interval(reference, condition).method == WELCH


@pytest.mark.parametrize(
    ("reference", "condition", "words"),
    [
        ({1: 0.5}, {1: 0.4, 2: 0.3}, "1 under the reference"),
        ({1: 0.5, 2: 0.6}, {1: 0.4}, "1 seed(s) under the condition"),
        ({1: 0.5, 2: 0.6}, {1: 0.4, 2: 0.5}, "identical figures"),
        ({1: 0.5, 2: 0.5}, {3: 0.4, 4: 0.4}, "identical figures"),
    ],
)
def test_no_interval_is_a_sentence(reference, condition, words):
    interval = change_interval(reference, condition)
    assert interval.low is None and interval.high is None and not interval.flagged
    assert interval.p is None and not interval.excludes_zero
    assert interval.change is not None and words in interval.note


def test_no_reference_run_gives_no_change():
    interval = change_interval({}, {1: 0.4, 2: 0.3})
    assert interval.change is None and "No run under the reference" in interval.note


TASKS = [TaskRef(1, 1, 1.0), TaskRef(2, 1, 3.0), TaskRef(3, 2, 2.0), TaskRef(4, 3, 0.0)]


def test_run_figures_follow_the_competition_rule():
    overall, per_problem = run_figures({1: (1.0, 1.0), 2: (0.5, 0.8), 4: (1.0, 1.0)}, TASKS)
    # all tasks, task 3 missing counts 0: EM (1 + 1.5) / 6, chrF (1 + 2.4) / 6
    assert overall == pytest.approx(round(math.sqrt((2.5 / 6) * (3.4 / 6)), 4))
    assert per_problem[1] == pytest.approx(round(math.sqrt((2.5 / 4) * (3.4 / 4)), 4))
    assert 2 not in per_problem  # no output on problem 2's task
    assert per_problem[3] == 0.0  # its tasks weigh nothing


def test_default_reference():
    assert default_reference({"no names": 5, "Baseline": 2}) == "Baseline"
    assert default_reference({"none": 1, "full": 1}) == "full"
    assert default_reference({"b": 3, "a": 3, "c": 4}) == "c"
    assert default_reference({"b": 3, "a": 3}) == "a"
    assert default_reference({}) is None


def _run(system, condition, seed, index, outputs):
    return AblationRun(system, condition, seed, index, outputs)


def test_changes_per_model_condition_and_problem():
    runs = [
        _run("M", "ref", 1, 1, {1: (0.8, 0.9), 3: (0.6, 0.6)}),
        _run("M", "ref", 2, 2, {1: (0.7, 0.9), 3: (0.5, 0.6)}),
        _run("M", "ref", 2, 3, {1: (0.9, 0.9), 3: (0.7, 0.6)}),  # seed 2 again: averaged
        _run("M", "cut", 1, 4, {1: (0.2, 0.5)}),
        _run("M", "cut", 2, 5, {1: (0.3, 0.5)}),
        _run("M", "cut", 3, 6, {}),  # no outputs: left out
        _run("N", "cut", 1, 1, {1: (0.5, 0.5)}),  # no reference run
    ]
    changes = ablation_changes(runs, TASKS, "ref")
    m = [c for c in changes if c.system == "M"]
    assert [(c.condition, c.problem) for c in m] == [("cut", None), ("cut", 1), ("cut", 2)]
    overall, problem1, problem2 = m
    assert overall.n_reference == 2 and overall.n_condition == 2
    assert overall.interval.method == PAIRED
    assert problem2.n_condition == 0 and problem2.change is None
    # The cut runs answered task 1 only: both sides are scored over task 1 alone, overall
    # (1 of 4 tasks) and on problem 1 (1 of its 2 tasks).
    ref_p1 = [score_over(r.outputs, TASKS[:1]) for r in runs[:3]]
    expected_ref = (ref_p1[0] + (ref_p1[1] + ref_p1[2]) / 2) / 2
    assert problem1.reference_mean == pytest.approx(expected_ref)
    assert overall.reference_mean == pytest.approx(expected_ref)
    assert (overall.tasks_compared, overall.tasks_total) == (1, 4)
    assert (problem1.tasks_compared, problem1.tasks_total) == (1, 2)
    assert "Over 1 of 4 tasks" in overall.note and "condition runs answer 1" in overall.note
    assert (problem2.tasks_compared, problem2.tasks_total) == (1, 1) and not problem2.coverage_note
    n = next(c for c in changes if c.system == "N" and c.problem is None)
    assert n.change is None and n.n_reference == 0 and not n.flagged


def test_the_changes_are_one_holm_family():
    # One task (so a model's change on problem 1 is its overall change), two models, each
    # the hand example above: differences -0.2, -0.1, -0.2 by seed, p = 1 - 5 / sqrt(27)
    # = 0.03775 each, every interval excluding zero. Holm over the 4 tied p-values:
    # 4 x 0.03775 = 0.151 for each, so none is flagged.
    task = [TaskRef(id=1, problem=1, weight=1.0)]
    runs = []
    for system in ("M1", "M2"):
        for seed, (ref, cond) in enumerate([(0.5, 0.3), (0.6, 0.5), (0.7, 0.5)], start=1):
            runs.append(_run(system, "ref", seed, seed, {1: (ref, ref)}))
            runs.append(_run(system, "cut", seed, 10 + seed, {1: (cond, cond)}))
    changes = ablation_changes(runs, task, "ref")
    assert len(changes) == 4 and all(c.excludes_zero for c in changes)
    p = 1 - 5 / math.sqrt(27)
    assert [c.interval.p for c in changes] == pytest.approx([p] * 4)
    assert [c.interval.p_adjusted for c in changes] == pytest.approx([4 * p] * 4)
    assert not any(c.flagged for c in changes)
    # One model alone: a family of 2, 2 x 0.03775 = 0.0755, still not flagged.
    alone = ablation_changes([r for r in runs if r.system == "M1"], task, "ref")
    assert [c.interval.p_adjusted for c in alone] == pytest.approx([2 * p] * 2)


def _coverage_runs(cond_tasks):
    """Reference runs answer every task, condition runs only `cond_tasks`; on the tasks both
    answered the condition changes nothing but the seeds' wobble."""
    runs = []
    for seed in (1, 2, 3):
        wobble = seed / 100
        full = {t.id: (0.8 + wobble, 0.9) for t in TASKS}
        runs.append(_run("M", "ref", seed, seed, full))
        cut = {k: v for k, v in full.items() if k in cond_tasks}
        cut = {k: (em - (0.01 if seed == 2 else 0.0), chrf) for k, (em, chrf) in cut.items()}
        runs.append(_run("M", "cut", seed, 10 + seed, cut))
    return runs


def test_a_condition_answering_fewer_tasks_is_compared_over_the_shared_tasks():
    # The condition's runs answer problem 1 only (tasks 1, 2), the reference's every task.
    changes = ablation_changes(_coverage_runs({1, 2}), TASKS, "ref")
    overall = next(c for c in changes if c.problem is None)
    # Counting the missing tasks as 0 would give a drop of about -0.4, flagged.
    assert overall.change == pytest.approx(-0.01 / 3, abs=0.002)
    assert not overall.flagged
    assert (overall.tasks_compared, overall.tasks_total) == (2, 4)
    assert overall.note.startswith("Over 2 of 4 tasks")
    assert "condition runs answer 2, reference runs 4" in overall.note
    per_problem = {c.problem: c for c in changes if c.problem is not None}
    assert per_problem[1].tasks_compared == per_problem[1].tasks_total == 2
    assert per_problem[1].change == pytest.approx(overall.change, abs=0.002)
    assert per_problem[2].change is None and per_problem[2].n_condition == 0


def test_runs_sharing_no_task_give_no_change():
    changes = ablation_changes(_coverage_runs(set()) + [], TASKS, "ref")
    assert changes == []  # the condition's runs have no outputs: nothing to compare
    runs = [
        _run("M", "ref", 1, 1, {1: (1.0, 1.0)}),
        _run("M", "ref", 2, 2, {1: (1.0, 1.0)}),
        _run("M", "cut", 1, 3, {3: (0.5, 0.5)}),
        _run("M", "cut", 2, 4, {3: (0.5, 0.5)}),
    ]
    overall = ablation_changes(runs, TASKS, "ref")[0]
    assert overall.problem is None and overall.tasks_compared == 0
    assert overall.change is None and not overall.flagged
    assert overall.reference_mean is None and "nothing to compare" in overall.note


NO_SPREAD = (
    "No interval: the seeds give identical figures, so there is no spread to build one from."
)


@pytest.mark.parametrize(
    ("reference", "condition", "change", "note"),
    [
        ({1: 0.5}, {}, None, "No run under the condition."),
        ({}, {1: 0.5}, None, "No run under the reference."),
        (
            {1: 0.5},
            {1: 0.4, 2: 0.3},
            -0.15,
            "No interval: 2 seed(s) under the condition and 1 under the reference; an interval "
            "needs at least 2 on each side.",
        ),
        ({1: 0.5, 2: 0.6}, {1: 0.4, 2: 0.5}, -0.1, NO_SPREAD),
        ({1: 0.5, 2: 0.5}, {3: 0.4, 4: 0.4}, -0.1, NO_SPREAD),
    ],
)
def test_each_change_without_an_interval_has_no_method_and_says_why(
    reference, condition, change, note
):
    interval = change_interval(reference, condition)
    assert interval.method == ""
    assert interval.note == note
    assert interval.change == (None if change is None else pytest.approx(change))


@pytest.mark.filterwarnings("ignore:Precision loss:RuntimeWarning")  # scipy, on 0.5, 0.5
def test_welch_with_one_side_constant_still_has_an_interval():
    reference = {1: 0.5, 2: 0.5}
    condition = {3: 0.6, 4: 0.8}
    interval = change_interval(reference, condition)
    test = sps.ttest_ind([0.6, 0.8], [0.5, 0.5], equal_var=False)
    ci = test.confidence_interval()
    assert interval.method == WELCH
    assert (interval.low, interval.high, interval.p) == pytest.approx(
        (ci.low, ci.high, test.pvalue)
    )


@pytest.mark.filterwarnings("ignore:.*:RuntimeWarning")  # numpy's underflow and overflow
def test_a_spread_floating_point_cannot_hold_gives_no_interval():
    # Variances of 1e-200 underflow to 0: scipy's interval is (0, 0) with p nan. Never a
    # zero-width interval: no interval, and the change is still given.
    tiny = change_interval({1: 0.0, 2: 1e-200}, {3: 0.0, 4: 1e-200})
    assert tiny == Interval(0.0, None, None, "", NO_SPREAD)
    # Variances that overflow: scipy's interval is (-inf, inf) with p = 1.
    huge = change_interval({1: 0.0, 2: 1.0}, {3: 1e308, 4: -1.7e308})
    assert (huge.low, huge.high, huge.p, huge.method, huge.note) == (
        None,
        None,
        None,
        "",
        NO_SPREAD,
    )


def test_runs_without_a_seed_are_each_a_sample():
    runs = [
        _run("M", "ref", None, 1, {1: (0.5, 0.5)}),
        _run("M", "ref", None, 2, {1: (0.6, 0.6)}),
        _run("M", "cut", None, 3, {1: (0.3, 0.3)}),
        _run("M", "cut", None, 4, {1: (0.2, 0.2)}),
        _run("M", "cut", None, 5, {1: (0.4, 0.4)}),
    ]
    (overall, _problem1) = ablation_changes(runs, TASKS[:1], "ref")
    assert (overall.n_reference, overall.n_condition) == (2, 3)
    assert (overall.reference_mean, overall.condition_mean) == pytest.approx((0.55, 0.3))
    ci = sps.ttest_ind([0.3, 0.2, 0.4], [0.5, 0.6], equal_var=False).confidence_interval()
    assert overall.interval.method == WELCH
    assert (overall.interval.low, overall.interval.high) == pytest.approx((ci.low, ci.high))


def test_a_model_without_one_condition_still_gets_its_others():
    runs = [
        _run("M", "ref", 1, 1, {1: (0.5, 0.5)}),
        _run("M", "a", 1, 2, {1: (0.4, 0.4)}),
        # N has no run under "a" (the first condition by name), only under "b".
        _run("N", "ref", 1, 3, {1: (0.5, 0.5)}),
        _run("N", "b", 1, 4, {1: (0.2, 0.2)}),
    ]
    found = [(c.system, c.condition, c.problem) for c in ablation_changes(runs, TASKS[:1], "ref")]
    assert found == [("M", "a", None), ("M", "a", 1), ("N", "b", None), ("N", "b", 1)]


def test_a_change_over_every_task_has_no_coverage_note_and_both_means():
    runs = [
        _run("M", "ref", 1, 1, {1: (0.5, 0.5), 2: (0.5, 0.5)}),
        _run("M", "cut", 1, 2, {1: (0.2, 0.2), 2: (0.4, 0.4)}),
    ]
    overall = ablation_changes(runs, TASKS[:2], "ref")[0]
    assert overall.coverage_note == "" and (overall.tasks_compared, overall.tasks_total) == (2, 2)
    # Weights 1 and 3: the condition's EM and chrF are (0.2 + 1.2) / 4 = 0.35.
    assert (overall.reference_mean, overall.condition_mean) == pytest.approx((0.5, 0.35))
    assert overall.change == pytest.approx(-0.15)


def test_runs_sharing_no_task_have_no_method_and_no_means():
    runs = [
        _run("M", "ref", 1, 1, {1: (1.0, 1.0)}),
        _run("M", "cut", 1, 3, {3: (0.5, 0.5)}),
    ]
    overall = ablation_changes(runs, TASKS, "ref")[0]
    assert overall.interval == Interval(
        None,
        None,
        None,
        "",
        "No change: no task is answered by every run compared, so there is nothing to compare.",
    )
    assert overall.reference_mean is None and overall.condition_mean is None


def test_forest_chart_marks_flags_by_shape_and_text_and_escapes():
    svg = ablation_forest(
        [
            ("<script>alert(1)</script>", "cut", -0.2, -0.3, -0.1, True),
            ("M", "swap & shuffle", 0.01, -0.05, 0.07, False),
            ("M", "one seed", 0.02, None, None, False),
        ],
        reference="ref",
    )
    assert svg.startswith("<svg") and 'role="img"' in svg
    assert "<script>" not in svg and "&lt;script&gt;" in svg
    assert "swap &amp; shuffle" in svg and "cut *" in svg
    assert "No change" in ablation_forest([])


# --- database: selector, page, chart, exports ---------------------------------------------

START = datetime(2026, 3, 1, 9, tzinfo=UTC)


def _build(slug: str, n_systems: int = 2, conditions=("baseline", "no names"), seeds=(1, 2, 3)):
    """Systems S0.. with runs under each condition and seed, an output per task; the second
    condition costs S0 0.3 on problem 1's tasks, S1 nothing."""
    competition = Competition.objects.create(slug=slug, name=f"Ablate {slug}")
    tasks = []
    for number in (1, 2):
        problem = Problem.objects.create(competition=competition, number=number)
        for k in (1, 2):
            tasks.append(
                Task.objects.create(
                    problem=problem,
                    external_id=f"{number}.{k}",
                    number=k,
                    task_type="translation",
                    weight=float(k),
                    answer_key=[["x"]],
                )
            )
    index = 0
    for i in range(n_systems):
        system = System.objects.create(competition=competition, name=f"S{i}")
        for c, condition in enumerate(conditions):
            for seed in seeds:
                index += 1
                run = Run.objects.create(
                    system=system,
                    run_index=index,
                    submitted_at=START,
                    status="scored",
                    public_score=0.5,
                    condition=condition,
                    seed=seed,
                )
                outputs = []
                for t, task in enumerate(tasks):
                    cost = 0.3 if (c and i == 0 and task.problem.number == 1) else 0.0
                    wobble = ((seed * (7 + 4 * c) + t * 3 + i) % 5 - 2) / 100
                    value = min(1.0, max(0.0, 0.7 - cost + wobble))
                    outputs.append(RunOutput(run=run, task=task, exact_match=value, chrf=value))
                RunOutput.objects.bulk_create(outputs)
    return competition


def test_selector_computes_changes_from_run_outputs(db):
    competition = _build("abl-sel")
    System.objects.get(competition=competition, name="S1").runs.create(
        run_index=999, submitted_at=START, status="scored", public_score=0.9, condition="no names"
    )  # no outputs: counted, left out
    Run.objects.create(  # an ordinary run: not an ablation
        system=System.objects.get(competition=competition, name="S0"),
        run_index=1000,
        submitted_at=START,
        status="scored",
        public_score=0.1,
    )
    page = ablations_page(competition)
    assert page.reference == "baseline"
    assert [(c.condition, c.runs, c.with_outputs) for c in page.conditions] == [
        ("baseline", 6, 6),
        ("no names", 7, 6),
    ]
    assert page.runs_without_outputs == 1
    s0, s1 = page.models
    assert s0.system == "S0" and s0.overall[0].flagged and s0.overall[0].change < 0
    assert s0.overall[0].interval.method == PAIRED and s0.overall[0].n_condition == 3
    by_problem = {c.problem: c for c in s0.changes if c.problem is not None}
    assert by_problem[1].flagged and by_problem[1].change == pytest.approx(-0.3, abs=0.03)
    assert not by_problem[2].flagged
    assert not s1.overall[0].flagged
    # the same change reversed when the other condition is the reference
    flipped = ablations_page(competition, "no names")
    assert flipped.reference == "no names"
    assert flipped.models[0].overall[0].condition == "baseline"
    assert flipped.models[0].overall[0].change == pytest.approx(-s0.overall[0].change)
    assert ablations_page(competition, "nonsense").reference == "baseline"


def test_ablations_json_for_the_report(db):
    data = json.loads(json.dumps(ablations_json(_build("abl-json"))))
    assert data["reference"] == "baseline"
    assert data["conditions"][0] == {"condition": "baseline", "runs": 6, "runs_with_outputs": 6}
    first = data["changes"][0]
    assert list(first) == EXPORT_HEADER
    assert first["model"] == "S0" and first["problem"] == "all" and first["flagged"] == "yes"


def test_page_and_json_say_over_how_many_tasks_a_change_is_taken(organizer_client):
    competition = _build("abl-cover", n_systems=1)
    RunOutput.objects.filter(run__condition="no names", task__problem__number=2).delete()
    data = json.loads(json.dumps(ablations_json(competition)))
    overall = data["changes"][0]
    assert overall["problem"] == "all"
    assert (overall["tasks_compared"], overall["tasks_total"]) == (2, 4)
    assert overall["note"].startswith("Over 2 of 4 tasks")
    # Over problem 1's tasks alone the overall change is problem 1's change.
    problem1 = next(c for c in data["changes"] if c["problem"] == 1)
    assert overall["change"] == pytest.approx(problem1["change"])
    url = reverse("puzzles:analytics_ablations", args=[competition.slug])
    text = organizer_client.get(url).content.decode()
    assert "Tasks compared" in text and "2 of 4" in text and "Over 2 of 4 tasks" in text
    assert "Like with like" in text


def test_ablations_score_runs_as_run_problem_scores_does(db):
    competition = _build("abl-same", n_systems=1, seeds=(1, 2))
    # One reference run made for problem 1 only: no problem 2 figure, not a zero one.
    short = Run.objects.get(condition="baseline", seed=2)
    RunOutput.objects.filter(run=short, task__problem__number=2).delete()
    runs = Run.objects.filter(system__competition=competition).exclude(condition="")
    scores = run_problem_scores(runs.values_list("pk", flat=True))
    assert set(scores[short.pk]) == {1, ALL_TASKS}
    page = ablations_page(competition)
    by_problem = {c.problem: c for c in page.changes}
    for problem in (1, 2):
        ref = [
            scores[pk][problem]
            for pk in runs.filter(condition="baseline").values_list("pk", flat=True)
            if problem in scores[pk]
        ]
        assert by_problem[problem].reference_mean == pytest.approx(sum(ref) / len(ref))
    assert by_problem[2].n_reference == 1


def test_page_chart_and_exports_use_constant_queries(organizer_client):
    small = _build("abl-small", n_systems=1, seeds=(1, 2))
    large = _build("abl-large", n_systems=6, conditions=("baseline", "a", "b"), seeds=(1, 2, 3, 4))
    assert_constant_queries(organizer_client, (small, large), "ablations")


def test_page_shows_tables_explanation_and_chart(organizer_client):
    competition = _build("abl-page")
    url = reverse("puzzles:analytics_ablations", args=[competition.slug])
    text = organizer_client.get(url).content.decode()
    assert "S0" in text and "S1" in text and "Problem 1" in text and "all tasks" in text
    assert "(paired)" in text and "✱ yes" in text and "interval that excludes zero" in text
    page = ablations_page(competition)
    flagged = page.flagged
    assert flagged >= 2 and f"{flagged} of 6 changes flagged" in text
    assert "Holm&#x27;s step-down adjustment over the family of 6 tests" in text
    assert f"{page.excluding_zero} of the 95% intervals exclude zero (unadjusted)" in text
    assert "<strong>(reference)</strong>" in text
    chart_url = reverse("puzzles:analytics_ablations_chart", args=[competition.slug])
    assert f"{chart_url}?reference=baseline" in text
    chart = organizer_client.get(chart_url)
    assert chart["Content-Type"] == "image/svg+xml" and b"<svg" in chart.content
    assert b"S0 \xc2\xb7 no names *" in chart.content


def test_reference_is_chosen_by_get(organizer_client):
    competition = _build("abl-ref")
    url = reverse("puzzles:analytics_ablations", args=[competition.slug])
    text = organizer_client.get(url, {"reference": "no names"}).content.decode()
    assert '<option value="no names" selected>' in text
    text = organizer_client.get(url, {"reference": "gone"}).content.decode()
    assert "“gone” is not a condition" in text and '<option value="baseline" selected>' in text
    export = reverse("puzzles:analytics_ablations_export", args=[competition.slug, "csv"])
    lines = organizer_client.get(export, {"reference": "no names"}).content.decode().splitlines()
    assert '"no names"' in lines[1] and '"baseline"' in lines[1]


def test_exports(organizer_client):
    competition = _build("abl-export")
    url = reverse("puzzles:analytics_ablations_export", args=[competition.slug, "csv"])
    lines = organizer_client.get(url).content.decode().splitlines()
    assert lines[0].startswith('"model","condition","reference","problem"')
    assert len(lines) == 1 + 2 * 3  # two models, overall and two problems each
    xlsx = organizer_client.get(url.replace(".csv", ".xlsx"))
    rows = list(load_workbook(io.BytesIO(xlsx.content)).active.values)
    assert rows[0][0] == "model" and len(rows) == 7
    assert rows[0][12:16] == ("interval_excludes_zero", "p", "p_holm", "flagged")
    assert rows[1][:4] == ("S0", "no names", "baseline", "all") and rows[1][15] == "yes"
    change = ablations_page(competition).changes[0]
    assert rows[1][13] == pytest.approx(change.interval.p)
    assert rows[1][14] == pytest.approx(change.interval.p_adjusted)
    assert rows[0][16:19] == ("tasks_compared", "tasks_total", "note") and rows[1][16:18] == (4, 4)
    assert organizer_client.get(url.replace(".csv", ".pdf")).status_code == 404


def test_empty_page_says_so(organizer_client, db):
    competition = Competition.objects.create(slug="abl-empty", name="Empty")
    text = organizer_client.get(
        reverse("puzzles:analytics_ablations", args=[competition.slug])
    ).content.decode()
    assert "No ablation runs yet" in text
    chart = organizer_client.get(
        reverse("puzzles:analytics_ablations_chart", args=[competition.slug])
    )
    assert b"No change to show" in chart.content


def test_hostile_condition_and_system_names_are_escaped(organizer_client):
    hostile = '<img src=x onerror="alert(1)">'
    competition = _build("abl-xss", conditions=("baseline", hostile))
    System.objects.filter(competition=competition, name="S1").update(name="<b>bold</b>")
    url = reverse("puzzles:analytics_ablations", args=[competition.slug])
    text = organizer_client.get(url).content.decode()
    assert hostile not in text and "<b>bold</b>" not in text
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in text
    assert "&lt;b&gt;bold&lt;/b&gt;" in text
    text = organizer_client.get(url, {"reference": hostile}).content.decode()
    assert hostile not in text and "?reference=%3Cimg%20src%3Dx" in text
    chart = organizer_client.get(
        reverse("puzzles:analytics_ablations_chart", args=[competition.slug])
    ).content.decode()
    assert "<img" not in chart and "<b>" not in chart


def test_a_formula_condition_is_neutralized_in_exports(organizer_client):
    competition = _build("abl-formula", n_systems=1, conditions=("baseline", "=1+1"))
    url = reverse("puzzles:analytics_ablations_export", args=[competition.slug, "csv"])
    text = organizer_client.get(url).content.decode()
    assert '"\'=1+1"' in text and '"=1+1"' not in text


def test_jurors_get_403_and_anonymous_is_redirected(client, juror):
    competition = _build("abl-403", n_systems=1)
    urls = [
        reverse("puzzles:analytics_ablations", args=[competition.slug]),
        reverse("puzzles:analytics_ablations_chart", args=[competition.slug]),
        reverse("puzzles:analytics_ablations_export", args=[competition.slug, "csv"]),
    ]
    for url in urls:
        assert client.get(url).status_code == 302, url
    client.force_login(juror)
    for url in urls:
        assert client.get(url).status_code == 403, url
        assert client.post(url).status_code in (403, 405), url


# --- demo ---------------------------------------------------------------------------------


def test_demo_loader_is_idempotent_and_flags_one_condition(demo_competition, organizer_client):
    ordinary = set(
        Run.objects.filter(system__competition=demo_competition, condition="").values_list(
            "pk", flat=True
        )
    )
    made = ablations_demo_load(demo_competition)
    first = Run.objects.filter(system__competition=demo_competition).exclude(condition="")
    indices = sorted(first.values_list("system__name", "run_index"))
    outputs = RunOutput.objects.filter(run__in=first).count()
    assert made == first.count() == 3 * len(CONDITIONS) * len(SEEDS)
    assert ablations_demo_load(demo_competition) == made
    again = Run.objects.filter(system__competition=demo_competition).exclude(condition="")
    assert sorted(again.values_list("system__name", "run_index")) == indices
    assert RunOutput.objects.filter(run__in=again).count() == outputs > 0
    assert (
        set(
            Run.objects.filter(system__competition=demo_competition, condition="").values_list(
                "pk", flat=True
            )
        )
        == ordinary
    )
    assert min(i for _, i in indices) > max(
        Run.objects.filter(pk__in=ordinary).values_list("run_index", flat=True)
    )
    page = ablations_page(demo_competition)
    assert page.reference == REFERENCE
    overall = [c for c in page.changes if c.problem is None]
    assert any(c.flagged for c in overall) and any(not c.flagged for c in overall)
    assert all(c.flagged for c in overall if c.condition == "shuffled examples")
    response = organizer_client.get(reverse("puzzles:analytics_ablations", args=["demo"]))
    assert response.status_code == 200 and "shuffled examples" in response.content.decode()

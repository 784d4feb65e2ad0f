"""Runs and teams (issue 12, item 1): statistics against scipy, the import's refusals, the
page, its chart and exports, query counts and the demo."""

from __future__ import annotations

import io
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from django.core.management import CommandError, call_command
from django.db import IntegrityError, transaction
from django.urls import reverse
from openpyxl import load_workbook
from scipy import stats as sps

from puzzles.analytics.models import RunScope
from puzzles.analytics.runs.imports import runs_import
from puzzles.analytics.runs.selectors import runs_page
from puzzles.analytics.stats.runs import (
    MIN_RUNS,
    RunFacts,
    agreement,
    agreement_sentence,
    correlation_sentence,
    failures_by_family,
    per_day,
    rank_correlation,
    selection_checks,
    team_runs,
    undated,
)
from puzzles.errors import ImportFailure
from puzzles.models import Competition, Problem, Run, RunOutput, System, Task, Technique
from tests.puzzles.analytics.queries import assert_constant_queries

# --- pure statistics ---------------------------------------------------------------------

T0 = datetime(2026, 3, 1, 10, tzinfo=UTC)


def _fact(team, run, public=None, private=None, *, failure="", selected=False, day=0):
    return RunFacts(
        team=team,
        run=run,
        submitted_at=T0 + timedelta(days=day, hours=run),
        status="failed" if failure else "scored",
        failure=failure,
        public=public,
        private=private,
        selected=selected,
    )


FACTS = [
    _fact("A", 1, 0.50, 0.40, selected=True),
    _fact("A", 2, 0.60, 0.55, day=1),
    _fact("A", 3, failure="runtime", day=1),
    _fact("B", 1, 0.30, 0.35),
    _fact("B", 2, 0.40, 0.30, selected=True, day=2),
    _fact("B", 3, failure="limit", day=2),
    _fact("B", 4, failure="runtime", day=2),
    _fact("C", 1, 0.70, None, selected=True),
]


def test_team_runs_success_rate_and_failures():
    rows = {t.team: t for t in team_runs(FACTS)}
    assert (rows["A"].runs, rows["A"].scored, rows["A"].failures) == (3, 2, {"runtime": 1})
    assert rows["B"].success_rate == pytest.approx(0.5)
    assert rows["B"].failures == {"limit": 1, "runtime": 1}
    assert failures_by_family(FACTS) == {"runtime": 2, "limit": 1}


def test_submissions_per_day():
    days = per_day(FACTS)
    assert [(d.day.day, d.scored, d.failed) for d in days] == [(1, 3, 0), (2, 1, 1), (3, 1, 2)]
    assert sum(d.runs for d in days) == len(FACTS)
    assert undated(FACTS) == 0


def test_runs_without_a_known_time_are_undated_not_given_a_day():
    # Two runs without a time: neither lands on day 1 (or any day); both are undated.
    facts = [
        *FACTS,
        replace(FACTS[0], run=7, submitted_at=None),
        replace(FACTS[2], run=8, submitted_at=None),
    ]
    days = per_day(facts)
    assert [(d.day.day, d.scored, d.failed) for d in days] == [(1, 3, 0), (2, 1, 1), (3, 1, 2)]
    assert undated(facts) == 2
    assert sum(d.runs for d in days) + undated(facts) == len(facts)


def test_selection_check_and_gain_missed():
    checks = {c.team: c for c in selection_checks(FACTS)}
    a = checks["A"]
    assert (a.selected_run, a.best_public_run, a.best_private_run) == (1, 2, 2)
    assert a.private_gain_missed == pytest.approx(0.15)
    assert a.public_gain_missed == pytest.approx(0.10)
    assert a.selected_best_private is False and a.public_best_is_private_best is True
    b = checks["B"]
    assert (b.best_public_run, b.best_private_run) == (2, 1)
    assert b.private_gain_missed == pytest.approx(0.05) and not b.public_best_is_private_best
    c = checks["C"]
    assert c.best_private_run is None and c.private_gain_missed is None
    assert c.public_gain_missed == 0.0
    assert agreement(FACTS).same == 1 and agreement(FACTS).teams == 2
    assert agreement(FACTS).ties == 0
    assert "1 of 2 teams (50%)" in agreement_sentence(agreement(FACTS))
    assert "no agreement rests on such a tie" in agreement_sentence(agreement(FACTS))


def test_a_tie_in_public_score_with_the_private_best_counts_as_agreement():
    # D: runs 1 and 2 tie on public (0.5); run 2 is the private best: agreement, by a tie
    # (before: the earliest tied run, 1, was "the" best public and D a miss).
    # E: runs 1 and 2 tie on both scores: agreement, and no tie decides it.
    # F: run 2 alone best on public, run 1 on private: a miss.
    facts = [
        _fact("D", 1, 0.5, 0.3),
        _fact("D", 2, 0.5, 0.4, selected=True),
        _fact("E", 1, 0.6, 0.2),
        _fact("E", 2, 0.6, 0.2),
        _fact("F", 1, 0.1, 0.9),
        _fact("F", 2, 0.2, 0.1),
    ]
    a = agreement(facts)
    assert (a.same, a.teams, a.ties) == (2, 3, 1)
    sentence = agreement_sentence(a)
    assert "2 of 3 teams (67%)" in sentence and "1 of the 2 rest on such a tie" in sentence
    checks = {c.team: c for c in selection_checks(facts)}
    assert checks["D"].best_public_runs == (1, 2) and checks["D"].best_private_runs == (2,)
    assert checks["D"].public_best_is_private_best is True
    assert checks["E"].public_best_is_private_best is True
    assert checks["F"].public_best_is_private_best is False


def test_rank_correlation_matches_scipy():
    public = [0.2, 0.5, 0.45, 0.9, 0.7, 0.1, 0.5]
    private = [0.3, 0.4, 0.6, 0.8, 0.65, 0.2, 0.45]
    facts = [
        _fact(f"t{i % 3}", i, x, y) for i, (x, y) in enumerate(zip(public, private, strict=True))
    ]
    facts.append(_fact("t0", 99, failure="other"))
    c = rank_correlation(facts)
    spearman, kendall = sps.spearmanr(public, private), sps.kendalltau(public, private)
    assert c.n == 7 and c.note is None
    assert c.spearman == pytest.approx(spearman.statistic)
    assert c.kendall == pytest.approx(kendall.statistic)
    # seven runs (a tie in the public score): scipy's exact permutation test over 5,040
    for p_value, statistic in [(c.spearman_p, sps.spearmanr), (c.kendall_p, sps.kendalltau)]:
        exact = sps.permutation_test(
            (private,),
            lambda v, s=statistic: abs(s(public, v).statistic),
            permutation_type="pairings",
            n_resamples=float("inf"),
            alternative="greater",
        )
        assert p_value == pytest.approx(exact.pvalue)
    assert c.spearman_p_method == c.kendall_p_method == "exact permutation, all 5,040 orderings"
    text = correlation_sentence(c)
    assert "Spearman rho = " in text and "Kendall tau" in text
    assert "(exact permutation, all 5,040 orderings)" in text


def test_degenerate_correlations_are_sentences():
    few = rank_correlation([_fact("a", 1, 0.1, 0.2), _fact("a", 2, 0.3, None)])
    assert few.spearman is None and few.n == 1 and f"at least {MIN_RUNS}" in few.note
    flat = rank_correlation([_fact("a", i, 0.5, 0.1 * i) for i in range(4)])
    assert flat.kendall is None and "public score is the same for all 4 runs" in flat.note
    assert correlation_sentence(flat) == flat.note
    assert "No team" in agreement_sentence(agreement([]))


def test_failure_families_come_most_frequent_first_then_by_name():
    # Met in the order timeout, limit, runtime, memory; counted 1, 1, 3, 2.
    facts = [
        _fact("A", i, failure=f)
        for i, f in enumerate(["timeout", "limit", "runtime", "memory", "runtime", "memory"])
    ]
    facts.append(_fact("A", 9, failure="runtime"))
    assert list(failures_by_family(facts).items()) == [
        ("runtime", 3),
        ("memory", 2),
        ("limit", 1),
        ("timeout", 1),
    ]


def test_an_undated_run_first_does_not_hide_the_dated_runs_after_it():
    facts = [replace(FACTS[0], run=7, submitted_at=None), *FACTS]
    days = per_day(facts)
    assert [(d.day.day, d.scored, d.failed) for d in days] == [(1, 3, 0), (2, 1, 1), (3, 1, 2)]


def test_a_team_that_selected_no_run_is_scored_on_the_run_the_board_took():
    facts = [
        # G selected nothing; the board's record says it took run 2, not its best public (3).
        _fact("G", 1, 0.3, 0.2),
        replace(_fact("G", 2, 0.4, 0.5), board_fallback=True),
        _fact("G", 3, 0.6, 0.1),
        # H selected nothing and the board left no record: its best public run, the earliest
        # of the two tied on 0.5.
        _fact("H", 1, 0.5, 0.3),
        _fact("H", 2, 0.5, 0.6),
        _fact("H", 3, 0.2, 0.9),
        # K has only failed runs and selected nothing: no run on the private board at all.
        _fact("K", 1, failure="runtime"),
        # L selected its run 1: no fallback.
        _fact("L", 1, 0.1, 0.1, selected=True),
        _fact("L", 2, 0.2, 0.2),
    ]
    checks = {c.team: c for c in selection_checks(facts)}
    g = checks["G"]
    assert g.fallback is True
    assert (g.selected_run, g.selected_public, g.selected_private) == (2, 0.4, 0.5)
    assert (g.best_public_run, g.best_public, g.best_private_run, g.best_private) == (
        3,
        0.6,
        2,
        0.5,
    )
    h = checks["H"]
    assert h.fallback is True
    assert (h.selected_run, h.selected_public, h.selected_private) == (1, 0.5, 0.3)
    assert (h.best_public_run, h.best_public_runs) == (1, (1, 2))
    assert (h.best_private_run, h.best_private) == (3, 0.9)
    assert h.private_gain_missed == pytest.approx(0.6)
    k = checks["K"]
    assert k.fallback is False
    assert (k.selected_run, k.selected_public, k.selected_private) == (None, None, None)
    assert (k.best_public_run, k.best_public, k.best_private_run, k.best_private) == (
        None,
        None,
        None,
        None,
    )
    assert k.public_gain_missed is None and k.selected_best_private is None
    assert checks["L"].fallback is False and checks["L"].selected_run == 1


def test_agreement_counts_only_scored_runs_with_both_scores():
    facts = [
        # P: one run with both scores and one without a public score: no pair to compare.
        _fact("P", 1, 0.5, 0.5),
        _fact("P", 2, None, 0.9),
        # Q: one scored run and one failed run that still carries scores.
        _fact("Q", 1, 0.3, 0.3),
        _fact("Q", 2, 0.9, 0.1, failure="runtime"),
    ]
    a = agreement(facts)
    assert (a.same, a.teams, a.ties, a.share) == (0, 0, 0, None)


def test_three_runs_are_enough_and_get_the_exact_p_of_six_orderings():
    # Both scores rise together: rho = tau = 1; of the 3! = 6 orderings only this one and its
    # reverse are as extreme, so p = 2/6 for both.
    c = rank_correlation([_fact("a", i, 0.1 * i, 0.2 * i) for i in (1, 2, 3)])
    assert (c.n, c.spearman, c.kendall) == (3, 1.0, 1.0)
    assert c.spearman_p == pytest.approx(2 / 6) and c.kendall_p == pytest.approx(2 / 6)
    assert correlation_sentence(c) == (
        "Across 3 runs with both scores, Spearman rho = 1.000 "
        "(p = 0.333 (exact permutation, all 6 orderings)), Kendall tau = 1.000 "
        "(p = 0.333 (exact permutation, all 6 orderings))."
    )


def test_each_reason_for_no_rank_correlation_is_its_own_sentence():
    none = rank_correlation([])
    assert none.note == (
        "Not computed: no run with both a public and a private score; at least 3 are needed."
    )
    one = rank_correlation([_fact("a", 1, 0.1, 0.2)])
    assert one.note == (
        "Not computed: 1 run with both a public and a private score; at least 3 are needed."
    )
    two = rank_correlation([_fact("a", 1, 0.1, 0.2), _fact("a", 2, 0.3, 0.1)])
    assert two.n == 2 and two.note.startswith("Not computed: 2 runs with both")
    flat_private = rank_correlation([_fact("a", i, 0.1 * i, 0.5) for i in range(1, 5)])
    assert flat_private.n == 4 and flat_private.spearman is None
    assert flat_private.note == (
        "Not computed: the private score is the same for all 4 runs, so there is no ranking "
        "to compare."
    )
    flat_both = rank_correlation([_fact("a", i, 0.4, 0.5) for i in range(1, 4)])
    assert flat_both.n == 3
    assert flat_both.note == (
        "Not computed: the public and the private score are the same for all 3 runs, so "
        "there is no ranking to compare."
    )


def test_agreement_sentences_in_full():
    assert agreement_sentence(agreement([])) == (
        "No team has two runs with both a public and a private score."
    )
    one = agreement([_fact("A", 1, 0.5, 0.5), _fact("A", 2, 0.4, 0.4)])
    assert agreement_sentence(one) == (
        "The best run on the public board was also the best on the private board for 1 of 1 "
        "teams (100%), a tie in public score counting as agreement when one of the tied runs "
        "is best on the private board; no agreement rests on such a tie."
    )
    tied = agreement([_fact("D", 1, 0.5, 0.3), _fact("D", 2, 0.5, 0.4)])
    assert agreement_sentence(tied) == (
        "The best run on the public board was also the best on the private board for 1 of 1 "
        "teams (100%), a tie in public score counting as agreement when one of the tied runs "
        "is best on the private board; 1 of the 1 rest on such a tie (runs with the same "
        "best public score that differ on the private board)."
    )


# --- import ------------------------------------------------------------------------------


@pytest.fixture
def competition(db):
    competition = Competition.objects.create(slug="runs-comp", name="Runs comp")
    for name in ("Alpha", "Beta"):
        System.objects.create(competition=competition, name=name)
    return competition


HEADER = "team,run,submitted_at,status,failure,public,private,selected\n"
GOOD = HEADER + (
    "Alpha,1,2026-03-01T10:00:00Z,scored,,0.5,0.4,1\n"
    "Alpha,2,2026-03-02 11:00,failed,runtime error,,,0\n"
    "Beta,1,2026-03-02T12:00:00+02:00,scored,,0.3,,yes\n"
)


def _import(competition, text: str, file: str = "runs.csv", **scope):
    return runs_import(competition=competition, stream=io.StringIO(text), file=file, **scope)


def test_import_stores_and_replaces(competition):
    result = _import(competition, GOOD)
    assert (result.runs, result.teams, result.failed) == (3, 2, 1)
    failed = Run.objects.get(system__name="Alpha", run_index=2)
    assert failed.failure == Run.Failure.RUNTIME and failed.public_score is None
    assert failed.submitted_at == datetime(2026, 3, 2, 11, tzinfo=UTC)
    beta = Run.objects.get(system__name="Beta")
    assert beta.selected_for_private and beta.private_score is None
    assert beta.submitted_at == datetime(2026, 3, 2, 10, tzinfo=UTC)
    _import(competition, HEADER + "Beta,7,2026-03-05,failed,limit,,,\n")
    assert list(Run.objects.values_list("run_index", "failure")) == [(7, "limit")]


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ("Gamma,1,2026-03-01,scored,,0.1,,0\n", "team", "no system named 'Gamma'"),
        ("Beta,1,2026-03-01,done,,0.1,,0\n", "status", "not a status"),
        ("Beta,1,2026-03-01,failed,crash,,,0\n", "failure", "not a failure family"),
        ("Beta,1,2026-03-01,scored,runtime,0.1,,0\n", "failure", "no failure family"),
        ("Beta,1,2026-03-01,scored,,high,,0\n", "public", "'high' is not a number"),
        ("Beta,1,2026-03-01,scored,,0.1,nan,0\n", "private", "not a number"),
        ("Beta,1,2026-03-01,scored,,,,0\n", "public", "needs its public score"),
        ("Beta,1,2026-03-01,failed,other,0.2,,0\n", "public", "failed run has no public"),
        ("Beta,1,March 1st,scored,,0.1,,0\n", "submitted_at", "not an ISO 8601"),
        ("Beta,x,2026-03-01,scored,,0.1,,0\n", "run", "not a run index"),
        ("Beta,1,2026-03-01,scored,,0.1,,maybe\n", "selected", "not a boolean"),
        ("Alpha,2,2026-03-01,scored,,0.1,,0\n", "run", "a second run 2 of 'Alpha'"),
        ("Alpha,3,2026-03-01,scored,,0.1,,1\n", "selected", "second selected run"),
    ],
)
def test_import_refusals_name_file_line_field_and_write_nothing(competition, body, field, words):
    _import(competition, GOOD)
    before = list(Run.objects.values_list("pk", "run_index", "public_score"))
    text = HEADER + "Alpha,1,2026-03-01,scored,,0.9,,1\nAlpha,2,2026-03-01,scored,,0.9,,0\n" + body
    with pytest.raises(ImportFailure) as exc:
        _import(competition, text, file="bad.csv")
    assert (exc.value.file, exc.value.line, exc.value.field) == ("bad.csv", 4, field)
    assert words in exc.value.message
    assert list(Run.objects.values_list("pk", "run_index", "public_score")) == before


ABLATION_HEADER = HEADER.rstrip("\n") + ",condition,seed,techniques\n"


def test_import_stores_conditions_seeds_and_techniques(competition):
    Technique.objects.create(competition=competition, name="retry loop")
    _import(
        competition,
        ABLATION_HEADER
        + "Alpha,1,2026-03-01,scored,,0.5,,1,,,retry loop; chain of thought\n"
        + "Alpha,2,2026-03-01,scored,,0.4,,0, no  language   info ,7,chain of thought;chain of thought\n"
        + "Beta,1,2026-03-01,scored,,0.3,,1,,,\n",
    )
    first, second = Run.objects.filter(system__name="Alpha").order_by("run_index")
    assert (first.condition, first.seed) == ("", None)
    assert (second.condition, second.seed) == ("no language info", 7)
    assert sorted(first.techniques.values_list("name", flat=True)) == [
        "chain of thought",
        "retry loop",
    ]
    assert list(second.techniques.values_list("name", flat=True)) == ["chain of thought"]
    assert Technique.objects.filter(competition=competition).count() == 2


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ("Beta,1,2026-03-01,scored,,0.1,,0,cold,x1,\n", "seed", "not a seed"),
        ("Beta,1,2026-03-01,scored,,0.1,,0,,3,\n", "seed", "a seed needs a condition"),
        ("Beta,1,2026-03-01,scored,,0.1,,0," + "c" * 121 + ",1,\n", "condition", "longer"),
        ("Beta,1,2026-03-01,scored,,0.1,,0,,," + "t" * 121 + "\n", "techniques", "longer"),
        ("Beta,1,2026-03-01,scored,,0.1,,0,cold,99999999999,\n", "seed", "not a seed"),
        ("Beta,1,2026-03-01,scored,,0.1,,0,cold," + "9" * 5000 + ",\n", "seed", "not a seed"),
        ("Beta,2147483648,2026-03-01,scored,,0.1,,0,,,\n", "run", "not a run index"),
        ("Beta," + "9" * 5000 + ",2026-03-01,scored,,0.1,,0,,,\n", "run", "not a run index"),
    ],
)
def test_import_refuses_bad_ablation_and_technique_cells(competition, body, field, words):
    with pytest.raises(ImportFailure) as exc:
        _import(competition, ABLATION_HEADER + "Alpha,1,2026-03-01,scored,,0.9,,1,,,cot\n" + body)
    assert (exc.value.line, exc.value.field) == (3, field)
    assert words in exc.value.message
    assert not Run.objects.exists() and not Technique.objects.exists()


def test_technique_names_differing_in_case_are_one_technique(competition):
    Technique.objects.create(competition=competition, name="Chain of thought")
    _import(
        competition,
        ABLATION_HEADER
        + "Alpha,1,2026-03-01,scored,,0.5,,1,,,Chain of Thought\n"
        + "Alpha,2,2026-03-01,scored,,0.4,,0,,,chain of thought;CHAIN OF THOUGHT; voting \n",
    )
    assert list(Technique.objects.values_list("name", flat=True)) == [
        "Chain of thought",
        "voting",
    ]
    tagged = Run.techniques.through.objects.values_list("run__run_index", "technique__name")
    assert sorted(tagged) == [(1, "Chain of thought"), (2, "Chain of thought"), (2, "voting")]


def test_negative_seeds_and_what_an_import_replaced(competition):
    first = _import(competition, ABLATION_HEADER + "Alpha,1,2026-03-01,scored,,0.5,,0,cold,-3,\n")
    assert first.lines() == ["runs.csv: 1 run of 1 team stored, 0 failed"]
    assert Run.objects.get().seed == -3
    Technique.objects.create(competition=competition, name="on no run")
    again = _import(competition, GOOD)
    assert not Technique.objects.exists()
    assert again.lines() == [
        "runs.csv: 3 runs of 2 teams stored, 1 failed; the competition's 1 earlier run "
        "replaced (with 1 ablation run and no answer per task)"
    ]


def test_import_refuses_a_missing_column(competition):
    with pytest.raises(ImportFailure) as exc:
        _import(competition, "team,run,submitted_at,status,failure,public,private\n", file="x.csv")
    assert (exc.value.file, exc.value.line, exc.value.field) == ("x.csv", 1, "selected")
    assert not Run.objects.exists()


def test_command_imports_and_refuses(competition, tmp_path):
    good, bad = tmp_path / "good.csv", tmp_path / "bad.csv"
    good.write_text(GOOD, encoding="utf-8")
    bad.write_text(GOOD + "Beta,2,2026-03-01,scored,,0.1,,2\n", encoding="utf-8")
    out = io.StringIO()
    call_command("import_runs", "runs-comp", str(good), stdout=out)
    assert "3 runs of 2 teams stored, 1 failed" in out.getvalue()
    with pytest.raises(CommandError, match=r"bad\.csv, line 5, field 'selected'"):
        call_command("import_runs", "runs-comp", str(bad), stdout=io.StringIO())
    assert Run.objects.count() == 3


# --- scoped imports: ordinary runs or ablation runs alone -------------------------------

MIXED = ABLATION_HEADER + (
    "Alpha,1,2026-03-01,scored,,0.5,,1,,,cot\n"
    "Alpha,2,2026-03-01,scored,,0.4,,0,,,\n"
    "Alpha,3,2026-03-02,scored,,0.6,,0,no names,1,voting\n"
    "Beta,1,2026-03-01,scored,,0.3,,1,,,\n"
    "Beta,2,2026-03-02,scored,,0.35,,0,no names,1,\n"
)


@pytest.fixture
def mixed(competition):
    """Three ordinary and two ablation runs, tagged, Alpha's runs 1 and 3 with an answer."""
    _import(competition, MIXED)
    problem = Problem.objects.create(competition=competition, number=1)
    task = Task.objects.create(
        problem=problem, external_id="1.1", number=1, task_type="translation", answer_key=[["x"]]
    )
    for index in (1, 3):
        RunOutput.objects.create(
            run=Run.objects.get(system__name="Alpha", run_index=index),
            task=task,
            exact_match=1.0,
            chrf=1.0,
        )
    return competition


def _state():
    """The runs (with their answers and tags) and the technique list, to compare."""
    runs = sorted(
        Run.objects.values_list(
            "pk", "system__name", "run_index", "condition", "public_score", "selected_for_private"
        )
    )
    outputs = sorted(RunOutput.objects.values_list("pk", "run_id", "task_id"))
    tags = sorted(Run.techniques.through.objects.values_list("run_id", "technique__name"))
    return runs, outputs, tags, sorted(Technique.objects.values_list("name", flat=True))


def _kind(condition: bool):
    runs = Run.objects.exclude(condition="") if condition else Run.objects.filter(condition="")
    return sorted(runs.values_list("pk", "system__name", "run_index", "condition", "public_score"))


def test_scope_submissions_replaces_ordinary_runs_and_keeps_ablations(mixed):
    ablations = _kind(True)
    kept_output = RunOutput.objects.get(run__run_index=3).pk
    result = _import(
        mixed,
        ABLATION_HEADER
        + "Alpha,4,2026-03-03,scored,,0.7,,1,,,retry loop\n"
        + "Beta,5,2026-03-03,failed,runtime,,,0,,,\n",
        scope=RunScope.SUBMISSIONS,
    )
    assert _kind(True) == ablations
    assert [(team, index) for _, team, index, _, _ in _kind(False)] == [("Alpha", 4), ("Beta", 5)]
    assert list(RunOutput.objects.values_list("pk", flat=True)) == [kept_output]
    tagged = Run.techniques.through.objects.values_list("run__run_index", "technique__name")
    assert sorted(tagged) == [(3, "voting"), (4, "retry loop")]
    # "cot" was on replaced runs only: it leaves the list.
    assert sorted(Technique.objects.values_list("name", flat=True)) == ["retry loop", "voting"]
    assert result.lines() == [
        "runs.csv: 2 runs of 2 teams stored, 1 failed; the competition's 3 earlier ordinary "
        "runs replaced (with 1 answer per task); 2 ablation runs kept"
    ]


def test_scope_ablations_replaces_ablation_runs_and_keeps_ordinary_runs(mixed):
    ordinary = _kind(False)
    kept_output = RunOutput.objects.get(run__run_index=1, run__system__name="Alpha").pk
    result = _import(
        mixed,
        ABLATION_HEADER + "Beta,7,2026-03-04,scored,,0.2,,0, no  language info ,2,cot\n",
        file="abl.csv",
        scope=RunScope.ABLATIONS,
    )
    assert _kind(False) == ordinary
    (new,) = _kind(True)
    assert new[1:4] == ("Beta", 7, "no language info")
    assert list(RunOutput.objects.values_list("pk", flat=True)) == [kept_output]
    tagged = Run.techniques.through.objects.values_list("run__run_index", "technique__name")
    assert sorted(tagged) == [(1, "cot"), (7, "cot")]
    assert list(Technique.objects.values_list("name", flat=True)) == ["cot"]  # voting left
    assert result.lines() == [
        "abl.csv: 1 run of 1 team stored, 0 failed; the competition's 2 earlier ablation "
        "runs replaced (with 1 answer per task); 3 ordinary runs kept"
    ]
    # Selections stay as they were: the kept ordinary runs are the private board's.
    page = runs_page(mixed)
    assert {c.team: c.selected_run for c in page.checks} == {"Alpha": 1, "Beta": 1}


def test_a_scoped_import_with_nothing_to_replace_says_so(competition):
    result = _import(
        competition,
        ABLATION_HEADER + "Beta,1,2026-03-04,scored,,0.2,,0,cold,2,\n",
        scope=RunScope.ABLATIONS,
    )
    assert result.lines() == [
        "runs.csv: 1 run of 1 team stored, 0 failed; no earlier ablation run to replace; "
        "no ordinary run kept"
    ]


def test_scope_all_replaces_both_kinds(mixed):
    result = _import(mixed, GOOD, scope=RunScope.ALL)
    assert not Run.objects.exclude(condition="").exists() and not RunOutput.objects.exists()
    assert not Technique.objects.exists()
    assert result.lines() == [
        "runs.csv: 3 runs of 2 teams stored, 1 failed; the competition's 5 earlier runs "
        "replaced (with 2 ablation runs and 2 answers per task)"
    ]


@pytest.mark.parametrize(
    ("scope", "body", "field", "words"),
    [
        (
            RunScope.SUBMISSIONS,
            "Beta,3,2026-03-01,scored,,0.1,,0,cold,1,\n",
            "condition",
            "a run with a condition ('cold') is an ablation run",
        ),
        (
            RunScope.ABLATIONS,
            "Beta,3,2026-03-01,scored,,0.1,,0,,,\n",
            "condition",
            "no condition: this import (scope ablations) takes ablation runs only",
        ),
        (
            RunScope.SUBMISSIONS,
            "Alpha,3,2026-03-01,scored,,0.1,,0,,,\n",
            "run",
            "run 3 of 'Alpha' is already an ablation run, kept by this import",
        ),
        (
            RunScope.ABLATIONS,
            "Beta,1,2026-03-01,scored,,0.1,,0,cold,1,\n",
            "run",
            "run 1 of 'Beta' is already an ordinary run, kept by this import",
        ),
        (
            RunScope.ALL,
            "Beta,3,2026-03-01,scored,,0.1,,1,cold,1,\n",
            "selected",
            "an ablation run is never on the private board",
        ),
        (
            RunScope.ABLATIONS,
            "Beta,3,2026-03-01,scored,,0.1,,yes,cold,1,\n",
            "selected",
            "an ablation run is never on the private board",
        ),
    ],
)
def test_scoped_refusals_name_file_line_field_and_change_nothing(mixed, scope, body, field, words):
    before = _state()
    first = "Alpha,9,2026-03-01,scored,,0.9,,0," + (
        "cold,1," if scope == RunScope.ABLATIONS else ",,"
    )
    with pytest.raises(ImportFailure) as exc:
        _import(mixed, ABLATION_HEADER + first + "cot\n" + body, file="scoped.csv", scope=scope)
    assert (exc.value.file, exc.value.line, exc.value.field) == ("scoped.csv", 3, field)
    assert words in exc.value.message
    assert _state() == before


def test_the_database_refuses_a_selected_ablation_run(mixed):
    """The import's rule is the database's: no code path can put an ablation run on the
    private board."""
    with pytest.raises(IntegrityError), transaction.atomic():
        Run.objects.filter(system__name="Alpha", run_index=3).update(selected_for_private=True)
    assert not Run.objects.ablations().filter(selected_for_private=True).exists()


def test_an_unknown_scope_is_refused(competition):
    with pytest.raises(ImportFailure) as exc:
        _import(competition, GOOD, scope="some")
    assert exc.value.field == "scope" and "'some' is not a scope" in exc.value.message
    assert not Run.objects.exists()


def test_command_scope(mixed, tmp_path):
    ordinary = _kind(False)
    ablations = tmp_path / "abl.csv"
    ablations.write_text(ABLATION_HEADER + "Beta,7,2026-03-04,scored,,0.2,,0,cold,2,\n")
    out = io.StringIO()
    call_command("import_runs", "runs-comp", str(ablations), "--scope", "ablations", stdout=out)
    assert "2 earlier ablation runs replaced" in out.getvalue()
    assert "; 3 ordinary runs kept" in out.getvalue()
    assert _kind(False) == ordinary
    assert [r[1:4] for r in _kind(True)] == [("Beta", 7, "cold")]
    before = _state()
    with pytest.raises(CommandError, match=r"abl\.csv, line 2, field 'condition'"):
        call_command("import_runs", "runs-comp", str(ablations), "--scope", "submissions")
    with pytest.raises(CommandError, match="invalid choice"):
        call_command("import_runs", "runs-comp", str(ablations), "--scope", "some")
    assert _state() == before
    call_command("import_runs", "runs-comp", str(ablations), stdout=io.StringIO())
    assert _kind(False) == []  # the default scope is all


def test_upload_form_scope(organizer_client, mixed):
    url = reverse("puzzles:analytics_runs", args=[mixed.slug])
    text = organizer_client.get(url).content.decode()
    assert '<select name="scope"' in text and '<option value="all" selected>' in text
    assert "Runs the file replaces" in text
    ablations = _kind(True)
    upload = io.BytesIO((ABLATION_HEADER + "Alpha,8,2026-03-05,scored,,0.8,,1,,,\n").encode())
    upload.name = "subs.csv"
    response = organizer_client.post(url, {"file": upload, "scope": "submissions"}, follow=True)
    assert response.redirect_chain[-1][0] == url
    text = response.content.decode()
    assert "; 2 ablation runs kept" in text
    assert _kind(True) == ablations
    assert [r[1:3] for r in _kind(False)] == [("Alpha", 8)]
    before = _state()
    bad = io.BytesIO((ABLATION_HEADER + "Alpha,3,2026-03-05,scored,,0.8,,0,,,\n").encode())
    bad.name = "clash.csv"
    response = organizer_client.post(url, {"file": bad, "scope": "submissions"}, follow=True)
    text = response.content.decode()
    assert "clash.csv, line 2, field &#x27;run&#x27;" in text
    assert "already an ablation run, kept by this import" in text
    assert _state() == before
    odd = io.BytesIO(GOOD.encode())
    odd.name = "odd.csv"
    response = organizer_client.post(url, {"file": odd, "scope": "some"}, follow=True)
    assert "Select a valid choice" in response.content.decode()
    assert _state() == before


# --- page, chart, exports, queries -------------------------------------------------------


def _build(n_teams: int) -> Competition:
    competition = Competition.objects.create(slug=f"runs{n_teams}", name="Scale")
    systems = System.objects.bulk_create(
        System(competition=competition, name=f"team{i:02d}") for i in range(n_teams)
    )
    families = list(Run.Failure.values)
    Run.objects.bulk_create(
        Run(
            system=s,
            run_index=k,
            submitted_at=T0 + timedelta(days=k, hours=i),
            status="failed" if k == 3 else "scored",
            failure=families[i % len(families)] if k == 3 else "",
            public_score=None if k == 3 else (i + k) / (n_teams + 5),
            private_score=None if k == 3 else (i + (k * 2) % 3) / (n_teams + 5),
            selected_for_private=k == 0,
        )
        for i, s in enumerate(systems)
        for k in range(4)
    )
    return competition


def test_page_chart_and_exports_use_constant_queries(organizer_client):
    small, large = _build(3), _build(20)
    assert_constant_queries(organizer_client, (small, large), "runs")


def test_page_shows_tables_sentences_and_chart(organizer_client):
    competition = _build(5)
    response = organizer_client.get(reverse("puzzles:analytics_runs", args=[competition.slug]))
    text = response.content.decode()
    assert "20 runs of 5 teams, 5 failed." in text
    assert "team04" in text and "runtime error" in text and "Kendall tau = " in text
    assert "for 0 of 5 teams (0%)" in text
    chart_url = reverse("puzzles:analytics_runs_chart", args=[competition.slug])
    assert chart_url in text
    chart = organizer_client.get(chart_url)
    assert chart["Content-Type"] == "image/svg+xml" and b"<svg" in chart.content
    detail = organizer_client.get(reverse("puzzles:competition", args=[competition.slug]))
    assert reverse("puzzles:analytics_runs", args=[competition.slug]) in detail.content.decode()


def test_empty_page_says_so(organizer_client, competition):
    response = organizer_client.get(reverse("puzzles:analytics_runs", args=[competition.slug]))
    assert response.status_code == 200 and "No runs yet" in response.content.decode()
    chart = organizer_client.get(reverse("puzzles:analytics_runs_chart", args=[competition.slug]))
    assert b"No runs" in chart.content


def test_exports(organizer_client):
    competition = _build(4)
    url = reverse("puzzles:analytics_runs_export", args=[competition.slug, "csv"])
    response = organizer_client.get(url)
    assert "selection.csv" in response["Content-Disposition"]
    lines = response.content.decode().splitlines()
    assert lines[0].startswith('"team","selected_run","selected_public"')
    assert len(lines) == 1 + 4
    xlsx = organizer_client.get(url.replace(".csv", ".xlsx"))
    rows = list(load_workbook(io.BytesIO(xlsx.content)).active.values)
    assert rows[0][0] == "team" and len(rows) == 5
    team0 = rows[1]
    # team00: runs 0-2 scored; public k/9, private ((2k) % 3)/9 -> best public run 2, best
    # private run 1 (private 2/9), selected run 0 (private 0)
    assert team0[:2] == ("team00", 0) and team0[4] == 2 and team0[6] == 1
    assert team0[9] == pytest.approx(2 / 9) and team0[10] == "no"
    assert organizer_client.get(url.replace(".csv", ".pdf")).status_code == 404


def test_jurors_get_403(client, juror):
    competition = _build(3)
    client.force_login(juror)
    for url in (
        reverse("puzzles:analytics_runs", args=[competition.slug]),
        reverse("puzzles:analytics_runs_chart", args=[competition.slug]),
        reverse("puzzles:analytics_runs_export", args=[competition.slug, "csv"]),
    ):
        assert client.get(url).status_code == 403, url
        assert client.post(url).status_code in (403, 405), url


def test_upload_post_redirect_get(organizer_client, competition):
    url = reverse("puzzles:analytics_runs", args=[competition.slug])
    upload = io.BytesIO(GOOD.encode())
    upload.name = "up.csv"
    response = organizer_client.post(url, {"file": upload}, follow=True)
    assert response.redirect_chain[-1][0] == url
    assert Run.objects.count() == 3 and "3 runs of 2 teams" in response.content.decode()
    bad = io.BytesIO((HEADER + "Nobody,1,2026-03-01,scored,,0.1,,0\n").encode())
    bad.name = "bad.csv"
    response = organizer_client.post(url, {"file": bad}, follow=True)
    assert response.redirect_chain[-1][0] == url
    text = response.content.decode()
    assert "bad.csv" in text and "Nobody" in text
    assert Run.objects.count() == 3


# --- demo --------------------------------------------------------------------------------


def test_demo_has_runs_and_loads_twice(demo_competition, organizer_client):
    from puzzles.demo import demo_competition_load

    runs = Run.objects.filter(system__competition=demo_competition)
    before = sorted(runs.values_list("system__name", "run_index", "public_score", "status"))
    demo_competition_load()
    assert sorted(runs.values_list("system__name", "run_index", "public_score", "status")) == before
    page = runs_page(demo_competition)
    teams = System.objects.filter(competition=demo_competition, oracle=False).count()
    assert len(page.teams) == teams and all(t.team.runs > 1 for t in page.teams)
    assert page.failed > 0 and len(page.families) >= 3 and len(page.days) > 1
    assert all(c.selected_run is not None for c in page.checks)
    assert page.correlation.spearman is not None and page.agreement.teams == teams
    assert any(c.private_gain_missed for c in page.checks)
    url = reverse("puzzles:analytics_runs", args=[demo_competition.slug])
    assert "Kendall tau = " in organizer_client.get(url).content.decode()


def test_ablation_runs_are_not_submissions(competition):
    _import(
        competition,
        ABLATION_HEADER
        + "Alpha,1,2026-03-01,scored,,0.5,,1,,,\n"
        + "Alpha,2,2026-03-01,scored,,0.9,,0,no language info,1,\n",
    )
    page = runs_page(competition)
    assert page.runs == 1
    (check,) = [c for c in page.checks if c.team == "Alpha"]
    assert (check.best_public_run, check.best_public) == (1, 0.5)

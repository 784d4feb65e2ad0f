"""The review service: figures against scipy and hand values, provisional state, degenerate
cases, a constant number of queries, the cache and its invalidation."""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from scipy import stats as sps

from grading.models import Assignment, Contestant, Mark
from grading.review import services
from grading.review.selectors import review_data, review_fingerprint
from grading.review.services import ordinal, review_build, review_cached
from grading.services import mark_revise
from puzzles.models import Competition
from tests.grading.review.builders import (
    CONTESTANT_SHARES,
    RUBRICS,
    external_score,
    review_competition,
    system_marks,
)

pytestmark = pytest.mark.django_db
D = Decimal
R = 200  # resamples: enough to exercise the intervals, quick


def _jury(marks: dict[int, dict[str, str]]) -> float:
    return float(sum(D(v) for by_code in marks.values() for v in by_code.values()))


def _expected_totals() -> dict[str, tuple[float, float]]:
    """System -> (automatic 0-100, jury total), by hand from the builder's rules."""
    totals = {"Computed": (100.0, 9.5)}
    for i in range(4):
        totals[f"Ext {i}"] = (external_score(i)[0] * 100, _jury(system_marks(i)))
    return totals


def test_figures_per_system_match_hand_values():
    built = review_competition()
    review = review_build(competition=built.competition, resamples=R)
    expected = _expected_totals()
    assert {s.system: s.auto_score for s in review.systems} == pytest.approx(
        {name: auto for name, (auto, _) in expected.items()}
    )
    assert {s.system: s.jury_total for s in review.systems} == {
        name: jury for name, (_, jury) in expected.items()
    }
    assert expected["Ext 3"][1] == 6.5  # the hand value the placements below rely on
    by_name = {s.system: s for s in review.systems}
    # Ranked by jury total, highest first; every system ranks the same under both here.
    assert [s.system for s in review.systems] == ["Computed", "Ext 3", "Ext 2", "Ext 1", "Ext 0"]
    assert [s.jury_rank for s in review.systems] == [1, 2, 3, 4, 5]
    assert [s.auto_rank for s in review.systems] == [1, 2, 3, 4, 5]
    # Thresholds gold 8, silver 6, bronze 4; contestants 0, 0.7, ..., 6.3.
    assert [s.medal for s in review.systems] == ["gold", "silver", "bronze", None, None]
    assert by_name["Ext 2"].equivalent_rank == 3  # 5.6 and 6.3 are higher than 5.5
    assert by_name["Ext 2"].placement_text == "3rd of 10"
    assert by_name["Ext 2"].percentile == pytest.approx(80.0)
    assert by_name["Ext 1"].equivalent_rank == 6  # 3.5 .. 6.3 are higher than 3.0
    assert by_name["Ext 1"].percentile == pytest.approx(50.0)
    assert by_name["Ext 0"].placement_text == "10th of 10"
    assert by_name["Computed"].placement_text == "1st of 10"
    # External figures are labelled; the computed ones are not; EM and chrF where known.
    assert [s.external for s in review.systems] == [False, True, True, True, True]
    assert by_name["Computed"].exact_match == pytest.approx(100.0)
    assert by_name["Computed"].chrf == pytest.approx(100.0)
    assert by_name["Ext 0"].exact_match is None
    # Per problem: problem 1 is worth 5 (2 + 3), problem 2 is worth 5 (4 + 1).
    assert by_name["Ext 3"].jury_by_problem == {1: 3.5, 2: 3.0}
    assert by_name["Ext 3"].auto_by_problem == pytest.approx({1: 46.0, 2: 41.0})
    assert review.jury_maximum == 10.0
    assert not review.provisional and review.unfinalized == ()


def test_correlation_matches_scipy_and_exact_permutation():
    built = review_competition()
    review = review_build(competition=built.competition, resamples=R)
    auto = [s.auto_score for s in review.systems]
    jury = [s.jury_total for s in review.systems]
    c = review.correlation
    assert c.n == 5 and c.resamples == 0  # five systems: exact p, Fisher intervals, no bootstrap
    assert c.spearman == pytest.approx(sps.spearmanr(auto, jury).statistic)
    assert c.pearson == pytest.approx(sps.pearsonr(auto, jury).statistic)
    assert c.kendall == pytest.approx(sps.kendalltau(auto, jury).statistic)
    # the same order under both (ranks 1-5 above): 2 of the 120 orderings are as extreme
    assert c.spearman == 1.0
    assert c.spearman_p == pytest.approx(2 / 120) and c.kendall_p == pytest.approx(2 / 120)
    assert c.spearman_p_method == "exact permutation, all 120 orderings"
    low, high = c.pearson_ci
    assert low <= c.pearson <= high and c.pearson_ci_method == "Fisher z"
    assert c.spearman_ci is None  # rho = 1: none, and the note says why
    assert "No interval for Spearman rho or Kendall tau: at exactly +1" in c.note
    assert review.ranges.jury == pytest.approx(9.0)
    assert review.ranges.auto == pytest.approx(90.0)
    # each on its own scale: 9 of the jury's 10 points, 90 of the automatic 100
    assert review.ranges.jury_share == pytest.approx(0.9)
    assert review.ranges.auto_share == pytest.approx(0.9)
    assert review.ranges.sentence == (
        "The jury's totals span 90% of its 10-point scale (9.0 points), "
        "the automatic scores 90% of theirs (0-100)."
    )
    sentence = review.correlation_sentence
    assert "Spearman rho = 1.00, p = 0.0167;" in sentence
    assert "(p-values by exact permutation, all 120 orderings)." in sentence
    assert "With n = 5 and no interval for rho, read its exact p-value" in sentence
    data = review.as_json()["correlation"]
    assert data["spearman_p"] == pytest.approx(0.016667)
    assert data["spearman_p_method"] == "exact permutation, all 120 orderings"
    assert data["pearson_ci_method"] == "Fisher z" and data["spearman_ci_method"] is None


def test_golden_paper_table_sentence_names_each_method():
    from grading.review.stats import correlate
    from tests.grading.review.stats.test_correlation import GOLDEN_AUTO, GOLDEN_JURY

    c = correlate(GOLDEN_AUTO, GOLDEN_JURY, names=("automatic scores", "jury totals"))
    assert services.correlation_sentence(c) == (
        "Over 5 systems, the jury's ranking and the automatic one agree with Spearman rho = "
        "1.00, p = 0.0167; Pearson r = 0.99 (95% interval 0.91 to 1.00, Fisher z), p = 0.0167; "
        "Kendall tau = 1.00, p = 0.0167 (p-values by exact permutation, all 120 orderings). "
        "With n = 5 and no interval for rho, read its exact p-value rather than the point value."
    )


def test_ranges_compare_shares_of_each_scale():
    # the issue's case: a 30-point jury spanning 19.5 points, automatic scores spanning 47.1
    # of 100; in points the jury's range looks smaller, as shares it is the wider one
    systems = tuple(
        services.SystemReview(
            system=name,
            tier="",
            external=False,
            auto_score=auto,
            exact_match=None,
            chrf=None,
            auto_by_problem={},
            jury_total=jury,
            jury_by_problem={},
            auto_rank=None,
            jury_rank=None,
            medal=None,
            equivalent_rank=None,
            percentile=None,
            contestants=0,
            papers={},
        )
        for name, auto, jury in [("A", 10.0, 5.0), ("B", 57.1, 24.5), ("C", 30.0, 12.0)]
    )
    ranges = services._ranges(systems, 30.0)
    assert ranges.jury_share == pytest.approx(19.5 / 30)  # 0.65
    assert ranges.auto_share == pytest.approx(47.1 / 100)
    assert ranges.sentence == (
        "The jury's totals span 65% of its 30-point scale (19.5 points), "
        "the automatic scores 47% of theirs (0-100)."
    )
    unscaled = services._ranges(systems, None)
    assert unscaled.jury_share is None
    assert unscaled.sentence == (
        "The jury's totals span 19.5 points (no scale set to compare with), "
        "the automatic scores 47% of theirs (0-100)."
    )


def test_each_problem_has_its_own_correlation_on_a_common_scale():
    built = review_competition()
    review = review_build(competition=built.competition, resamples=R)
    assert [p.problem for p in review.problem_correlations] == [1, 2]
    for p in review.problem_correlations:
        auto = [s.auto_by_problem[p.problem] for s in review.systems]
        maximum = next(x.maximum for x in review.problems if x.number == p.problem)
        jury = [s.jury_by_problem[p.problem] / maximum * 100 for s in review.systems]
        assert p.correlation.n == 5
        assert p.correlation.spearman == pytest.approx(sps.spearmanr(auto, jury).statistic)
        assert p.correlation.pearson == pytest.approx(sps.pearsonr(auto, jury).statistic)
    data = review.as_json()
    assert set(data["correlation_by_problem"]) == {"1", "2"}
    assert data["correlation_by_problem"]["1"]["n"] == 5


def test_divergences_are_on_a_common_scale_and_link_to_the_sheet():
    built = review_competition()
    review = review_build(competition=built.competition, resamples=R)
    first = review.divergent_papers[0]
    # Ext 2 on problem 2: automatic 29, jury 3 of 5 = 60.
    assert (first.system, first.problem) == ("Ext 2", 2)
    assert (first.auto, first.jury, first.difference) == pytest.approx((29.0, 60.0, -31.0))
    assert first.url == f"/c/rv/jury/problems/2/sheet/#paper-{first.paper}"
    differences = [abs(d.difference) for d in review.divergent_papers]
    assert differences == sorted(differences, reverse=True)
    assert len(review.divergences) == 10  # 5 systems x 2 problems


def test_criterion_difficulty_uses_models_final_marks_and_contestants_shares():
    built = review_competition()
    review = review_build(competition=built.competition, resamples=R)
    marks = [{1: {"1a": "2", "1b": "3"}, 2: {"2a": "4", "2b": "0.5"}}]
    marks += [system_marks(i) for i in range(4)]
    maxima = {code: D(str(m)) for criteria in RUBRICS.values() for code, m, _ in criteria}
    models = {
        f"P{code[0]}.{code}": float(
            sum(D(m[int(code[0])][code]) / maxima[code] for m in marks) / len(marks)
        )
        for code in maxima
    }
    humans = {
        f"P{code[0]}.{code}": 4.5 * k / float(maxima[code]) for code, k in CONTESTANT_SHARES.items()
    }
    assert {p.criterion: p.models for p in review.criteria} == pytest.approx(models)
    assert {p.criterion: p.humans for p in review.criteria} == pytest.approx(humans)
    d = review.difficulty
    labels = sorted(models)
    assert d.n == 4
    assert d.spearman == pytest.approx(
        sps.spearmanr([models[x] for x in labels], [humans[x] for x in labels]).statistic
    )
    # P1.1a: models 0.5, contestants 0.225, more than the 0.25 margin apart.
    assert [g.code for g in d.harder_for_humans] == ["P1.1a"]


def test_criterion_fractions_are_exact_means():
    built = review_competition()
    data = review_data(built.competition)
    marks = [{1: {"1a": "2", "1b": "3"}, 2: {"2a": "4", "2b": "0.5"}}]
    marks += [system_marks(i) for i in range(4)]
    maxima = {code: Fraction(m) for criteria in RUBRICS.values() for code, m, _ in criteria}
    models = {
        f"P{code[0]}.{code}": sum(Fraction(m[int(code[0])][code]) for m in marks)
        / len(marks)
        / maxima[code]
        for code in maxima
    }
    assert data.model_fractions == models  # exact: Fractions, not float sums
    # the contestants' means by hand (builders.py): 0.45 of 2, 0.9 of 3, 1.35 of 4, 0.45 of 1
    assert data.human_fractions == {
        "P1.1a": Fraction(9, 40),
        "P1.1b": Fraction(3, 10),
        "P2.2a": Fraction(27, 80),
        "P2.2b": Fraction(9, 20),
    }


def test_provisional_before_finalization_and_not_after():
    built = review_competition(finalize=False)
    paper = built.systems[1].papers.get(problem=built.problems[2])
    first, second = Assignment.objects.filter(paper=paper).order_by("pk")
    criterion = paper.problem.rubrics.get().criteria.get(code="2a")
    mark_revise(assignment=first, criterion=criterion, points="1", reason="second look")
    # Ext 0 had 0 on 2a from both; now 1 and 0: a discrepancy, counted at their mean 0.5
    # rounded half up to the step 1 -> 1.
    review = review_build(competition=built.competition, resamples=R)
    assert review.provisional and review.unfinalized == (1, 2)
    ext0 = next(s for s in review.systems if s.system == "Ext 0")
    assert ext0.jury_by_problem[2] == 1.0
    assert review.provisional_sentence.startswith("Provisional: problems 1, 2 are not finalized")
    assert any(n.startswith("1 cell not agreed yet counts the mean") for n in review.notes)
    data = review.as_json()
    assert data["provisional"] is True and data["unfinalized_problems"] == [1, 2]
    assert data["provisional_note"] == review.provisional_sentence
    mark_revise(assignment=first, criterion=criterion, points="0", reason="agreed after all")
    for problem in built.problems.values():
        from grading.services import problem_finalize

        problem_finalize(problem=problem, chair=built.chair)
    review = review_build(competition=built.competition, resamples=R)
    assert not review.provisional and review.as_json()["provisional"] is False
    assert review.provisional_sentence == ""
    assert review.as_json()["provisional_note"] is None


def test_a_cell_without_marks_leaves_the_system_without_a_total():
    built = review_competition(finalize=False)
    paper = built.systems[2].papers.get(problem=built.problems[1])
    Mark.objects.filter(assignment__paper=paper, criterion__code="1a").update(points=None)
    review = review_build(competition=built.competition, resamples=R)
    ext1 = next(s for s in review.systems if s.system == "Ext 1")
    assert ext1.jury_total is None and ext1.jury_by_problem[1] is None
    assert ext1.medal is None and ext1.equivalent_rank is None
    assert review.correlation.n == 4 and review.correlation.dropped == 1
    assert any(paper.code in n and "no jury total yet" in n for n in review.notes)


def test_fewer_than_three_systems_no_contestants_no_thresholds_give_sentences():
    built = review_competition(externals=1, contestants=False, thresholds=False)
    review = review_build(competition=built.competition, resamples=R)
    assert review.correlation.spearman is None
    assert "a correlation needs at least 3" in review.correlation.note
    assert review.correlation_sentence == review.correlation.note
    assert all(s.medal is None and s.equivalent_rank is None for s in review.systems)
    notes = " ".join(review.notes)
    assert "No medal thresholds are set" in notes
    assert "No contestant totals have been imported" in notes
    assert "criterion difficulty cannot be compared" in notes
    assert review.difficulty.spearman is None and review.difficulty.note
    data = review.as_json()
    assert data["correlation"]["spearman"] is None and data["correlation"]["note"]
    json.dumps(data)  # plain JSON all the way down


def test_thresholds_alone_give_medals_without_contestants():
    built = review_competition(contestants=False)
    review = review_build(competition=built.competition, resamples=R)
    assert [s.medal for s in review.systems][:3] == ["gold", "silver", "bronze"]
    assert all(s.equivalent_rank is None and s.percentile is None for s in review.systems)
    assert any("medals from the thresholds alone" in n for n in review.notes)


def test_no_selected_system():
    competition = Competition.objects.create(slug="empty", name="Empty")
    review = review_build(competition=competition, resamples=R)
    assert review.systems == () and review.divergent_papers == ()
    assert "No system has been selected for the jury yet." in review.notes
    assert review.ranges.sentence.startswith("Ranges need at least two systems")
    assert not review.provisional


def test_json_has_the_issue_keys():
    built = review_competition()
    data = review_build(competition=built.competition, resamples=R).as_json()
    for key in ("systems", "correlation", "ranges", "criterion_difficulty", "agreement"):
        assert key in data
    assert set(data["systems"][0]) >= {
        "system",
        "auto_score",
        "jury_total",
        "medal",
        "equivalent_rank",
        "percentile",
        "external",
    }
    assert set(data["correlation"]) >= {
        "n",
        "spearman",
        "spearman_p",
        "spearman_ci",
        "pearson",
        "pearson_p",
        "pearson_ci",
        "kendall",
        "kendall_p",
    }
    assert set(data["ranges"]) >= {"jury", "auto"}
    assert set(data["criterion_difficulty"]) >= {"n", "spearman", "spearman_p", "criteria"}
    assert [a["problem"] for a in data["agreement"]] == [1, 2]
    for problem in data["agreement"]:
        assert set(problem) >= {"alpha", "icc", "discrepancy_rate", "jurors"}
        assert all(set(j) >= {"name", "effect", "sentence"} for j in problem["jurors"])
    assert set(data["observations"]) >= {"tags", "by_system", "by_problem"}
    assert data["systems"][0]["system"] == "Computed" and data["systems"][0]["medal"] == "gold"
    assert data["systems"][1]["external"] is True
    assert json.loads(json.dumps(data)) == data


def test_the_same_number_of_queries_for_3_and_6_systems():
    counts = []
    for slug, externals in (("three", 2), ("six", 5)):
        built = review_competition(slug=slug, externals=externals)
        with CaptureQueriesContext(connection) as queries:
            data = review_data(built.competition)
        assert len(data.systems) == externals + 1
        counts.append(len(queries))
    assert counts[0] == counts[1]
    assert counts[0] <= 20
    with CaptureQueriesContext(connection) as queries:
        review_fingerprint(built.competition)
    assert len(queries) == 1


def test_cache_hit_and_invalidation(monkeypatch):
    built = review_competition()
    first = review_cached(competition=built.competition, resamples=R)
    assert first.charts.scatter.startswith("<svg")
    calls = []
    real = services.review_build
    monkeypatch.setattr(services, "review_build", lambda **kw: calls.append(kw) or real(**kw))
    with CaptureQueriesContext(connection) as queries:
        again = review_cached(competition=built.competition, resamples=R)
    assert len(queries) == 1  # the fingerprint only
    assert calls == [] and again.review == first.review and again.charts == first.charts

    # A juror revises a mark: the review is built again and shows it.
    paper = built.systems[1].papers.get(problem=built.problems[1])
    criterion = paper.problem.rubrics.get().criteria.get(code="1a")
    from grading.services import problem_reopen

    problem_reopen(problem=paper.problem, chair=built.chair)
    for assignment in Assignment.objects.filter(paper=paper):
        mark_revise(assignment=assignment, criterion=criterion, points="2", reason="recount")
    changed = review_cached(competition=built.competition, resamples=R)
    assert len(calls) == 1
    ext0 = next(s for s in changed.review.systems if s.system == "Ext 0")
    assert ext0.jury_total == 2.5 and changed.review.provisional

    # Thresholds and contestants are part of the key too.
    before = review_fingerprint(built.competition)
    Competition.objects.filter(pk=built.competition.pk).update(gold_threshold=D(9))
    after_thresholds = review_fingerprint(built.competition)
    Contestant.objects.filter(competition=built.competition).first().delete()
    after_contestants = review_fingerprint(built.competition)
    assert len({before, after_thresholds, after_contestants}) == 3


def test_ordinals():
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111, 255)] == [
        "1st",
        "2nd",
        "3rd",
        "4th",
        "11th",
        "12th",
        "13th",
        "21st",
        "22nd",
        "101st",
        "111th",
        "255th",
    ]


def test_rescoring_and_answer_key_changes_move_the_fingerprint():
    from puzzles.services import competition_rescore

    built = review_competition(externals=1)
    before = review_fingerprint(built.competition)
    competition_rescore(competition=built.competition)  # new scores: outputs' updated_at moves
    rescored = review_fingerprint(built.competition)
    task = built.problems[1].tasks.get()
    task.weight = 2.0
    task.save()  # the tasks' history moves
    reweighted = review_fingerprint(built.competition)
    assert len({before, rescored, reweighted}) == 3


def test_observation_tags_move_the_fingerprint_and_reach_the_review():
    from grading.models import ObservationTag, PaperTag

    built = review_competition()
    before = review_fingerprint(built.competition)
    tag = ObservationTag.objects.create(competition=built.competition, name="Hallucinated rule")
    assignment = Assignment.objects.filter(
        paper__problem__competition=built.competition, submitted_at__isnull=False
    ).first()
    PaperTag.objects.create(assignment=assignment, tag=tag)
    assert review_fingerprint(built.competition) != before
    review = review_cached(competition=built.competition, resamples=R, with_charts=False).review
    totals = {c.tag: c.count for c in review.observations.totals}
    assert totals["Hallucinated rule"] == 1


def test_edits_in_place_move_the_fingerprint_and_reach_the_review():
    """What no count or latest id shows: a rename, a step edited in place, one contestant's
    points changed, a tag renamed. Each is printed by the review, so each must rebuild it."""
    from grading.models import ContestantPoints, Criterion, ObservationTag
    from puzzles.models import System

    built = review_competition()
    ObservationTag.objects.create(competition=built.competition, name="Hallucinated rule")
    seen = {review_fingerprint(built.competition)}

    def moved() -> bool:
        fingerprint = review_fingerprint(built.competition)
        new = fingerprint not in seen
        seen.add(fingerprint)
        return new

    System.objects.filter(pk=built.systems[1].pk).update(name="Ext zero")
    assert moved()
    cached = review_cached(competition=built.competition, resamples=R, with_charts=False)
    assert "Ext zero" in {s.system for s in cached.review.systems}
    System.objects.filter(pk=built.systems[1].pk).update(tier=System.Tier.OPEN)
    assert moved()
    criterion = Criterion.objects.filter(rubric__problem=built.problems[1], code="1a").get()
    Criterion.objects.filter(pk=criterion.pk).update(step=D("0.25"))
    assert moved()
    Criterion.objects.filter(pk=criterion.pk).update(title="Renamed criterion")
    assert moved()
    points = ContestantPoints.objects.filter(contestant__competition=built.competition).first()
    ContestantPoints.objects.filter(pk=points.pk).update(points=points.points + 1)
    assert moved()
    contestant = Contestant.objects.filter(competition=built.competition).first()
    Contestant.objects.filter(pk=contestant.pk).update(total=contestant.total + 1)
    assert moved()
    ObservationTag.objects.filter(competition=built.competition).update(name="Invented a rule")
    assert moved()
    type(built.problems[1]).objects.filter(pk=built.problems[1].pk).update(title="Renamed")
    assert moved()
    # Nothing changed: the same fingerprint, so the cache still answers.
    assert not moved()


def test_per_problem_intervals_stop_above_the_limit(monkeypatch):
    from grading.review.stats import correlation

    # Five systems get exact p-values and Fisher intervals, no bootstrap: treat them as many
    # for the bootstrap, then put the per-problem limit below them.
    monkeypatch.setattr(correlation, "EXACT_UP_TO", 4)
    built = review_competition()
    review = review_build(competition=built.competition, resamples=R)
    assert review.problem_intervals and review.problem_intervals_note == ""
    assert all(p.correlation.resamples == R for p in review.problem_correlations)
    monkeypatch.setattr(services, "PROBLEM_INTERVALS_UP_TO", len(review.systems) - 1)
    fewer = review_build(competition=built.competition, resamples=R)
    assert not fewer.problem_intervals
    assert fewer.problem_intervals_note.startswith(
        "Bootstrap intervals of Spearman and Kendall per problem are drawn up to "
        f"{len(review.systems) - 1} systems; over {len(review.systems)}"
    )
    for before, after in zip(review.problem_correlations, fewer.problem_correlations, strict=True):
        assert after.correlation.resamples == 0 and after.correlation.kendall_ci is None
        assert after.correlation.pearson_ci == before.correlation.pearson_ci  # Fisher's
        assert after.correlation.spearman == before.correlation.spearman
        assert after.correlation.spearman_p == before.correlation.spearman_p
    assert fewer.correlation == review.correlation  # the overall keeps its interval

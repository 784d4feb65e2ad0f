"""What the demo gives the result review: a finalized problem, contestants, an external system."""

from __future__ import annotations

import io
from collections import Counter
from decimal import Decimal

import pytest
from django.core.management import call_command

from grading.contestants import contestant_criterion_shares, contestant_totals
from grading.demo import FINALIZED, SELECTED, contestants_csv
from grading.models import (
    Assignment,
    Contestant,
    ContestantPoints,
    DiscussionComment,
    Mark,
    Paper,
    PaperTag,
    ProblemJury,
    Resolution,
)
from grading.selectors import comparison_sheet, final_totals, jury_scale, rubric_criteria
from puzzles.demo import DEMO_SLUG, EXTERNAL_SYSTEM
from puzzles.models import Competition, ExternalScore, Output, System
from puzzles.selectors import system_auto_scores

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo():
    call_command("demo", stdout=io.StringIO())
    return Competition.objects.get(slug=DEMO_SLUG)


def test_one_problem_is_finalized_by_the_chair(demo):
    juries = {j.problem.number: j for j in ProblemJury.objects.select_related("problem")}
    assert juries[FINALIZED].finalized_at is not None
    assert juries[FINALIZED].finalized_by.username == "chair"
    finalized = [n for n, j in juries.items() if j.finalized_at is not None]
    assert finalized == [FINALIZED]
    # Problem 2 stays ungraded: the browser test of the jury's flow grades it.
    assert not Mark.objects.filter(assignment__paper__problem__number=2).exists()


def test_every_paper_of_the_finalized_problem_has_two_submitted_jurors(demo):
    problem = demo.problems.get(number=FINALIZED)
    papers = Paper.objects.filter(problem=problem)
    assert papers.count() == len(SELECTED)
    criteria = rubric_criteria(problem)
    for paper in papers:
        assignments = Assignment.objects.filter(paper=paper)
        assert assignments.count() == 2
        assert all(a.submitted_at for a in assignments)
        for assignment in assignments:
            assert assignment.marks.filter(points__isnull=False).count() == len(criteria)
    _, rows = comparison_sheet(problem)
    assert all(cell.state.resolved for row in rows for cell in row.cells)


def test_a_discrepancy_was_decided_by_the_chair_and_another_revised(demo):
    decided = Resolution.objects.get(paper__problem__number=FINALIZED)
    assert decided.kind == Resolution.Kind.CHAIR and decided.decided_by.username == "chair"
    assert decided.reason
    marks = Mark.objects.filter(
        assignment__paper=decided.paper, criterion=decided.criterion
    ).values_list("points", flat=True)
    assert len(set(marks)) == 2  # the jurors disagreed, the chair settled it
    assert DiscussionComment.objects.filter(paper=decided.paper).exists()
    revised = [
        m
        for m in Mark.objects.filter(assignment__paper__problem__number=FINALIZED)
        if m.history.filter(history_change_reason__startswith="After discussion").exists()
    ]
    assert len(revised) == 1
    assert PaperTag.objects.filter(assignment__paper__problem__number=FINALIZED).exists()


def test_the_finalized_problem_gives_every_selected_system_a_total(demo):
    totals = {t.system: t.by_problem[FINALIZED] for t in final_totals(demo)}
    assert set(totals) == set(SELECTED)
    assert all(v is not None for v in totals.values())
    assert len(set(totals.values())) >= 3  # spread enough to correlate with the scores


def test_the_demo_has_sixty_invented_contestants_with_criterion_points(demo):
    contestants = list(Contestant.objects.filter(competition=demo))
    assert len(contestants) == 60
    assert all(c.code.startswith("H") for c in contestants)
    points = Counter()
    for contestant_id, value in ContestantPoints.objects.values_list("contestant_id", "points"):
        points[contestant_id] += value
    assert all(points[c.pk] == c.total for c in contestants)
    maximum = sum((c.maximum for p in demo.problems.all() for c in rubric_criteria(p)), Decimal(0))
    assert jury_scale(demo).points == maximum == 30 and demo.jury_scale is None
    assert all(0 <= c.total <= maximum for c in contestants)
    finalized_codes = {c.code for c in rubric_criteria(demo.problems.get(number=FINALIZED))}
    shares = {s.code: s for s in contestant_criterion_shares(demo)}
    assert finalized_codes <= set(shares)
    assert all(shares[code].n == 60 for code in finalized_codes)


def test_the_thresholds_fit_the_contestants(demo):
    thresholds = [
        demo.gold_threshold,
        demo.silver_threshold,
        demo.bronze_threshold,
        demo.honourable_mention_threshold,
    ]
    assert thresholds == sorted(thresholds, reverse=True)
    assert thresholds[0] <= jury_scale(demo).points
    totals = contestant_totals(demo)
    above = [sum(t >= threshold for t in totals) for threshold in thresholds]
    assert 0 < above[0] < above[1] < above[2] < above[3] < len(totals)


def test_the_contestants_file_is_the_same_every_time():
    assert contestants_csv() == contestants_csv()
    lines = contestants_csv().splitlines()
    assert lines[0] == "contestant,problem,criterion,points,total"
    assert len(lines) == 1 + 60 * 11


def test_the_external_system_has_imported_scores_and_no_outputs(demo):
    system = System.objects.get(competition=demo, name=EXTERNAL_SYSTEM)
    assert system.external
    assert not Output.objects.filter(system=system).exists()
    scores = ExternalScore.objects.filter(system=system)
    assert scores.filter(problem__isnull=True).count() == 1
    assert scores.filter(problem__isnull=False).count() == demo.problems.count()
    auto = {a.system: a for a in system_auto_scores(demo)}
    assert auto[EXTERNAL_SYSTEM].source == "external"
    assert auto[EXTERNAL_SYSTEM].overall.score == pytest.approx(0.71)


def _state():
    return {
        "contestants": sorted(Contestant.objects.values_list("pk", "code", "total")),
        "points": ContestantPoints.objects.count(),
        "external": sorted(ExternalScore.objects.values_list("pk", "score")),
        "systems": System.objects.count(),
        "resolutions": sorted(Resolution.objects.values_list("pk", "points")),
        "juries": sorted(ProblemJury.objects.values_list("pk", "finalized_at")),
        "marks": sorted(Mark.objects.values_list("pk", "points")),
        "thresholds": list(
            Competition.objects.values_list(
                "jury_scale",
                "gold_threshold",
                "silver_threshold",
                "bronze_threshold",
                "honourable_mention_threshold",
            )
        ),
    }


def test_running_the_demo_again_changes_none_of_it(demo):
    before = _state()
    call_command("demo", stdout=io.StringIO())
    assert _state() == before


def test_thresholds_an_organizer_set_survive_a_new_run(demo):
    Competition.objects.filter(pk=demo.pk).update(gold_threshold=28, silver_threshold=20)
    call_command("demo", stdout=io.StringIO())
    demo.refresh_from_db()
    assert (demo.gold_threshold, demo.silver_threshold) == (28, 20)

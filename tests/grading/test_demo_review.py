"""What the demo gives the result review: a finalized problem, two problems partly graded
(every paper by at least one juror, some papers left open), contestants, an external system."""

from __future__ import annotations

import io
from collections import Counter
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.urls import reverse

from grading.consensus import DISCREPANT
from grading.demo import DRAFT, FINALIZED, IN_PROGRESS, SELECTED, SUBMITTED_BY, contestants_csv
from grading.models import (
    Assignment,
    Contestant,
    ContestantPoints,
    DiscussionComment,
    Mark,
    PairsSeen,
    Paper,
    PaperTag,
    ProblemJury,
    Resolution,
)
from grading.review.build import review_build
from grading.selectors import (
    comparison_sheet,
    contestant_criterion_shares,
    contestant_totals,
    final_totals,
    jury_scale,
    rubric_criteria,
)
from grading.services import (
    mark_save,
    rubric_current,
    rubric_replace,
    rubric_specs,
    rubrics_export,
)
from puzzles.demo import EXTERNAL_SYSTEM
from puzzles.models import Competition, ExternalScore, Output, System
from puzzles.selectors import system_auto_scores

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo(demo):
    """The demo's competition (from the shared `demo` fixture of tests/conftest.py)."""
    return demo.competition


def test_one_problem_is_finalized_by_the_chair(demo):
    juries = {j.problem.number: j for j in ProblemJury.objects.select_related("problem")}
    assert juries[FINALIZED].finalized_at is not None
    assert juries[FINALIZED].finalized_by.username == "chair"
    finalized = [n for n, j in juries.items() if j.finalized_at is not None]
    assert finalized == [FINALIZED]


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
        "marks": sorted(Mark.objects.values_list("pk", "points", "comment")),
        "submitted": sorted(Assignment.objects.values_list("pk", "submitted_at")),
        "threads": sorted(DiscussionComment.objects.values_list("pk", "text")),
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


# --- the review out of the box (issue 19, section 7) ----------------------------------------


def test_the_review_has_totals_medals_difficulty_and_agreement(demo):
    review = review_build(competition=demo, resamples=200)
    assert review.provisional and set(review.unfinalized) == set(IN_PROGRESS)
    assert review.correlation.n == len(SELECTED)
    assert review.correlation.spearman is not None
    medals = {s.system: s.medal for s in review.systems}
    assert medals == {
        "Frontier-A": "gold",
        "Frontier-B": "silver",
        "Team Lexicon": "bronze",
        "OpenModel-7B": None,
    }
    criteria = sum(len(rubric_criteria(p)) for p in demo.problems.all())
    assert review.difficulty.n == criteria and review.difficulty.spearman is not None
    alphas = {a.problem: a.alpha.value for a in review.agreement}
    assert set(alphas) == {1, 2, 3} and all(v is not None for v in alphas.values())


def test_jurors_still_have_papers_to_grade_and_the_demo_left_a_draft(demo):
    open_papers = Assignment.objects.filter(
        paper__problem__competition=demo, submitted_at__isnull=True
    )
    assert set(open_papers.values_list("juror__username", flat=True)) == {
        "juror1",
        "juror2",
        "juror3",
    }
    # Every paper has a submitted juror: the totals above need no more grading.
    for paper in Paper.objects.filter(problem__competition=demo):
        assert paper.assignments.filter(submitted_at__isnull=False).exists(), paper.code
    number, system, juror, code, points, _comment = DRAFT
    draft = Mark.objects.get(
        assignment__paper__problem__number=number,
        assignment__paper__system__name=system,
        assignment__juror__username=juror,
    )
    assert draft.criterion.code == code and draft.points == Decimal(points)
    assert draft.assignment.submitted_at is None


def test_a_discrepancy_in_progress_is_decided_and_another_is_under_discussion(demo):
    decided = Resolution.objects.get(paper__problem__number=1)
    assert decided.kind == Resolution.Kind.CHAIR and decided.paper.system.name == "Frontier-B"
    thread = DiscussionComment.objects.get(paper__problem__number=1)
    assert thread.paper.system.name == "Frontier-A"
    _, rows = comparison_sheet(demo.problems.get(number=1))
    open_cells = [c for r in rows for c in r.cells if c.state.status == DISCREPANT]
    assert len(open_cells) == 1


def test_the_chair_and_the_organizer_read_the_review_and_no_juror_does(demo, client):
    url = reverse("grading:review", args=[demo.slug])
    status = {}
    for user in get_user_model().objects.all():
        client.force_login(user)
        status[user.username] = client.get(url).status_code
    assert status == {
        "organizer": 200,
        "chair": 200,
        "juror1": 403,
        "juror2": 403,
        "juror3": 403,
        "juror4": 403,
    }


def test_a_second_run_keeps_a_jurors_own_marks_on_an_open_paper(demo):
    number, system, juror, code, _points, _comment = DRAFT
    mine = Assignment.objects.get(
        paper__problem__number=number, paper__system__name=system, juror__username=juror
    )
    criteria = list(rubric_current(mine.paper.problem).criteria.order_by("order"))
    for criterion in criteria:
        mark_save(assignment=mine, criterion=criterion, points=criterion.step, comment="mine")
    # juror2's open paper of problem 1: the demo grades none of it, even on a second run.
    (number2, system2) = next(
        key for key, jurors in SUBMITTED_BY.items() if key[0] == 1 and "juror2" not in jurors
    )
    other = Assignment.objects.get(
        paper__problem__number=number2, paper__system__name=system2, juror__username="juror2"
    )
    first = criteria[0]
    mark_save(assignment=other, criterion=first, points=first.maximum, comment="")
    before = _state()
    call_command("demo", stdout=io.StringIO())
    assert _state() == before
    mine.refresh_from_db()
    other.refresh_from_db()
    assert mine.submitted_at is None and other.submitted_at is None
    assert set(mine.marks.values_list("comment", flat=True)) == {"mine"}
    assert other.marks.count() == 1


# --- a second run and what an organizer or the chair did meanwhile --------------------------


def test_thresholds_an_organizer_set_above_the_scale_stay(demo):
    # An older demo database (thresholds out of 60) or an organizer's choice: not the demo's.
    Competition.objects.filter(pk=demo.pk).update(gold_threshold=40, silver_threshold=35)
    call_command("demo", stdout=io.StringIO())
    demo.refresh_from_db()
    assert (demo.gold_threshold, demo.silver_threshold) == (40, 35)
    assert jury_scale(demo).above  # the scale's warning says so on every page


def test_a_rubric_edit_that_left_the_thresholds_above_the_scale_does_not_break_the_demo(demo):
    # An organizer lowers problem 1's criteria to 0.5 points each: the scale drops to 22,
    # below the demo's gold threshold (24), which the rubric change leaves as it was.
    problem = demo.problems.get(number=1)
    criteria = rubrics_export(demo)["problems"][0]["criteria"]
    lowered = [{**c, "maximum": 0.5, "step": 0.5} for c in criteria]
    rubric_replace(
        problem=problem,
        specs=rubric_specs(problem=problem, criteria=lowered, where="test"),
        new_version=True,
    )
    assert jury_scale(demo).points == 22
    before = _state()
    call_command("demo", stdout=io.StringIO())
    assert _state() == before
    demo.refresh_from_db()
    assert demo.gold_threshold == 24 and jury_scale(demo).above


def test_a_second_run_after_the_chair_read_the_review_changes_nothing(demo, client):
    chair = get_user_model().objects.get(username="chair")
    client.force_login(chair)
    assert client.get(reverse("grading:review", args=[demo.slug])).status_code == 200
    assert PairsSeen.objects.filter(user=chair, competition=demo).exists()
    before = _state()
    seen = list(PairsSeen.objects.values_list("pk", "user_id", "confirmed_at"))
    call_command("demo", stdout=io.StringIO())
    assert _state() == before
    assert list(PairsSeen.objects.values_list("pk", "user_id", "confirmed_at")) == seen

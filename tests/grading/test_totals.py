"""Final totals per system: finalized problems only (or provisional), problems not graded."""

from __future__ import annotations

from decimal import Decimal

import pytest

from grading.selectors import final_totals, jury_scale, totals_page
from grading.services import problem_finalize
from tests.grading.factories import (
    ChairFactory,
    JurorFactory,
    PaperFactory,
    paper_graded,
    rubric_with,
)
from tests.puzzles.factories import CompetitionFactory, ProblemFactory, SystemFactory

pytestmark = pytest.mark.django_db
D = Decimal


@pytest.fixture
def board(db):
    competition = CompetitionFactory(slug="totals")
    one, two = (ProblemFactory(competition=competition, number=n) for n in (1, 2))
    ProblemFactory(competition=competition, number=3)  # not given to the jury: no paper
    rubric_with(one, ("1a", 2, 1))
    rubric_with(two, ("2a", 3, 1))
    jurors = [JurorFactory(), JurorFactory()]
    points = {"Abc": ("0", "0"), "Zed": ("2", "3"), "mid": ("1", "1")}
    for name, (p1, p2) in points.items():
        system = SystemFactory(competition=competition, name=name)
        for problem, code, value in ((one, "1a", p1), (two, "2a", p2)):
            paper = PaperFactory(problem=problem, system=system)
            paper_graded(paper, {j: {code: value} for j in jurors})
    chair = ChairFactory()
    problem_finalize(problem=one, chair=chair)
    return competition, two, chair


def test_totals_wait_for_every_graded_problem_to_be_finalized(board):
    competition, two, chair = board
    totals = final_totals(competition)
    assert {t.system: (t.by_problem, t.total) for t in totals} == {
        "Zed": ({1: D(2), 2: None, 3: None}, None),
        "mid": ({1: D(1), 2: None, 3: None}, None),
        "Abc": ({1: D(0), 2: None, 3: None}, None),
    }
    provisional = {t.system: t.total for t in final_totals(competition, finalized_only=False)}
    assert provisional == {"Zed": D(5), "mid": D(2), "Abc": D(0)}
    problem_finalize(problem=two, chair=chair)
    totals = final_totals(competition)
    # Problem 3 has no paper: it neither counts nor blocks; a real 0 ranks as a total.
    assert [(t.system, t.total) for t in totals] == [("Zed", D(5)), ("mid", D(2)), ("Abc", D(0))]


def test_a_zero_total_ranks_above_totals_not_final(board):
    competition, _, _ = board
    unfinished = SystemFactory(competition=competition, name="Aaa")
    PaperFactory(problem=competition.problems.get(number=1), system=unfinished)
    totals = final_totals(competition, finalized_only=False)
    assert [t.system for t in totals] == ["Zed", "mid", "Abc", "Aaa"]
    assert totals[-1].total is None


def test_totals_carry_the_system_id(board):
    competition, _, _ = board
    ids = dict(competition.systems.values_list("name", "pk"))
    assert {t.system: t.system_id for t in final_totals(competition)} == ids


def test_out_of_is_the_rubrics_sum_and_a_problem_without_one_is_named(board):
    competition, _, _ = board
    scale = jury_scale(competition)
    assert (scale.points, scale.rubric_total, scale.missing) == (D(5), D(5), (3,))
    assert scale.warnings == (
        "Problem 3 has no rubric yet: the scale, the sum of the rubrics' maxima, grows when it "
        "gets one.",
    )


def test_out_of_is_an_organizers_scale_and_a_disagreement_is_said(board):
    competition, _, _ = board
    rubric_with(competition.problems.get(number=3), ("3a", 4, 1), ("3b", "1.5", "0.5"))
    scale = jury_scale(competition)
    assert (scale.points, scale.rubric_total, scale.missing) == (D("10.5"), D("10.5"), ())
    assert scale.warnings == ()
    competition.jury_scale = D(100)
    competition.save()
    assert jury_scale(competition).warnings == (
        "The rubrics add up to 10.5 points but the scale, set by an organizer, is 100: no total "
        "can reach it; set it to the rubrics' sum (competition page or set_scale "
        "--from-rubrics) unless that is meant.",
    )


def test_totals_page_says_what_totals_are_out_of(board, client):
    from django.urls import reverse

    from tests.grading.factories import OrganizerFactory

    competition, _, _ = board
    rubric_with(competition.problems.get(number=3), ("3a", 5, 1))
    client.force_login(OrganizerFactory())
    response = client.get(reverse("grading:totals", args=[competition.slug]))
    html = response.content.decode()
    assert response.status_code == 200
    assert "Total / 10" in html and "Total / 100" not in html
    assert "the sum of the rubrics&#x27; maxima" in html
    assert 'class="error"' not in html
    page = totals_page(competition, provisional=True)
    assert page.columns == 3 + 3

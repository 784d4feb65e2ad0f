"""Juror agreement per problem: hand-checked discrepancy rate, alpha and ICC on shares of each
criterion's maximum equal to the pure statistics (and the krippendorff package) on the same
marks, intervals over papers, juror severity by hand, drafts left out, queries."""

from __future__ import annotations

import io
import json
from decimal import Decimal

import krippendorff
import numpy as np
import pytest
from django.db import connection
from django.template.loader import render_to_string
from django.test.utils import CaptureQueriesContext

from grading.models import Assignment, Criterion
from grading.review.agreement import problem_agreement
from grading.review.stats import icc, icc_2k, krippendorff_alpha_interval
from grading.services import (
    criterion_decide,
    mark_revise,
    marks_import,
    problem_finalize,
    problem_reopen,
)
from tests.grading.factories import (
    ChairFactory,
    JurorFactory,
    PaperFactory,
    ProblemJuryFactory,
    paper_graded,
    rubric_with,
)
from tests.puzzles.factories import CompetitionFactory, ProblemFactory, SystemFactory

pytestmark = pytest.mark.django_db
D = Decimal
RESAMPLES = 200

# Problem 1: two jurors, four papers, criteria a (0-2, step 0.5) and b (0-3, step 1).
# Tolerance 0: paper 2's a (1 against 0) and paper 3's b (1 against 0) are discrepant.
MARKS = [
    # (first juror's a, b), (second juror's a, b)
    (("2", "3"), ("2", "3")),
    (("1", "2"), ("0", "2")),
    (("1.5", "1"), ("1.5", "0")),
    (("0.5", "0"), ("0.5", "0")),
]
UNITS = {  # the marks as submitted, per criterion, one unit (cell) per paper
    "a": [[D(2), D(2)], [D(1), D(0)], [D("1.5"), D("1.5")], [D("0.5"), D("0.5")]],
    "b": [[D(3), D(3)], [D(2), D(2)], [D(1), D(0)], [D(0), D(0)]],
}
MAXIMA = {"a": 2, "b": 3}
# The problem's figures: each paper's cells on shares of the criterion's maximum, paper by
# paper (a then b), with the paper of each cell: the bootstrap's resampling unit.
SHARES = [
    [float(v) / MAXIMA[code] for v in UNITS[code][p]] for p in range(4) for code in ("a", "b")
]
PAPERS = [p for p in range(4) for _ in ("a", "b")]


@pytest.fixture
def jury(db):
    """Problem 1 graded by Anna Berg and juror-x, its two discrepancies settled (a decision,
    a revision) and finalized; problem 2 half graded; problem 3 without papers."""
    competition = CompetitionFactory(slug="agree")
    one = ProblemFactory(competition=competition, number=1, title="Numbers")
    two = ProblemFactory(competition=competition, number=2)
    ProblemFactory(competition=competition, number=3)
    rubric_with(one, ("a", 2, "0.5"), ("b", 3, 1))
    rubric_with(two, ("c", 4, 1))
    anna = JurorFactory(username="aberg", first_name="Anna", last_name="Berg")
    other = JurorFactory(username="juror-x")
    papers = []
    for i, (first, second) in enumerate(MARKS):
        system = SystemFactory(competition=competition, name=f"S{i + 1}")
        paper = PaperFactory(problem=one, system=system)
        paper_graded(
            paper,
            {
                anna: dict(zip("ab", first, strict=True)),
                other: dict(zip("ab", second, strict=True)),
            },
        )
        papers.append(paper)
    chair = ChairFactory()
    a, b = (Criterion.objects.get(rubric__problem=one, code=c) for c in "ab")
    criterion_decide(paper=papers[1], criterion=a, points="0.5", reason="half", chair=chair)
    revised = papers[2].assignments.get(juror=other)
    mark_revise(assignment=revised, criterion=b, points="1", reason="I missed the plural")
    problem_finalize(problem=one, chair=chair)

    s1 = papers[0].system
    graded = PaperFactory(problem=two, system=s1)
    paper_graded(graded, {anna: {"c": "4"}})
    paper_graded(graded, {other: {"c": "1"}}, submit=False)  # a draft: private
    return competition, {
        "chair": chair,
        "one": one,
        "two": two,
        "anna": anna,
        "other": other,
        "papers": papers,
    }


def test_discrepancy_rate_counts_cells_discrepant_as_first_submitted(jury):
    competition, _ = jury
    first, second = problem_agreement(competition, resamples=RESAMPLES)
    assert [p.problem for p in (first, second)] == [1, 2]  # problem 3 has no paper
    # 2 of 8 cells, though both were settled since (a decision, a revision).
    assert (first.discrepancy.discrepant, first.discrepancy.compared) == (2, 8)
    assert first.discrepancy_rate == 0.25
    assert [(c.code, c.discrepancy_rate, c.discrepant, c.compared) for c in first.criteria] == [
        ("a", 0.25, 1, 4),
        ("b", 0.25, 1, 4),
    ]
    assert first.revised == 1
    assert first.tolerance == D(0)


def test_alpha_and_icc_are_the_statistics_of_the_submitted_marks(jury):
    competition, data = jury
    first = problem_agreement(competition, resamples=RESAMPLES)[0]
    papers = [p.pk for p in data["papers"]]
    labels = [papers[i] for i in PAPERS]
    alpha = krippendorff_alpha_interval(SHARES, papers=labels, resamples=RESAMPLES, seed=2026)
    assert first.alpha == alpha
    # The krippendorff package on the same shares (raters x units).
    assert first.alpha.value == pytest.approx(
        krippendorff.alpha(reliability_data=np.array(SHARES).T, level_of_measurement="interval"),
        abs=1e-12,
    )
    # Anna submitted each paper first: slot 1 is Anna's column, slot 2 juror-x's.
    assert first.k == 2
    both = icc(SHARES, papers=labels, resamples=RESAMPLES, seed=2026)
    assert (first.icc, first.icc_single) == (both.average, both.single)
    assert first.icc.value is not None and first.icc_single.value < first.icc.value
    # Four papers: too few for a bootstrap (its 35 distinct resamples would say little).
    assert (first.alpha.unit, first.alpha.clusters, first.alpha.ci) == ("paper", 4, None)
    too_few = "No interval: 4 papers are too few for a bootstrap, which needs at least 5."
    assert first.alpha.note == too_few and first.icc.ci is None and first.icc_single.ci is None
    a, b = first.criteria
    # A criterion's own figures are on its points (alpha does not change with the scale).
    assert (a.alpha, a.alpha_ci, a.n_cells) == (
        krippendorff_alpha_interval(UNITS["a"], resamples=RESAMPLES).value,
        krippendorff_alpha_interval(UNITS["a"], resamples=RESAMPLES).ci,
        4,
    )
    assert b.alpha == krippendorff_alpha_interval(UNITS["b"], resamples=RESAMPLES).value
    assert (a.maximum, a.alpha_ci, a.resamples) == (2.0, None, 0)
    assert a.note == too_few
    assert a.icc is None  # per criterion only when asked
    with_icc = problem_agreement(competition, resamples=RESAMPLES, criterion_icc=True)[0]
    assert with_icc.criteria[0].icc == icc_2k(UNITS["a"], resamples=RESAMPLES).value
    assert with_icc.criteria[0].icc_single == icc(UNITS["a"], resamples=0).single.value


def test_the_problem_pools_criteria_on_shares_of_their_maxima(db):
    # Criterion x (0-10) is marked alike by both jurors and spreads the papers widely;
    # criterion y (0-1) is where they disagree. Pooled on points, x's range hides y.
    competition = CompetitionFactory(slug="shares")
    problem = ProblemFactory(competition=competition, number=1)
    rubric_with(problem, ("x", 10, 1), ("y", 1, 1))
    one, two = JurorFactory(username="one"), JurorFactory(username="two")
    marks = [((10, 1), (10, 0)), ((0, 0), (0, 1)), ((5, 1), (5, 1)), ((8, 0), (8, 1))]
    for first, second in marks:
        paper_graded(
            PaperFactory(problem=problem),
            {
                one: {"x": str(first[0]), "y": str(first[1])},
                two: {"x": str(second[0]), "y": str(second[1])},
            },
        )
    found = problem_agreement(competition, resamples=RESAMPLES)[0]
    points = [[f[c], s[c]] for f, s in marks for c in (0, 1)]
    shares = [[f[c] / top, s[c] / top] for f, s in marks for c, top in ((0, 10), (1, 1))]

    def package(cells):
        return krippendorff.alpha(
            reliability_data=np.array(cells, dtype=float).T, level_of_measurement="interval"
        )

    assert found.alpha.value == pytest.approx(package(shares), abs=1e-12)
    assert package(points) > 0.9 > package(shares)  # what pooling points would have said
    assert found.as_json()["scale"].startswith(
        "Problem figures pool the criteria on marks as a share of each criterion's maximum"
    )
    assert found.as_json()["criteria"][1]["scale"] == "points"


def test_severity_of_two_jurors_is_only_their_difference(jury):
    competition, _ = jury
    first = problem_agreement(competition, resamples=RESAMPLES)[0]
    # As submitted, Anna minus juror-x on shares: paper 2 a (1 - 0) / 2, paper 3 b (1 - 0) / 3,
    # 0 on the other six cells: the mean over the 8 shared cells is (1/2 + 1/3) / 8 = 5/48.
    # (The old figure, each juror against the agreed mark, followed the chair's decision.)
    anna, other = first.jurors
    assert (anna.name, anna.kind, anna.peers, anna.cells, anna.papers) == (
        "Anna Berg",
        "pair",
        ("juror-x",),
        8,
        4,
    )
    assert anna.effect == pytest.approx(5 / 48) and other.effect == pytest.approx(-5 / 48)
    assert anna.sentence.startswith(
        "marks 0.104 of a criterion's maximum (0.52 points on a paper of 5.0) above juror-x "
        "on the cells they share (8 shared cells); no interval (4 papers are too few for a "
        "bootstrap, which needs at least 5), so no verdict"
    )
    assert anna.sentence.endswith(
        "only the difference between them is identified, not which of them is off"
    )
    assert anna.method is None and anna.ci is None


def test_marks_count_as_first_submitted_through_repeated_revisions_and_imports(db):
    competition = CompetitionFactory(slug="history")
    problem = ProblemFactory(competition=competition, number=1)
    rubric_with(problem, ("a", 4, 1))
    system = SystemFactory(competition=competition, name="S")
    # Imported marks are written just after their assignment is marked submitted.
    marks_import(
        competition=competition,
        stream=io.StringIO("system,problem,criterion,juror,points\nS,1,a,imp1,1\nS,1,a,imp2,4\n"),
    )
    found = problem_agreement(competition, resamples=RESAMPLES)[0]
    assert (found.discrepancy.discrepant, found.revised) == (1, 0)
    # A re-import and two revisions later the jurors agree; as first submitted they did not.
    marks_import(
        competition=competition,
        stream=io.StringIO("system,problem,criterion,juror,points\nS,1,a,imp1,2\n"),
    )
    assignment = Assignment.objects.get(paper__system=system, juror__username="imp2")
    criterion = Criterion.objects.get(rubric__problem=problem, code="a")
    for points in ("3", "2"):
        mark_revise(assignment=assignment, criterion=criterion, points=points, reason="talked")
    found = problem_agreement(competition, resamples=RESAMPLES)[0]
    assert (found.discrepancy.discrepant, found.discrepancy.compared, found.revised) == (1, 1, 2)
    # imp1 gave 1 and imp2 4 of 4, as first submitted: a difference of 3/4 of the maximum.
    assert [(j.name, j.effect) for j in found.jurors] == [("imp1", -0.75), ("imp2", 0.75)]
    assert "2 submitted marks were revised since" in found.note


def test_severity_is_worded_for_the_chair(db):
    competition = CompetitionFactory(slug="severe")
    problem = ProblemFactory(competition=competition, number=1)
    rubric_with(problem, ("a", 4, 1))
    lenient, severe = JurorFactory(username="len"), JurorFactory(username="sev")
    ProblemJuryFactory(problem=problem, tolerance=D(3))
    for high, low in (("4", "2"), ("4", "1"), ("3", "2"), ("4", "2"), ("4", "2")):
        paper = PaperFactory(problem=problem)
        paper_graded(paper, {lenient: {"a": high}, severe: {"a": low}})
    found = problem_agreement(competition, resamples=RESAMPLES)[0]
    assert found.discrepancy_rate == 0.0  # within the tolerance of 3 points
    # differences 2, 3, 1, 2, 2 points of 4: a mean of 0.5 of the maximum
    assert [(j.name, j.effect) for j in found.jurors] == [("len", 0.5), ("sev", -0.5)]
    # Five papers: the exact bootstrap; every resample's mean lies in [0.25, 0.75].
    low, high = found.jurors[0].ci
    assert 0.25 <= low < 0.5 < high <= 0.75
    assert "more lenient than sev" in found.jurors[0].sentence
    assert "more severe than len" in found.jurors[1].sentence
    assert found.provisional
    # each interval says how it was drawn
    data = found.as_json()
    assert data["exact"] and data["papers"] == 5
    assert data["jurors"][0]["method"] == (
        "95% exact bootstrap over 5 papers (all 126 distinct resamples, weighted by their "
        "probability)"
    )


def test_three_jurors_linked_by_shared_papers_are_each_measured(db):
    competition = CompetitionFactory(slug="rotate")
    problem = ProblemFactory(competition=competition, number=1)
    rubric_with(problem, ("a", 4, 1))
    ann, ben, cy = (JurorFactory(username=u) for u in ("ann", "ben", "cy"))
    # ann is a point above ben, ben a point above cy, on rotating pairs of papers
    pairs = [(ann, "3", ben, "2"), (ben, "3", cy, "2"), (ann, "4", cy, "2")] * 3
    for one, x, two, y in pairs:
        paper_graded(PaperFactory(problem=problem), {one: {"a": x}, two: {"a": y}})
    found = problem_agreement(competition, resamples=RESAMPLES)[0]
    # Exactly additive: effects +1/4, 0, -1/4 of the maximum about the three's average.
    effects = {j.name: j.effect for j in found.jurors}
    assert effects == pytest.approx({"ann": 0.25, "ben": 0.0, "cy": -0.25}, abs=1e-12)
    assert {j.kind for j in found.jurors} == {"group"}
    assert "the average of the 3 jurors linked by shared papers" in found.jurors[0].sentence


def test_drafts_never_count(jury):
    competition, data = jury
    second = problem_agreement(competition, resamples=RESAMPLES)[1]
    # juror-x's draft 1 against Anna's 4 would be discrepant; it is private.
    assert second.discrepancy.compared == 0
    assert second.discrepancy_rate is None
    assert second.alpha.value is None
    assert [j.name for j in second.jurors] == ["Anna Berg"]
    assert second.jurors[0].kind == "alone" and second.jurors[0].effect is None
    assert second.jurors[0].sentence.startswith("shares no cell with another juror")
    # A draft on problem 1 changes no figure either.
    problem_reopen(problem=data["one"], chair=data["chair"])
    before = problem_agreement(competition, resamples=RESAMPLES)[0]
    paper = PaperFactory(problem=data["one"])
    paper_graded(paper, {JurorFactory(username="late"): {"a": "0", "b": "3"}}, submit=False)
    after = problem_agreement(competition, resamples=RESAMPLES)[0]
    assert after.alpha == before.alpha and after.discrepancy == before.discrepancy
    assert "late" not in [j.name for j in after.jurors]
    assert "2 cells without any submitted mark yet" in after.note


def test_finalized_and_provisional_problems(jury):
    competition, _ = jury
    first, second = problem_agreement(competition, resamples=RESAMPLES)
    assert first.finalized and not first.provisional
    assert "Provisional" not in first.note
    assert not second.finalized and second.provisional
    assert second.note.startswith("Provisional: the problem is not finalized")
    # ICC's slots: problem 2's one paper has one submitted juror: no pair, no ICC.
    assert second.k == 0 and second.icc.value is None


def test_icc_leaves_out_cells_short_of_k_marks_and_says_so(jury):
    competition, data = jury
    problem_reopen(problem=data["one"], chair=data["chair"])
    paper = PaperFactory(problem=data["one"])
    paper_graded(paper, {data["anna"]: {"a": "1", "b": "1"}})
    first = problem_agreement(competition, resamples=RESAMPLES)[0]
    assert first.k == 2
    assert first.icc.units == 8 and first.icc.left_out == 2
    assert "ICC(A,2) and ICC(A,1) pair each paper's first, second juror to submit" in first.note
    assert "2 cells with fewer marks left out" in first.note
    assert first.alpha.left_out == 2


def test_as_json(jury):
    competition, _ = jury
    found = problem_agreement(competition, resamples=RESAMPLES)
    data = json.loads(json.dumps([p.as_json() for p in found]))
    first = data[0]
    assert {
        "problem",
        "alpha",
        "alpha_ci",
        "icc",
        "icc_ci",
        "discrepancy_rate",
        "jurors",
        "criteria",
        "note",
        "provisional",
    } <= set(first)
    assert first["problem"] == 1 and first["discrepancy_rate"] == 0.25
    assert first["provisional"] is False and data[1]["provisional"] is True
    assert first["alpha_ci"] is None  # four papers: too few for a bootstrap
    anna = first["jurors"][0]
    assert {k: anna[k] for k in ("name", "kind", "peers", "cells", "papers")} == {
        "name": "Anna Berg",
        "kind": "pair",
        "peers": ["juror-x"],
        "cells": 8,
        "papers": 4,
    }
    assert anna["effect_scale"] == "share of a criterion's maximum"
    assert anna["effect"] == pytest.approx(5 / 48) and anna["effect_ci"] is None
    assert first["resampling_unit"] == "paper" and first["papers"] == 4
    assert first["alpha_interval_method"] is None and "too few" in first["alpha_note"]
    assert first["icc_single"] is not None and "ICC(A,1)" in first["icc_method"]
    assert first["scale"].startswith("Problem figures pool the criteria on marks as a share")
    assert [c["code"] for c in first["criteria"]] == ["a", "b"]
    assert {"code", "discrepancy_rate", "alpha", "alpha_ci", "n_cells", "method"} <= set(
        first["criteria"][0]
    )
    assert data[1]["alpha"] is None and data[1]["icc_ci"] is None


def test_same_display_names_are_told_apart(db):
    competition = CompetitionFactory(slug="twins")
    problem = ProblemFactory(competition=competition, number=1)
    rubric_with(problem, ("a", 2, 1))
    one = JurorFactory(username="ak1", first_name="Anna", last_name="K")
    two = JurorFactory(username="ak2", first_name="Anna", last_name="K")
    paper_graded(PaperFactory(problem=problem), {one: {"a": "1"}, two: {"a": "1"}})
    found = problem_agreement(competition, resamples=RESAMPLES)[0]
    assert [j.name for j in found.jurors] == ["Anna K (ak1)", "Anna K (ak2)"]


def _board(slug: str, n_papers: int):
    competition = CompetitionFactory(slug=slug)
    jurors = [JurorFactory(), JurorFactory(), JurorFactory()]
    chair = ChairFactory()
    for number in (1, 2):
        problem = ProblemFactory(competition=competition, number=number)
        rubric_with(problem, ("a", 2, "0.5"), ("b", 3, 1), ("c", 1, 1))
        for i in range(n_papers):
            paper = PaperFactory(problem=problem)
            paper_graded(
                paper,
                {
                    jurors[0]: {"a": "1", "b": str(i % 4), "c": "1"},
                    jurors[1]: {"a": "1.5", "b": str(i % 4), "c": "1"},
                },
            )
            criterion = Criterion.objects.get(rubric__problem=problem, code="a")
            criterion_decide(paper=paper, criterion=criterion, points="1", reason="r", chair=chair)
        paper_graded(PaperFactory(problem=problem), {jurors[2]: {"a": "1"}}, submit=False)
    return competition


def test_a_constant_number_of_queries(db):
    counts = []
    for slug, n in (("small", 2), ("large", 6)):
        competition = _board(slug, n)
        with CaptureQueriesContext(connection) as queries:
            found = problem_agreement(competition, resamples=20)
        assert [p.discrepancy.compared for p in found] == [3 * n, 3 * n]
        counts.append(len(queries))
    assert counts[0] == counts[1] <= 8


def test_query_bound_with_pytest_django(db, django_assert_max_num_queries):
    competition = _board("bound", 3)
    with django_assert_max_num_queries(8):
        problem_agreement(competition, resamples=20)


def test_a_criterion_without_an_interval_says_why_on_the_page(db):
    # Both jurors agree on every cell of criterion a: alpha is 1 in every resample, so there
    # is no interval (never one of zero width), and the page says why beside the table.
    competition = CompetitionFactory(slug="same")
    problem = ProblemFactory(competition=competition, number=1)
    rubric_with(problem, ("a", 4, 1), ("b", 4, 1))
    one, two = JurorFactory(username="one"), JurorFactory(username="two")
    for x, y in (("1", "2"), ("3", "3"), ("0", "1"), ("4", "2"), ("2", "2"), ("1", "0")):
        paper_graded(PaperFactory(problem=problem), {one: {"a": x, "b": x}, two: {"a": x, "b": y}})
    found = problem_agreement(competition, resamples=RESAMPLES)[0]
    a = found.criteria[0]
    assert (a.alpha, a.alpha_ci) == (1.0, None)
    assert "Every resample gives 1.0, so the bootstrap gives no interval." in a.note
    assert found.criterion_notes == [("a", a.note)]
    html = render_to_string(
        "grading/review/partials/_agreement_problems.html", {"review": {"agreement": [found]}}
    )
    assert "<li>a: " in html and "so the bootstrap gives no interval." in html

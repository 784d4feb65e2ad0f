"""Juror agreement per problem: hand-checked discrepancy rate, alpha and ICC equal to the pure
statistics on the same marks, deviations from the final marks, drafts left out, queries."""

from __future__ import annotations

import io
import json
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from grading.models import Assignment, Criterion
from grading.review.agreement import problem_agreement
from grading.review.stats import (
    RaterDeviation,
    deviation_sentence,
    icc_2k,
    krippendorff_alpha_interval,
)
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
    competition, _ = jury
    first = problem_agreement(competition, resamples=RESAMPLES)[0]
    every = UNITS["a"] + UNITS["b"]
    alpha = krippendorff_alpha_interval(every, resamples=RESAMPLES, seed=2026)
    assert first.alpha == alpha
    # By hand: 16 marks, sum S = 20, sum of squares Q = 41; each two-mark cell adds
    # (x - y)^2 to D = 2 (two cells 1 apart), so alpha = 1 - (n - 1) D / (n Q - S^2).
    assert first.alpha.value == pytest.approx(1 - 15 * 2 / (16 * 41 - 20**2))
    # Anna submitted each paper first: slot 1 is Anna's column, slot 2 juror-x's.
    assert first.k == 2
    assert first.icc == icc_2k(every, resamples=RESAMPLES, seed=2026)
    assert first.icc.value is not None and first.icc.ci is not None
    a, b = first.criteria
    assert (a.alpha, a.alpha_ci, a.n_cells) == (
        krippendorff_alpha_interval(UNITS["a"], resamples=RESAMPLES).value,
        krippendorff_alpha_interval(UNITS["a"], resamples=RESAMPLES).ci,
        4,
    )
    assert b.alpha == krippendorff_alpha_interval(UNITS["b"], resamples=RESAMPLES).value
    assert a.icc is None  # per criterion only when asked
    assert a.resamples == RESAMPLES
    fewer = problem_agreement(competition, resamples=RESAMPLES, criterion_resamples=50)[0]
    assert fewer.alpha == first.alpha and fewer.criteria[0].resamples == 50
    assert fewer.criteria[0].alpha_ci == (krippendorff_alpha_interval(UNITS["a"], resamples=50).ci)
    with_icc = problem_agreement(competition, resamples=RESAMPLES, criterion_icc=True)[0]
    assert with_icc.criteria[0].icc == icc_2k(UNITS["a"], resamples=RESAMPLES).value


def test_deviations_from_the_final_marks_with_their_sentences(jury):
    competition, _ = jury
    first = problem_agreement(competition, resamples=RESAMPLES)[0]
    # Finals: paper 2 a decided 0.5, paper 3 b agreed 1 after the revision; the rest agreed.
    # Anna: +0.5 on paper 2 a, 0 elsewhere. juror-x: -0.5 (paper 2 a) and -1 (paper 3 b, as
    # submitted, before the revision).
    anna, other = first.jurors
    assert (anna.name, anna.mean, anna.mean_abs, anna.n) == ("Anna Berg", 0.0625, 0.0625, 8)
    assert (other.name, other.mean, other.mean_abs, other.n) == ("juror-x", -0.1875, 0.1875, 8)
    assert anna.sentence == deviation_sentence(RaterDeviation("Anna Berg", 0.0625, 0.0625, 8))
    assert anna.sentence == "marks in line with the agreed marks (+0.06 points on average, n = 8)"
    assert other.sentence.startswith("marks in line with the agreed marks (-0.19 points")


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
    assert [(j.name, j.mean) for j in found.jurors] == [("imp1", -1.0), ("imp2", 2.0)]
    assert "2 submitted marks were revised since" in found.note


def test_severity_is_worded_for_the_chair(db):
    competition = CompetitionFactory(slug="severe")
    problem = ProblemFactory(competition=competition, number=1)
    rubric_with(problem, ("a", 4, 1))
    lenient, severe = JurorFactory(username="len"), JurorFactory(username="sev")
    ProblemJuryFactory(problem=problem, tolerance=D(2))
    for _ in range(5):
        paper = PaperFactory(problem=problem)
        paper_graded(paper, {lenient: {"a": "4"}, severe: {"a": "2"}})  # agreed: 3
    found = problem_agreement(competition, resamples=RESAMPLES)[0]
    assert found.discrepancy_rate == 0.0  # within the tolerance of 2 points
    assert [(j.name, j.mean) for j in found.jurors] == [("len", 1.0), ("sev", -1.0)]
    assert found.jurors[0].sentence.endswith("more lenient than the jury")
    assert found.jurors[1].sentence.endswith("more severe than the jury")
    assert found.provisional


def test_drafts_never_count(jury):
    competition, data = jury
    second = problem_agreement(competition, resamples=RESAMPLES)[1]
    # juror-x's draft 1 against Anna's 4 would be discrepant; it is private.
    assert second.discrepancy.compared == 0
    assert second.discrepancy_rate is None
    assert second.alpha.value is None
    assert [j.name for j in second.jurors] == ["Anna Berg"]
    assert second.jurors[0].n == 0  # pending: no final mark yet
    assert second.jurors[0].sentence == "has no marks on cells with an agreed mark yet"
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
    assert "ICC(2,2) pairs each paper's first, second juror to submit" in first.note
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
    assert len(first["alpha_ci"]) == 2 and first["alpha_ci"][0] <= first["alpha_ci"][1]
    assert first["jurors"][0] == {
        "name": "Anna Berg",
        "mean": 0.0625,
        "mean_abs": 0.0625,
        "n": 8,
        "sentence": "marks in line with the agreed marks (+0.06 points on average, n = 8)",
    }
    assert [c["code"] for c in first["criteria"]] == ["a", "b"]
    assert {"code", "discrepancy_rate", "alpha", "alpha_ci", "n_cells"} <= set(first["criteria"][0])
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
    assert counts[0] == counts[1] <= 9


def test_query_bound_with_pytest_django(db, django_assert_max_num_queries):
    competition = _board("bound", 3)
    with django_assert_max_num_queries(9):
        problem_agreement(competition, resamples=20)

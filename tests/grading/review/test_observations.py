"""Observation tags counted per system and per problem, with the papers behind each count."""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from grading.review.observations import tag_counts
from grading.services import tags_set
from tests.grading.factories import (
    JurorFactory,
    ObservationTagFactory,
    PaperFactory,
    paper_graded,
    rubric_with,
)
from tests.puzzles.factories import CompetitionFactory, ProblemFactory, SystemFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def tagged(db):
    """Two systems on two problems, two jurors each; tags given after submitting and on a
    draft."""
    competition = CompetitionFactory(slug="tags")
    verbosity = ObservationTagFactory(competition=competition, name="verbosity", order=1)
    hallucination = ObservationTagFactory(competition=competition, name="hallucination", order=0)
    ObservationTagFactory(competition=competition, name="overfitting", order=2)  # never used
    alpha = SystemFactory(competition=competition, name="alpha")
    beta = SystemFactory(competition=competition, name="Beta", external=True)
    one = ProblemFactory(competition=competition, number=1)
    two = ProblemFactory(competition=competition, number=2)
    for problem in (one, two):
        rubric_with(problem, (f"{problem.number}a", 2, 1))
    anna, bo = JurorFactory(username="anna"), JurorFactory(username="bo")
    papers = {}
    for system in (alpha, beta):
        for problem in (one, two):
            paper = PaperFactory(problem=problem, system=system)
            papers[(system.name, problem.number)] = paper
            code = f"{problem.number}a"
            submit_bo = (system, problem) != (beta, two)  # bo still drafts Beta's problem 2
            paper_graded(paper, {anna: {code: "1"}})
            paper_graded(paper, {bo: {code: "1"}}, submit=submit_bo)

    def tag(system, number, juror, *tags):
        assignment = papers[(system, number)].assignments.get(juror=juror)
        tags_set(assignment=assignment, tag_ids=[t.pk for t in tags])

    tag("alpha", 1, anna, verbosity, hallucination)
    tag("alpha", 1, bo, verbosity)  # the same paper twice: counted once, used twice
    tag("alpha", 2, bo, verbosity)
    tag("Beta", 1, anna, hallucination)
    tag("Beta", 2, bo, hallucination, verbosity)  # a draft: does not count
    return competition, papers


def _counts(row) -> dict[str, int]:
    return {c.tag: c.count for c in row.cells}


def test_counts_per_system_and_per_problem(tagged):
    competition, _ = tagged
    found = tag_counts(competition)
    assert found.tags == ("hallucination", "verbosity", "overfitting")
    assert [(r.label, r.external) for r in found.by_system] == [("alpha", False), ("Beta", True)]
    alpha, beta = found.by_system
    assert _counts(alpha) == {"hallucination": 1, "verbosity": 2, "overfitting": 0}
    assert _counts(beta) == {"hallucination": 1, "verbosity": 0, "overfitting": 0}
    assert (alpha.total, beta.total) == (3, 1)
    one, two = found.by_problem
    assert (one.label, one.key) == ("Problem 1", 1)
    assert _counts(one) == {"hallucination": 2, "verbosity": 1, "overfitting": 0}
    assert _counts(two) == {"hallucination": 0, "verbosity": 1, "overfitting": 0}
    assert {c.tag: c.count for c in found.totals} == {
        "hallucination": 2,
        "verbosity": 2,
        "overfitting": 0,
    }
    assert found.papers == 4 and found.note is None


def test_each_count_lists_its_papers_with_a_link(tagged):
    competition, papers = tagged
    alpha = tag_counts(competition).by_system[0]
    verbosity = alpha.cells[1]
    assert verbosity.tag == "verbosity"
    assert [(p.code, p.problem, p.system, p.jurors) for p in verbosity.papers] == [
        (papers[("alpha", 1)].code, 1, "alpha", 2),
        (papers[("alpha", 2)].code, 2, "alpha", 1),
    ]
    assert verbosity.uses == 3
    first = verbosity.papers[0]
    assert (first.url_name, first.url_args) == ("grading:sheet", ("tags", 1))
    assert first.url == reverse("grading:sheet", args=["tags", 1]) + f"#paper-{first.code}"


def test_tags_on_a_draft_do_not_count(tagged):
    competition, papers = tagged
    found = tag_counts(competition)
    beta_two = papers[("Beta", 2)].code
    listed = {p.code for row in found.by_system for cell in row.cells for p in cell.papers}
    assert beta_two not in listed


def test_without_tags_or_submissions_a_sentence(db):
    competition = CompetitionFactory(slug="bare")
    assert tag_counts(competition).note == "The competition has no observation tags."
    ObservationTagFactory(competition=competition, name="verbosity")
    problem = ProblemFactory(competition=competition, number=1)
    rubric_with(problem, ("a", 1, 1))
    paper = PaperFactory(problem=problem)
    paper_graded(paper, {JurorFactory(): {"a": "1"}}, submit=False)
    found = tag_counts(competition)
    assert found.note == "No juror has submitted a paper yet."
    assert found.by_system[0].papers == 0
    paper_graded(paper, {JurorFactory(): {"a": "1"}})
    assert tag_counts(competition).note == "No juror who submitted a paper has tagged it."


def test_as_json(tagged):
    competition, _ = tagged
    data = json.loads(json.dumps(tag_counts(competition).as_json()))
    assert data["tags"] == ["hallucination", "verbosity", "overfitting"]
    assert data["totals"] == {"hallucination": 2, "verbosity": 2, "overfitting": 0}
    alpha = data["by_system"][0]
    assert alpha["label"] == "alpha" and alpha["counts"]["verbosity"] == 2
    assert alpha["cells"][1]["papers"][0]["url"].startswith("/c/tags/jury/problems/1/sheet/")


def _board(slug: str, n_systems: int):
    competition = CompetitionFactory(slug=slug)
    tags = [ObservationTagFactory(competition=competition) for _ in range(3)]
    problem = ProblemFactory(competition=competition, number=1)
    rubric_with(problem, ("a", 1, 1))
    juror = JurorFactory()
    for i in range(n_systems):
        paper = PaperFactory(problem=problem)
        (assignment,) = paper_graded(paper, {juror: {"a": "1"}})
        tags_set(assignment=assignment, tag_ids=[tags[i % 3].pk])
    return competition


def test_a_constant_number_of_queries(db, django_assert_max_num_queries):
    counts = []
    for slug, n in (("small", 2), ("large", 7)):
        competition = _board(slug, n)
        with CaptureQueriesContext(connection) as queries:
            found = tag_counts(competition)
        assert sum(c.count for c in found.totals) == n
        counts.append(len(queries))
    assert counts[0] == counts[1] <= 3
    with django_assert_max_num_queries(3):
        tag_counts(competition)

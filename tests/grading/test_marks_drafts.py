"""The autosave's reads (grading/services/drafts.py): compiled once, they answer what the
ORM answers with the named queries, case by case."""

from __future__ import annotations

import itertools

import pytest
from django.db import connection
from django.db.models.sql.query import Query
from django.utils import timezone

from grading.models import Assignment, Criterion, Mark, Paper, ProblemJury
from grading.services import mark_save_by_code
from grading.services.drafts import draft_jury_lock, draft_mark, draft_read
from tests.grading.factories import (
    JurorFactory,
    PaperFactory,
    ProblemJuryFactory,
    rubric_with,
)
from tests.puzzles.factories import ProblemFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def cases():
    """Two problems (one with an old and a current rubric version), papers of both, jurors
    with open and submitted papers, marks with comments, a deleted criterion's id."""
    problem = ProblemJuryFactory().problem
    other = ProblemJuryFactory(problem=ProblemFactory(competition=problem.competition)).problem
    old = rubric_with(problem, ("a", 2, "0.5"), ("b", 1, "1"), version=1)
    current = rubric_with(problem, ("a", 2, "0.5"), ("b", 3, "0.25"), version=2)
    foreign = rubric_with(other, ("q", 4, "1"))
    gone = Criterion.objects.create(rubric=foreign, order=9, code="gone", title="t", maximum=1)
    gone_id = gone.pk
    gone.delete()
    anna, boris, stranger = JurorFactory(), JurorFactory(), JurorFactory()
    papers = [PaperFactory(problem=problem) for _ in range(2)] + [PaperFactory(problem=other)]
    submitted = timezone.now()
    assignments = [
        Assignment.objects.create(paper=papers[0], juror=anna),
        Assignment.objects.create(paper=papers[1], juror=anna, submitted_at=submitted),
        Assignment.objects.create(paper=papers[0], juror=boris),
        Assignment.objects.create(paper=papers[2], juror=boris),
    ]
    a_now = current.criteria.get(code="a")
    Mark.objects.create(assignment=assignments[0], criterion=a_now, points=1, comment="why")
    Mark.objects.create(assignment=assignments[1], criterion=a_now, points=2, comment="so")
    Mark.objects.create(assignment=assignments[2], criterion=old.criteria.get(code="a"))
    criteria = [*current.criteria.all(), *old.criteria.all(), *foreign.criteria.all()]
    return {
        "problem": problem,
        "jurors": [anna, boris, stranger],
        "codes": [p.code for p in papers] + ["NOPE-0000"],
        "criterion_ids": [c.pk for c in criteria] + [gone_id, 2**62],
    }


def _expected(juror, code: str, criterion_id: int):
    """What the ORM says, with the named queries, of one autosave's reads."""
    paper = Paper.objects.filter(code=code).first()
    if paper is None:
        return None, None, None
    jury = (
        ProblemJury.objects.finalized().filter(problem=paper.problem).exists(),
        paper.problem.number,
    )
    assignment = Assignment.objects.of(juror).filter(paper=paper).first()
    if assignment is None:
        return jury, None, None
    current = (
        Criterion.objects.current().filter(pk=criterion_id, rubric__problem=paper.problem).first()
    )
    exists = Criterion.objects.filter(pk=criterion_id).exists()
    ours = Criterion.objects.filter(pk=criterion_id, rubric__problem=paper.problem).exists()
    read = (
        assignment.pk,
        Assignment.objects.submitted().filter(pk=assignment.pk).exists(),
        None if current is None else (current.pk, current.code, current.maximum, current.step),
        not exists or ours,
    )
    mark = Mark.objects.filter(assignment=assignment, criterion_id=criterion_id).values_list(
        "pk", "comment"
    ).first() or (None, "")
    return jury, read, tuple(mark)


def _compiled_reads(juror, code: str, criterion_id: int):
    with connection.cursor() as cursor:
        jury = draft_jury_lock(cursor, code)
        if jury is None:
            return None, None, None
        read = draft_read(cursor, code=code, juror_id=juror.pk, criterion_id=criterion_id)
        if read is None:
            return jury, None, None
        mark = draft_mark(cursor, assignment_id=read.assignment_id, criterion_id=criterion_id)
    c = read.criterion
    shown = None if c is None else (c.pk, c.code, c.maximum, c.step)
    return jury, (read.assignment_id, read.submitted, shown, read.superseded), tuple(mark)


@pytest.mark.parametrize("finalized", [False, True])
def test_the_compiled_reads_answer_as_the_orm(cases, finalized):
    """Every juror (with an open paper, a submitted one, another's, none) x every code (of
    the problem with two rubric versions, of another problem, of no paper) x every criterion
    (current, of the old version, of another problem, deleted, never made), finalized or not."""
    if finalized:
        ProblemJury.objects.filter(problem=cases["problem"]).update(finalized_at=timezone.now())
    seen = set()
    for juror, code, criterion_id in itertools.product(
        cases["jurors"], cases["codes"], cases["criterion_ids"]
    ):
        found = _compiled_reads(juror, code, criterion_id)
        assert found == _expected(juror, code, criterion_id), (juror.username, code, criterion_id)
        jury, read, mark = found
        seen.add(
            "no paper"
            if jury is None
            else "not the juror's"
            if read is None
            else (read[1], read[2] is not None, read[3], mark[0] is not None)
        )
    # Every branch of the rules is met: (submitted, current criterion, superseded, a mark).
    assert {"no paper", "not the juror's"} <= seen
    assert {(False, True, True, True), (False, True, True, False)} <= seen
    assert {
        (True, True, True, True),
        (False, False, True, False),
        (False, False, False, False),
    } <= seen
    first = _compiled_reads(cases["jurors"][0], cases["codes"][0], cases["criterion_ids"][0])
    assert first[0] == (finalized, cases["problem"].number)


def test_a_jury_row_is_made_for_a_problem_without_one(cases):
    ProblemJury.objects.filter(problem=cases["problem"]).delete()
    code = cases["codes"][0]
    with connection.cursor() as cursor:
        assert draft_jury_lock(cursor, code) == (False, cases["problem"].number)
    assert ProblemJury.objects.filter(problem=cases["problem"]).exists()


def test_a_save_compiles_no_query_once_its_statements_are_compiled(cases, monkeypatch):
    """The reads are compiled by the first save of the process; later saves bind values to
    them (the write and its history row are Django's own statements)."""
    anna = cases["jurors"][0]
    code, criterion_id = cases["codes"][0], cases["criterion_ids"][1]
    mark_save_by_code(juror=anna, code=code, criterion_id=criterion_id, points="1")
    compiled: list[str] = []
    get_compiler = Query.get_compiler

    def counted(query, *args, **kwargs):
        if type(query) is Query:  # a SELECT; inserts and updates have subclasses
            compiled.append(query.model.__name__)
        return get_compiler(query, *args, **kwargs)

    monkeypatch.setattr(Query, "get_compiler", counted)
    mark = mark_save_by_code(juror=anna, code=code, criterion_id=criterion_id, points="2.5")
    assert compiled == []
    assert Mark.objects.get(pk=mark.pk).points == 2.5

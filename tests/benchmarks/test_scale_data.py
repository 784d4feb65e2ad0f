"""The builders of benchmarks/jury_scale.py and review_scale.py (benchmarks/scale/) on a tiny
jury: the rows they promise, the rules of the app they keep, and the same rows for the same
seed."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from benchmarks.scale.bulk import jury_complete
from benchmarks.scale.data import build_board, build_jury
from grading.models import Assignment, Mark, PaperTag, Resolution
from grading.services import rubric_current
from puzzles.models import Output

pytestmark = pytest.mark.django_db

SIZES = dict(n_problems=2, n_systems=4, n_criteria=3)


def _jury(slug: str, prefix: str, seed: int = 7):
    rng = random.Random(seed)
    board = build_board(slug=slug, prefix=prefix, rng=rng, **SIZES)
    jury = build_jury(board, group_size=3, per_paper=2, rng=rng)
    return jury, rng


def _rows(competition) -> list[tuple]:
    """The jury's data by natural keys, without ids or slugs: what a seed must reproduce."""
    mine = {"assignment__paper__problem__competition": competition}
    return sorted(
        (m.assignment.paper.code[1:], m.assignment.juror.username, m.criterion.code)
        + (m.points, m.comment, m.assignment.submitted_at is not None)
        for m in Mark.objects.filter(**mine).select_related(
            "assignment__paper", "assignment__juror", "criterion"
        )
    )


def test_a_tiny_jury_has_the_rows_it_promises():
    jury, _ = _jury("tiny", "T")
    board = jury.board
    assert board.counts == {
        "problems": 2,
        "tasks": 3,  # problem 1 has one task, problem 2 two
        "criteria": 6,
        "systems": 4,
        "outputs": 12,
        "papers": 8,
        "jurors": 6,
        "assignments": 16,
        "submitted": board.counts["submitted"],
        "marks": board.counts["marks"],
        "comments": 2,  # the first paper of each problem
        "decisions": 2,
        "paper_tags": 4,  # every fifth assignment
    }
    competition = board.competition
    assert Output.objects.filter(system__competition=competition).count() == 12
    assert Resolution.objects.filter(paper__problem__competition=competition).count() == 2
    assert PaperTag.objects.filter(assignment__paper__problem__competition=competition).count() == 4
    marks = Mark.objects.filter(assignment__paper__problem__competition=competition)
    assert marks.count() == board.counts["marks"]
    submitted = Assignment.objects.filter(
        paper__problem__competition=competition, submitted_at__isnull=False
    )
    assert submitted.count() == board.counts["submitted"] > 0


def test_every_paper_has_its_jurors_and_submitted_papers_are_fully_marked():
    jury, _ = _jury("rules", "U")
    board = jury.board
    for problem in board.problems:
        group = {j.pk for j in jury.groups[problem.pk]}
        on_paper = Counter(
            Assignment.objects.filter(paper__problem=problem).values_list("paper__code", flat=True)
        )
        assert on_paper == {p.code: 2 for p in board.papers[problem.pk]}
        jurors = set(
            Assignment.objects.filter(paper__problem=problem).values_list("juror_id", flat=True)
        )
        assert jurors == group  # the assignment service spreads papers over the whole group
        codes = {c.code for c in rubric_current(problem).criteria.all()}
        for a in Assignment.objects.filter(paper__problem=problem, submitted_at__isnull=False):
            marked = set(
                a.marks.filter(points__isnull=False).values_list("criterion__code", flat=True)
            )
            assert marked == codes  # what assignment_submit would have required
    for members in jury.groups.values():
        # each juror's first paper stays a draft, for the autosave to write to
        assert all(
            Assignment.objects.filter(juror=j, submitted_at__isnull=True).exists() for j in members
        )


def test_the_same_seed_gives_the_same_jury_and_another_seed_does_not():
    first, _ = _jury("seed-a", "A")
    again, _ = _jury("seed-b", "B")
    other, _ = _jury("seed-c", "C", seed=8)
    assert _rows(first.board.competition) == _rows(again.board.competition)
    assert _rows(first.board.competition) != _rows(other.board.competition)
    assert first.board.counts == again.board.counts


def test_the_review_completes_the_jury():
    jury, rng = _jury("review", "R")
    board = jury.board
    added = jury_complete(board, rng)
    competition = board.competition
    assert not Assignment.objects.filter(
        paper__problem__competition=competition, submitted_at__isnull=True
    ).exists()
    marks = Mark.objects.filter(assignment__paper__problem__competition=competition)
    assert marks.count() == 16 * 3  # every assignment, every criterion
    assert added["marks_added"] == 16 * 3 - board.counts["marks"]
    history = Mark.history.filter(assignment__paper__problem__competition=competition)
    assert history.count() == added["history_rows"] == 16 * 3 + added["revised"]

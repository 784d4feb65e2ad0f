"""The demo jury: rubrics, selected systems, groups, assignments, a discrepancy under discussion.

Invented, like the demo competition it grades.
"""

from __future__ import annotations

from decimal import Decimal

from django.contrib.auth import get_user_model
from django.db import transaction

from puzzles.models import Competition

from .models import Assignment, DiscussionComment, Mark
from .services import (
    assignment_submit,
    jurors_assign,
    mark_save,
    papers_create,
    problem_jurors_set,
    rubric_current,
    rubrics_import,
    tags_ensure_defaults,
)

RUBRICS = {
    "problems": [
        {
            "problem": 1,
            "criteria": [
                {
                    "code": "1a",
                    "title": "Translations into English",
                    "kind": "assignment",
                    "maximum": 3,
                    "step": 0.5,
                    "task": "12026010100",
                    "items": [1, 2, 3],
                },
                {
                    "code": "1b",
                    "title": "Translations into Velmari",
                    "kind": "assignment",
                    "maximum": 3,
                    "step": 0.5,
                    "task": "12026010200",
                    "items": [1, 2, 3],
                },
                {
                    "code": "1c",
                    "title": "Prefixes of possession",
                    "kind": "theory",
                    "maximum": 2,
                    "step": 0.5,
                    "description": "ma- 'my', ta- 'your' identified as prefixes.",
                },
                {
                    "code": "1d",
                    "title": "Plural and location suffixes and their order",
                    "kind": "theory",
                    "maximum": 2,
                    "step": 0.5,
                },
            ],
        },
        {
            "problem": 2,
            "criteria": [
                {
                    "code": "2a",
                    "title": "Oskrunic to numbers",
                    "kind": "assignment",
                    "maximum": 3,
                    "step": 1,
                    "task": "12026020100",
                },
                {
                    "code": "2b",
                    "title": "Numbers to Oskrunic",
                    "kind": "assignment",
                    "maximum": 3,
                    "step": 1,
                    "task": "12026020200",
                },
                {
                    "code": "2c",
                    "title": "Base six and the multiplier",
                    "kind": "theory",
                    "maximum": 4,
                    "step": 0.5,
                },
            ],
        },
        {
            "problem": 3,
            "criteria": [
                {
                    "code": "3a",
                    "title": "Into English, all readings",
                    "kind": "assignment",
                    "maximum": 3,
                    "step": 0.5,
                    "task": "12026030100",
                },
                {
                    "code": "3b",
                    "title": "Into Tiruvan",
                    "kind": "assignment",
                    "maximum": 2,
                    "step": 0.5,
                    "task": "12026030200",
                },
                {
                    "code": "3c",
                    "title": "Person prefixes",
                    "kind": "theory",
                    "maximum": 2,
                    "step": 0.5,
                },
                {
                    "code": "3d",
                    "title": "Tense suffixes",
                    "kind": "theory",
                    "maximum": 3,
                    "step": 0.5,
                },
            ],
        },
    ]
}

SELECTED = ["Frontier-A", "Frontier-B", "Team Lexicon", "OpenModel-7B"]
# Problem 1's group is juror1 and juror2 alone, so they share every paper of it. The
# chair grades problem 2 and sees problem 1's sheet (not the sheet of a problem that the
# chair is still grading).
GROUPS = {
    1: ["juror1", "juror2"],
    2: ["juror2", "juror3", "chair"],
    3: ["juror3", "juror4", "juror1"],
}


@transaction.atomic
def demo_jury_load(competition: Competition) -> None:
    """Set up a jury in progress on the demo competition (idempotent)."""
    problems = {p.number: p for p in competition.problems.all()}
    fresh = rubric_current(problems[1]) is None
    if fresh:
        import json

        rubrics_import(json.dumps(RUBRICS), competition=competition, file="demo-rubrics.json")
    tags_ensure_defaults(competition=competition)
    papers_create(competition=competition, system_names=SELECTED)
    for number, usernames in GROUPS.items():
        problem_jurors_set(problem=problems[number], usernames=usernames)
    jurors_assign(competition=competition, per_paper=2)
    if fresh:
        _grade_some(competition)


def _grade_some(competition: Competition) -> None:
    # juror1 and juror2 both grade problem 1: they disagree on one criterion of one paper.
    User = get_user_model()
    juror1 = User.objects.get(username="juror1")
    juror2 = User.objects.get(username="juror2")
    criteria = list(rubric_current(competition.problems.get(number=1)).criteria.order_by("order"))
    shared = list(
        Assignment.objects.filter(
            paper__problem__competition=competition, paper__problem__number=1, juror=juror1
        )
        .select_related("paper")
        .order_by("paper__code")
    )
    for index, assignment in enumerate(shared[:2]):
        other = Assignment.objects.get(paper=assignment.paper, juror=juror2)
        for criterion in criteria:
            points = criterion.maximum - Decimal("0.5") * (criterion.order % 2)
            mark_save(assignment=assignment, criterion=criterion, points=points, comment="")
            if index == 0 and criterion.code == "1c":
                points = criterion.maximum - Decimal("1.5")
            mark_save(assignment=other, criterion=criterion, points=points, comment="")
        assignment_submit(assignment=assignment)
        assignment_submit(assignment=other)
        if index == 0:
            c = next(c for c in criteria if c.code == "1c")
            Mark.objects.filter(assignment=other, criterion=c).update(
                comment="Names the prefixes but never says ta- is 'your'."
            )
            DiscussionComment.objects.create(
                paper=assignment.paper,
                criterion=c,
                author=juror1,
                text="The explanation lists ma- and ta- together; I read that as identifying both.",
            )
    # juror1 has a draft on problem 3.
    draft = Assignment.objects.filter(
        paper__problem__number=3, paper__problem__competition=competition, juror=juror1
    ).first()
    if draft:
        first = rubric_current(draft.paper.problem).criteria.order_by("order").first()
        mark_save(
            assignment=draft, criterion=first, points=first.maximum, comment="All readings given."
        )

"""The demo jury: rubrics, selected systems, groups, assignments, a discrepancy under
discussion on problem 1, problem 3 graded and finalized, and invented human contestants.

Invented, like the demo competition it grades. Problem 2 stays ungraded (the browser test
of the jury's flow grades it from scratch).
"""

from __future__ import annotations

import io
import json
import random
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.db import transaction

from puzzles.demo import THRESHOLDS
from puzzles.models import Competition, Problem

from .models import Assignment, Contestant, DiscussionComment, Mark, ProblemJury
from .selectors import jury_scale
from .services import (
    assignment_submit,
    comment_post,
    competition_set_thresholds,
    contestants_import,
    criterion_decide,
    jurors_assign,
    mark_revise,
    mark_save,
    papers_create,
    problem_finalize,
    problem_jurors_set,
    rubric_current,
    rubrics_import,
    tags_ensure_defaults,
    tags_set,
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
        rubrics_import(json.dumps(RUBRICS), competition=competition, file="demo-rubrics.json")
    # On the scale the rubrics make (the demo sets none). Thresholds an organizer set stay;
    # a database from an older demo (out of 60) or none yet gets these.
    if competition.gold_threshold is None or jury_scale(competition).above:
        competition_set_thresholds(
            competition=competition, **{k: Decimal(v) for k, v in THRESHOLDS.items()}
        )
    tags_ensure_defaults(competition=competition)
    papers_create(competition=competition, system_names=SELECTED)
    for number, usernames in GROUPS.items():
        problem_jurors_set(problem=problems[number], usernames=usernames)
    jurors_assign(competition=competition, per_paper=2)
    if fresh:
        _grade_some(competition)
    _finalize_problem(problems[FINALIZED])
    if not Contestant.objects.filter(competition=competition).exists():
        contestants_import(
            competition=competition,
            stream=io.StringIO(contestants_csv()),
            file="demo-contestants.csv",
        )


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
    # juror1 has a draft on the last of its problem 1 papers.
    draft = shared[-1] if len(shared) > 2 else None
    if draft:
        first = rubric_current(draft.paper.problem).criteria.order_by("order").first()
        mark_save(
            assignment=draft, criterion=first, points=first.maximum, comment="All three right."
        )


# --- problem 3: graded by two jurors a paper, one discrepancy decided, one revised, finalized

FINALIZED = 3
# System -> the first juror's points for 3a, 3b, 3c, 3d (by the systems' demo answers).
FINAL_MARKS = {
    "Frontier-A": ("3", "2", "2", "3"),
    "Frontier-B": ("3", "1", "1.5", "2"),
    "Team Lexicon": ("2", "2", "1.5", "1.5"),
    "OpenModel-7B": ("1", "0", "0", "0"),
}
# (system, criterion) -> the second juror's points where they differ from the first's.
SECOND_OPINIONS = {("Frontier-B", "3d"): "1", ("Team Lexicon", "3c"): "1"}
DECIDED = ("Frontier-B", "3d", "1.5")  # the chair splits the difference
REVISED = ("Team Lexicon", "3c")  # the second juror comes round to the first's mark
TAGS = {"Frontier-B": ["underspecified rule"], "OpenModel-7B": ["hallucination", "verbosity"]}


def _finalize_problem(problem: Problem) -> None:
    """Grade every paper of the problem by its two jurors and finalize it, once."""
    graded = Assignment.objects.filter(paper__problem=problem, submitted_at__isnull=False)
    if (
        graded.exists()
        or ProblemJury.objects.filter(problem=problem, finalized_at__isnull=False).exists()
    ):
        return
    chair = get_user_model().objects.get(username="chair")
    criteria = {c.code: c for c in rubric_current(problem).criteria.all()}
    tags = {t.name: t.pk for t in problem.competition.tags.all()}
    assignments = (
        Assignment.objects.filter(paper__problem=problem)
        .select_related("paper__system", "juror")
        .order_by("paper__code", "juror__username")
    )
    by_paper: dict[int, list[Assignment]] = {}
    for assignment in assignments:
        by_paper.setdefault(assignment.paper_id, []).append(assignment)
    for pair in by_paper.values():
        system = pair[0].paper.system.name
        for position, assignment in enumerate(pair):
            for code, points in zip(sorted(criteria), FINAL_MARKS[system], strict=True):
                if position:
                    points = SECOND_OPINIONS.get((system, code), points)
                mark_save(
                    assignment=assignment, criterion=criteria[code], points=points, comment=""
                )
            assignment_submit(assignment=assignment)
            tag_ids = [tags[name] for name in TAGS.get(system, []) if name in tags]
            if tag_ids:
                tags_set(assignment=assignment, tag_ids=tag_ids)
        paper = pair[0].paper
        if system == DECIDED[0]:
            criterion = criteria[DECIDED[1]]
            comment_post(
                paper=paper,
                criterion=criterion,
                author=pair[0].juror,
                text="The explanation names the tense suffixes but not the present's zero.",
            )
            criterion_decide(
                paper=paper,
                criterion=criterion,
                points=DECIDED[2],
                reason="Two of the three tenses are explained.",
                chair=chair,
            )
        if system == REVISED[0] and len(pair) > 1:
            mark_revise(
                assignment=pair[1],
                criterion=criteria[REVISED[1]],
                points=FINAL_MARKS[system][sorted(criteria).index(REVISED[1])],
                reason="After discussion: the person prefixes are all there.",
            )
    problem_finalize(problem=problem, chair=chair)


# --- human contestants: invented codes, points per criterion of every problem ----------


def contestants_csv(n: int = 60, *, seed: int = 2026) -> str:
    """Return an invented contestants file in the long form (every criterion of the demo's
    rubrics), with each contestant's total on its rows."""
    rng = random.Random(seed)
    criteria = [
        (spec["problem"], c["code"], Decimal(str(c["maximum"])), Decimal(str(c["step"])), c["kind"])
        for spec in RUBRICS["problems"]
        for c in spec["criteria"]
    ]
    lines = ["contestant,problem,criterion,points,total"]
    for index in range(1, n + 1):
        skill = rng.betavariate(2.2, 2.0)
        rows = []
        for problem, code, maximum, step, kind in criteria:
            # Humans explain rules better than they carry out every item: theory comes easier.
            ease = skill + (0.12 if kind == "theory" else -0.05) + rng.uniform(-0.2, 0.2)
            fraction = min(max(ease, 0.0), 1.0)
            steps = int((maximum / step) * Decimal(str(round(fraction, 3))) + Decimal("0.5"))
            rows.append((problem, code, min(step * steps, maximum)))
        total = sum((points for _p, _c, points in rows), Decimal(0))
        for problem, code, points in rows:
            lines.append(
                f"H{index:03d},{problem},{code},{points.normalize():f},{total.normalize():f}"
            )
    return "\n".join(lines) + "\n"

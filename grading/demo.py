"""The demo jury: rubrics, selected systems, groups, assignments, problems 1 and 2 partly
graded (every paper by at least one juror; a discrepancy under discussion, one decided, a
draft, papers left open to try), problem 3 graded and finalized, and invented human
contestants, so that the result review has something to show out of the box.

Invented, like the demo competition it grades. Idempotent: it grades no assignment that has
a mark or is submitted, so a second run changes nothing and a juror's own marks stay.
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

from .models import Assignment, Contestant, Criterion, Paper, ProblemJury
from .scale import MEDALS
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
    if rubric_current(problems[1]) is None:
        rubrics_import(json.dumps(RUBRICS), competition=competition, file="demo-rubrics.json")
    # On the scale the rubrics make (the demo sets none), and only where none are set:
    # thresholds an organizer set stay, even above the scale (its warning says so on the
    # pages), since setting ours could overwrite them or, below a lowered scale, fail.
    if all(getattr(competition, f"{key}_threshold") is None for key in MEDALS):
        competition_set_thresholds(
            competition=competition, **{k: Decimal(v) for k, v in THRESHOLDS.items()}
        )
    tags_ensure_defaults(competition=competition)
    papers_create(competition=competition, system_names=SELECTED)
    for number, usernames in GROUPS.items():
        problem_jurors_set(problem=problems[number], usernames=usernames)
    jurors_assign(competition=competition, per_paper=2)
    _grade_in_progress(competition)
    _finalize_problem(problems[FINALIZED])
    if not Contestant.objects.filter(competition=competition).exists():
        contestants_import(
            competition=competition,
            stream=io.StringIO(contestants_csv()),
            file="demo-contestants.csv",
        )


# --- problems 1 and 2: partly graded, so that the review has provisional totals ---------
#
# Every paper has at least one submitted juror, so every selected system has a total (the
# review's correlation, medals, difficulty and agreement have something to show), and four
# papers stay open for juror1, juror2 and juror3 to try grading. The chair has submitted
# every paper of its own, so it may read the review (a juror with an open paper of the
# competition may not: the review names the systems).

# Problem -> system -> points per criterion in code order, by the systems' demo answers and
# explanations (puzzles/demo.py).
IN_PROGRESS = {
    1: {
        "Frontier-A": ("3", "2", "2", "2"),
        "Frontier-B": ("1", "3", "2", "2"),
        "Team Lexicon": ("3", "1", "1.5", "1"),
        "OpenModel-7B": ("1", "0", "0", "0"),
    },
    2: {
        "Frontier-A": ("3", "2", "4"),
        "Frontier-B": ("2", "3", "1.5"),
        "Team Lexicon": ("3", "1", "1"),
        "OpenModel-7B": ("1", "3", "0"),
    },
}
# (problem, system) -> the jurors who have graded and submitted that paper; the paper's
# other jurors have it open.
SUBMITTED_BY = {
    (1, "Frontier-A"): ("juror1", "juror2"),
    (1, "Frontier-B"): ("juror1", "juror2"),
    (1, "Team Lexicon"): ("juror1",),
    (1, "OpenModel-7B"): ("juror2",),
    (2, "Frontier-A"): ("chair", "juror3"),
    (2, "Frontier-B"): ("chair",),
    (2, "Team Lexicon"): ("chair",),
    (2, "OpenModel-7B"): ("chair", "juror3"),
}
# (problem, system, juror) -> {criterion: (points, comment)} where that juror differs.
DIFFERS = {
    (1, "Frontier-A", "juror2"): {
        "1c": ("0.5", "Names the prefixes but never says ta- is 'your'.")
    },
    (1, "Frontier-B", "juror2"): {"1d": ("1", "The order of -ek and -un is not stated.")},
}
# Under discussion (a thread, no decision): (problem, system, criterion, author, post).
DISCUSSED = (
    1,
    "Frontier-A",
    "1c",
    "juror1",
    "The explanation lists ma- and ta- together; I read that as identifying both.",
)
# Decided by the chair: (problem, system, criterion, points, reason).
DECIDED_IN_PROGRESS = (
    1,
    "Frontier-B",
    "1d",
    "1.5",
    "Both suffixes are right and their order shows in the examples it gives.",
)
# A draft on an open paper: (problem, system, juror, criterion, points, comment).
DRAFT = (1, "OpenModel-7B", "juror1", "1a", "1", "Only the first translation is right.")


def _grade_in_progress(competition: Competition) -> None:
    """Grade the papers of SUBMITTED_BY and leave DRAFT, touching no assignment that has a
    mark or is submitted already (a juror's own work in the demo is never overwritten)."""
    graded: set[tuple[int, str, str]] = set()
    papers: dict[tuple[int, str], Paper] = {}
    criteria: dict[int, dict[str, Criterion]] = {}
    assignments = (
        Assignment.objects.filter(
            paper__problem__competition=competition, paper__problem__number__in=IN_PROGRESS
        )
        .exclude(paper__problem_id__in=ProblemJury.objects.finalized().values("problem_id"))
        .select_related("paper__system", "paper__problem", "juror")
        .order_by("paper__problem__number", "paper__code", "juror__username")
    )
    for assignment in assignments:
        number, system = assignment.paper.problem.number, assignment.paper.system.name
        marks = IN_PROGRESS[number].get(system)
        if marks is None or assignment.submitted_at or assignment.marks.exists():
            continue
        if number not in criteria:
            rubric = rubric_current(assignment.paper.problem)
            criteria[number] = {c.code: c for c in rubric.criteria.all()}
        by_code = criteria[number]
        username = assignment.juror.username
        papers[(number, system)] = assignment.paper
        if username not in SUBMITTED_BY.get((number, system), ()):
            if DRAFT[:3] == (number, system, username):
                mark_save(
                    assignment=assignment,
                    criterion=by_code[DRAFT[3]],
                    points=DRAFT[4],
                    comment=DRAFT[5],
                )
            continue
        differs = DIFFERS.get((number, system, username), {})
        for code, points in zip(sorted(by_code), marks, strict=True):
            points, comment = differs.get(code, (points, ""))
            mark_save(
                assignment=assignment, criterion=by_code[code], points=points, comment=comment
            )
        assignment_submit(assignment=assignment)
        graded.add((number, system, username))

    # The thread and the decision go with the marks they are about: only where this run
    # graded every juror of the paper.
    def fresh(number: int, system: str) -> bool:
        jurors = SUBMITTED_BY[(number, system)]
        return all((number, system, j) in graded for j in jurors)

    number, system, code, author, text = DISCUSSED
    if fresh(number, system):
        comment_post(
            paper=papers[(number, system)],
            criterion=criteria[number][code],
            author=get_user_model().objects.get(username=author),
            text=text,
        )
    number, system, code, points, reason = DECIDED_IN_PROGRESS
    if fresh(number, system):
        criterion_decide(
            paper=papers[(number, system)],
            criterion=criteria[number][code],
            points=points,
            reason=reason,
            chair=get_user_model().objects.get(username="chair"),
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
    graded = Assignment.objects.submitted().filter(paper__problem=problem)
    if graded.exists() or ProblemJury.objects.finalized().filter(problem=problem).exists():
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

"""Build a competition and its jury at IOL scale, seeded, through the test factories and the
app's services.

Problems, tasks, systems and users come from the factories of tests/; rubrics from
`rubrics_import`, grading groups from `problem_jurors_set`, tolerances from
`problem_set_tolerance`, assignments from `jurors_assign`, threads from `comment_post` and
the observation tags from `tags_ensure_defaults`. The rest (outputs, papers built by the
paper factory, marks, submissions, chair's decisions, tags given) is inserted in bulk by
`bulk.py`, the one place that bypasses the services, and says why there.

The same seed gives the same data: every random draw comes from the `rng` given, in a fixed
order.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from decimal import Decimal

from . import bulk

PASSWORD = "jurybench-password"  # the bench jurors' password, in a throwaway database
SYLLABLES = ("ka", "ti", "mu", "ne", "so", "ra", "lu", "we", "pi", "do", "ŋa", "ʔe", "xo", "ʃi")
GLOSSES = ("water", "house", "to see", "red", "the child", "my mother", "two", "he sleeps")
# (maximum, step): every points value k * step for k in 0..maximum/step is valid.
CRITERION_SHAPES = (
    (Decimal(2), Decimal("0.5")),
    (Decimal(3), Decimal(1)),
    (Decimal(1), Decimal("0.5")),
    (Decimal(4), Decimal("0.5")),
    (Decimal(2), Decimal("0.25")),
    (Decimal(5), Decimal(1)),
)


def word(rng: random.Random) -> str:
    """Return an invented word of 2 to 4 syllables."""
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))


def points_drawn(rng: random.Random, maximum: Decimal, step: Decimal) -> Decimal:
    """Return valid points for a criterion: a multiple of its step up to its maximum."""
    return step * rng.randint(0, int(maximum / step))


@dataclass
class Board:
    competition: object
    problems: list
    criteria: dict[int, list]  # problem id -> criteria in order
    papers: dict[int, list]  # problem id -> papers in code order
    counts: dict = field(default_factory=dict)


@dataclass
class Jury:
    board: Board
    chair: object
    groups: dict[int, list]  # problem id -> jurors of its group


def build_board(
    *, slug: str, prefix: str, n_problems: int, n_systems: int, n_criteria: int, rng
) -> Board:
    """Create a competition: problems, tasks, rubrics, systems, outputs, papers."""
    from grading.services import rubrics_import
    from puzzles.models import System, Task
    from tests.puzzles.factories import (
        CompetitionFactory,
        ProblemFactory,
        SystemFactory,
        TaskFactory,
    )

    competition = CompetitionFactory(slug=slug, name=f"IOL jury benchmark ({slug})", year=None)
    problems = [
        ProblemFactory(
            competition=competition,
            number=n,
            title=f"{word(rng).title()} numerals",
            language=word(rng).title(),
            context="\n".join(
                f"{i}. {word(rng)} {word(rng)} — {rng.choice(GLOSSES)}" for i in range(1, 25)
            ),
        )
        for n in range(1, n_problems + 1)
    ]
    tasks = []
    for problem in problems:
        for number in range(1, 1 + 1 + (problem.number - 1) % 3):
            n_items = rng.randint(3, 6)
            tasks.append(
                TaskFactory(
                    problem=problem,
                    external_id=f"{slug}-{problem.number}-{number}",
                    number=number,
                    query="Translate into English:\n"
                    + "\n".join(f"{i}. {word(rng)} {word(rng)}" for i in range(1, n_items + 1)),
                    task_type=Task.TaskType.TRANSLATION,
                    answer_key=[[rng.choice(GLOSSES)] for _ in range(n_items)],
                )
            )
    tasks_of = {p.pk: [t for t in tasks if t.problem_id == p.pk] for p in problems}
    rubrics = rubrics_import(
        json.dumps({"problems": [rubric_json(p, tasks_of[p.pk], n_criteria) for p in problems]}),
        competition=competition,
        file=f"{slug}-rubrics.json",
    )
    criteria = {r.problem_id: list(r.criteria.order_by("order")) for r, _ in rubrics}
    systems = [
        SystemFactory(
            competition=competition,
            name=f"{slug}-system-{i:04d}",
            team=f"team {i % 97}",
            tier=rng.choice(System.Tier.values),
        )
        for i in range(n_systems)
    ]
    n_outputs = bulk.outputs_create(systems, tasks, rng, words=word, glosses=GLOSSES)
    papers = bulk.papers_create(problems, systems, prefix=prefix)
    board = Board(
        competition=competition,
        problems=problems,
        criteria={p.pk: criteria[p.pk] for p in problems},
        papers={pk: sorted(own, key=lambda x: x.code) for pk, own in papers.items()},
    )
    board.counts = {
        "problems": len(problems),
        "tasks": len(tasks),
        "criteria": sum(len(c) for c in criteria.values()),
        "systems": len(systems),
        "outputs": n_outputs,
        "papers": sum(len(own) for own in papers.values()),
    }
    return board


def rubric_json(problem, tasks: list, n_criteria: int) -> dict:
    """Return one problem's entry of the rubric file: n_criteria criteria over its tasks,
    maxima 1 to 5 and steps 0.25 to 1, the last one a theory criterion."""
    criteria = []
    for order in range(1, n_criteria + 1):
        maximum, step = CRITERION_SHAPES[(order + problem.number) % len(CRITERION_SHAPES)]
        task = tasks[order % len(tasks)]
        criteria.append(
            {
                "code": f"{problem.number}.{order}",
                "title": f"Item {order % task.n_items + 1} of task {task.number}",
                "description": "Full marks for the form and the rule; half for the form.",
                "kind": "theory" if order == n_criteria else "assignment",
                "maximum": str(maximum),
                "step": str(step),
                "task": task.external_id,
                "items": [order % task.n_items + 1],
            }
        )
    return {"problem": problem.number, "criteria": criteria}


def build_jury(board: Board, *, group_size: int, per_paper: int, rng) -> Jury:
    """Create jurors and a chair, the grading groups, assignments (about half submitted, the
    others drafted in part), marks that mostly agree, threads, decisions and tags."""
    from django.contrib.auth.hashers import make_password
    from factory import Transformer

    from grading.models import Assignment, ObservationTag
    from grading.services import (
        comment_post,
        jurors_assign,
        problem_jurors_set,
        problem_set_tolerance,
        tags_ensure_defaults,
    )
    from ioleval.roles import CHAIR, JUROR
    from tests.grading.factories import UserFactory

    # Hashed once and forced past the factory's hashing: the bench jurors all share it.
    password = Transformer.Force(make_password(PASSWORD))
    groups = {
        p.pk: [
            UserFactory(username=f"bench-p{p.number}-j{k:02d}", password=password, roles=[JUROR])
            for k in range(group_size)
        ]
        for p in board.problems
    }
    chair = UserFactory(username="bench-chair", password=password, roles=[CHAIR])
    for problem in board.problems:
        problem_jurors_set(problem=problem, usernames=[j.username for j in groups[problem.pk]])
        problem_set_tolerance(problem=problem, tolerance=Decimal("0.5"), chair=chair)
    competition = board.competition
    jurors_assign(competition=competition, per_paper=per_paper)
    # In creation order: per problem, per paper in code order, the paper's jurors in turn.
    assignments = list(
        Assignment.objects.filter(paper__problem__competition=competition)
        .select_related("juror")
        .order_by("pk")
    )
    started: set[int] = set()  # jurors given a paper: each keeps their first one a draft
    submitted = []
    for a in assignments:
        if a.juror_id in started and rng.random() < 0.5:
            submitted.append(a)
        started.add(a.juror_id)
    bulk.assignments_submit(submitted)
    by_paper: dict[int, list] = {}
    for a in assignments:
        by_paper.setdefault(a.paper_id, []).append(a)
    n_marks = bulk.marks_create(board, by_paper, rng, draw=points_drawn)

    n_comments = 0
    decided = []
    for problem in board.problems:
        criteria = board.criteria[problem.pk]
        for i, paper in enumerate(board.papers[problem.pk]):
            if i % 10 == 0:
                comment_post(
                    paper=paper,
                    criterion=criteria[0],
                    author=by_paper[paper.pk][0].juror,
                    text="I read item 2 differently: the suffix is a plural.",
                )
                n_comments += 1
            if i % 20 == 0:
                decided.append((paper, criteria[1]))
    bulk.decisions_create(decided, chair=chair)
    tags_ensure_defaults(competition=competition)
    tags = list(ObservationTag.objects.filter(competition=competition))
    tagged = [(a, tags[i % len(tags)]) for i, a in enumerate(assignments) if i % 5 == 0]
    bulk.tags_create(tagged)
    board.counts.update(
        {
            "jurors": sum(len(g) for g in groups.values()),
            "assignments": len(assignments),
            "submitted": len(submitted),
            "marks": n_marks,
            "comments": n_comments,
            "decisions": len(decided),
            "paper_tags": len(tagged),
        }
    )
    return Jury(board=board, chair=chair, groups=groups)

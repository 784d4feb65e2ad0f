"""One problem whose papers a juror grades by criterion: outputs with exact-match flags, a
rubric with assignment criteria that suggest marks (share, per_item, none) and a theory one."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from grading.models import Assignment, Criterion, Paper, Rubric
from ioleval.roles import JUROR
from puzzles.models import Competition, Output, Problem, System, Task

PASSWORD = "pw-for-tests"


@dataclass
class CriterionData:
    competition: Competition
    problem: Problem
    task: Task
    criteria: dict[str, Criterion]  # code -> criterion
    papers: list[Paper]  # by code
    juror: object  # assigned every paper
    other: object  # a second juror, assigned every paper
    stranger: object  # a juror with no paper of this problem


def flags_of(index: int) -> list[int]:
    """The exact-match flags of paper `index`'s four items: a pattern that varies."""
    return [int(index % 2 == 0), int(index % 3 == 0), 1, int(index % 4 == 0)]


def build(n_papers: int, *, slug: str = "bycrit", prefix: str = "") -> CriterionData:
    competition = Competition.objects.create(slug=slug, name="By criterion")
    problem = Problem.objects.create(competition=competition, number=1, context="data ɮ ʁ")
    task = Task.objects.create(
        problem=problem,
        external_id=f"{slug}-T1",
        number=1,
        task_type="translation",
        query="Translate into English.",
        answer_key=[["water"], ["house"], ["red"], ["two"]],
    )
    rubric = Rubric.objects.create(problem=problem, version=1)
    shapes = [
        ("1a", Decimal(2), Decimal("0.5"), [1, 2, 3], "share", None),
        ("1b", Decimal(3), Decimal("0.5"), [1, 2, 3, 4], "per_item", Decimal(1)),
        ("1c", Decimal(1), Decimal("0.5"), [4], "none", None),
        ("1d", Decimal(2), Decimal(1), [], "share", None),
    ]
    criteria = {}
    for order, (code, maximum, step, items, rule, per_item) in enumerate(shapes, start=1):
        criteria[code] = Criterion.objects.create(
            rubric=rubric,
            order=order,
            code=code,
            title=f"criterion {code}",
            kind="theory" if not items else "assignment",
            maximum=maximum,
            step=step,
            task=task if items else None,
            items=items,
            suggest_rule=rule,
            suggest_points_per_item=per_item,
        )
    systems = System.objects.bulk_create(
        System(competition=competition, name=f"{slug}-secret-system-{i}") for i in range(n_papers)
    )
    key = ["water", "house", "red", "two"]
    outputs = []
    for i, system in enumerate(systems):
        flags = flags_of(i)
        answers = [k if f else f"wrong{i}" for k, f in zip(key, flags, strict=True)]
        outputs.append(
            Output(
                system=system,
                task=task,
                raw_text="\n".join(answers),
                parsed_items=answers,
                extracted_items=answers,
                explanation="because **rules**",
                scores={"iol2026": {"parsed": {"em": sum(flags) / 4, "item_em": flags}}},
            )
        )
    Output.objects.bulk_create(outputs)
    papers = Paper.objects.bulk_create(
        Paper(system=s, problem=problem, code=f"P1-{prefix}{i:04d}") for i, s in enumerate(systems)
    )
    User = get_user_model()
    group = Group.objects.get_or_create(name=JUROR)[0]
    users = []
    for name in ("juror", "other", "stranger"):
        user = User.objects.create_user(f"{slug}-{name}", password=PASSWORD)
        user.groups.add(group)
        users.append(user)
    Assignment.objects.bulk_create(Assignment(paper=p, juror=j) for p in papers for j in users[:2])
    return CriterionData(competition, problem, task, criteria, papers, *users)

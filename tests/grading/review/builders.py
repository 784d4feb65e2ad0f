"""A small competition for the review, built through the factories and the services."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from grading.models import Contestant, ContestantPoints
from grading.services import problem_finalize
from puzzles.models import Competition, ExternalScore, Problem, System
from puzzles.services import competition_rescore
from tests.grading.factories import (
    ChairFactory,
    JurorFactory,
    PaperFactory,
    paper_graded,
    rubric_with,
)
from tests.puzzles.factories import (
    CompetitionFactory,
    OutputFactory,
    ProblemFactory,
    SystemFactory,
    TaskFactory,
)

D = Decimal
# Problem 1: 1a /2, 1b /3; problem 2: 2a /4, 2b /1. Jury maximum 10.
RUBRICS = {1: (("1a", 2, "0.5"), ("1b", 3, "0.5")), 2: (("2a", 4, 1), ("2b", 1, "0.5"))}


def system_marks(i: int) -> dict[int, dict[str, str]]:
    """Return the agreed marks of the i-th external system, per problem and criterion code."""
    return {
        1: {"1a": str(min(D(2), D("0.5") * i)), "1b": str(min(D(3), D("0.5") * (i + 1)))},
        2: {"2a": str(min(4, i)), "2b": str(D("0.5") * (i % 3))},
    }


def external_score(i: int) -> tuple[float, float, float]:
    """Return the i-th external system's imported (GM, problem 1, problem 2) on 0-1."""
    overall = round(0.1 + 0.12 * i, 4)
    return overall, overall, round(max(overall - 0.05, 0.0), 4)


@dataclass
class Built:
    competition: Competition
    problems: dict[int, Problem]
    jurors: dict[int, list]
    chair: object
    systems: list[System]  # the computed one first, then the external ones


def review_competition(
    *,
    slug: str = "rv",
    externals: int = 4,
    finalize: bool = True,
    contestants: bool = True,
    thresholds: bool = True,
) -> Built:
    """Build two problems graded by two jurors each (always agreeing), one system with outputs
    (all answers right: automatic 100, jury 10 of 10 except 2b at 0.5) and `externals`
    systems with imported figures and the marks of system_marks(i)."""
    competition = CompetitionFactory(slug=slug, name=f"Review {slug}")
    problems = {n: ProblemFactory(competition=competition, number=n) for n in RUBRICS}
    for n, criteria in RUBRICS.items():
        rubric_with(problems[n], *criteria)
        TaskFactory(problem=problems[n], number=1)
    jurors = {n: [JurorFactory(), JurorFactory()] for n in RUBRICS}
    computed = SystemFactory(competition=competition, name="Computed")
    for problem in problems.values():
        for task in problem.tasks.all():
            OutputFactory(system=computed, task=task, raw_text='["one", "two"]')
    competition_rescore(competition=competition)
    systems = [computed]
    marks = {computed.pk: {1: {"1a": "2", "1b": "3"}, 2: {"2a": "4", "2b": "0.5"}}}
    for i in range(externals):
        system = SystemFactory(competition=competition, name=f"Ext {i}", external=True)
        overall, p1, p2 = external_score(i)
        ExternalScore.objects.create(system=system, problem=None, score=overall)
        ExternalScore.objects.create(system=system, problem=problems[1], score=p1)
        ExternalScore.objects.create(system=system, problem=problems[2], score=p2)
        systems.append(system)
        marks[system.pk] = system_marks(i)
    for system in systems:
        for n, problem in problems.items():
            paper = PaperFactory(problem=problem, system=system)
            paper_graded(paper, {j: marks[system.pk][n] for j in jurors[n]})
    chair = ChairFactory()
    if finalize:
        for problem in problems.values():
            problem_finalize(problem=problem, chair=chair)
    if thresholds:
        Competition.objects.filter(pk=competition.pk).update(
            gold_threshold=D(8), silver_threshold=D(6), bronze_threshold=D(4)
        )
        competition.refresh_from_db()
    if contestants:
        contestants_add(competition, problems)
    return Built(competition, problems, jurors, chair, systems)


# Ten contestants, i = 0..9: criterion points i times these, totals 0.7 i (0 to 6.3); mean
# fractions 1a 0.225, 1b 0.3, 2a 0.3375, 2b 0.45.
CONTESTANT_SHARES = {"1a": 0.1, "1b": 0.2, "2a": 0.3, "2b": 0.1}
CONTESTANT_POINTS = [{code: i * k for code, k in CONTESTANT_SHARES.items()} for i in range(10)]


def contestants_add(competition: Competition, problems: dict[int, Problem]) -> None:
    """Add ten contestants with criterion points (totals 0 to 6.3 of 10)."""
    for i, points in enumerate(CONTESTANT_POINTS):
        total = D(str(round(sum(points.values()), 2)))
        person = Contestant.objects.create(competition=competition, code=f"H{i:02d}", total=total)
        for code, value in points.items():
            ContestantPoints.objects.create(
                contestant=person,
                problem=problems[int(code[0])],
                criterion_code=code,
                points=D(str(round(value, 2))),
            )

"""puzzles 0011 moves each competition's total points to the jury's scale: the untouched
default and a value equal to the rubrics' sum follow the rubrics; any other value is kept as
an organizer's scale. Backwards it gives total points again."""

from __future__ import annotations

from decimal import Decimal as D

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("puzzles", "0010_run_ablation_never_selected"), ("grading", "0005_suggestions")]
AFTER = [("puzzles", "0011_jury_scale")]


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.mark.django_db(transaction=True)
def test_total_points_become_the_jurys_scale_and_back():
    try:
        apps = _migrate(BEFORE)
        Competition = apps.get_model("puzzles", "Competition")
        Problem = apps.get_model("puzzles", "Problem")
        Rubric = apps.get_model("grading", "Rubric")
        Criterion = apps.get_model("grading", "Criterion")

        def competition(slug: str, total, *rubrics: list[int]):
            c = Competition.objects.create(slug=slug, name=slug, total_points=D(total))
            for number, maxima in enumerate(rubrics, start=1):
                problem = Problem.objects.create(competition=c, number=number)
                # An older version first: only the current one counts.
                Criterion.objects.create(
                    rubric=Rubric.objects.create(problem=problem, version=1),
                    order=1,
                    code="old",
                    title="old",
                    maximum=D(99),
                )
                current = Rubric.objects.create(problem=problem, version=2)
                for order, maximum in enumerate(maxima, start=1):
                    Criterion.objects.create(
                        rubric=current, order=order, code=f"c{order}", title="c", maximum=D(maximum)
                    )

        competition("readme", 100, [10, 5], [10, 5], [10, 5], [10, 5], [10, 5])  # 75
        competition("demo", 30, [10], [4, 6], [10])  # the demo set its total to its rubrics
        competition("admin", 60, [10], [10], [10])  # an organizer's 60 in the admin
        competition("bare", 40)  # no rubric, an organizer's 40
        competition("fresh", 100)  # no rubric, the default

        apps = _migrate(AFTER)
        scales = dict(
            apps.get_model("puzzles", "Competition").objects.values_list("slug", "jury_scale")
        )
        assert scales == {
            "readme": None,
            "demo": None,
            "admin": D(60),
            "bare": D(40),
            "fresh": None,
        }

        apps = _migrate(BEFORE)
        totals = dict(
            apps.get_model("puzzles", "Competition").objects.values_list("slug", "total_points")
        )
        assert totals == {
            "readme": D(75),
            "demo": D(30),
            "admin": D(60),
            "bare": D(40),
            "fresh": D(100),
        }
    finally:
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(executor.loader.graph.leaf_nodes())

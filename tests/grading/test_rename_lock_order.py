"""Renaming problems while rubrics are imported: neither waits for the other in a circle
(PostgreSQL: the row locks that deadlocked)."""

from __future__ import annotations

import json
import threading
import time

import pytest
from django.db import connection

from grading.models import Rubric
from grading.services.rubrics import files as rubric_services
from puzzles.services.competitions import competition_names_save
from tests.concurrency import run_concurrently
from tests.grading.factories import ProblemJuryFactory
from tests.puzzles.factories import CompetitionFactory, ProblemFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("postgres_only")]

PAUSE = 0.8  # seconds the import's commit pauses after the first rubric's foreign-key check


@pytest.fixture
def commit_pause():
    """Pause the commit of a rubric of one problem just after its foreign-key check (Django's
    foreign keys are checked at commit, each check taking FOR KEY SHARE on the row it points
    to; a trigger named after the check's fires after it): the moment a rename met."""
    table = Rubric._meta.db_table
    paused: list[int] = []

    def pause(problem_id: int) -> None:
        paused.append(problem_id)
        with connection.cursor() as cursor:
            cursor.execute(
                "CREATE FUNCTION test_commit_pause() RETURNS trigger LANGUAGE plpgsql AS"
                f" $$ BEGIN PERFORM pg_sleep({PAUSE}); RETURN NULL; END $$"
            )
            cursor.execute(
                f"CREATE CONSTRAINT TRIGGER zz_test_commit_pause AFTER INSERT ON {table}"
                " DEFERRABLE INITIALLY DEFERRED FOR EACH ROW"
                f" WHEN (NEW.problem_id = {int(problem_id)})"
                " EXECUTE FUNCTION test_commit_pause()"
            )

    yield pause
    if paused:
        with connection.cursor() as cursor:
            cursor.execute(f"DROP TRIGGER IF EXISTS zz_test_commit_pause ON {table}")
            cursor.execute("DROP FUNCTION IF EXISTS test_commit_pause()")


def test_renaming_problems_during_a_rubric_import_listing_them_out_of_order(
    monkeypatch, commit_pause
):
    """Before: the rename locked the problems (FOR UPDATE, number order) while the import's
    commit checked the new rubrics' foreign keys in file order, each taking FOR KEY SHARE on
    its problem: 2 then 1 against 1 then 2, a deadlock. Now the rename takes locks that key
    shares do not conflict with (titles are not keys), and the import writes in number
    order."""
    competition = CompetitionFactory(slug="rename")
    problems = {}
    for number in (1, 2):
        problems[number] = ProblemFactory(
            competition=competition, number=number, title=f"old {number}"
        )
        ProblemJuryFactory(problem=problems[number])  # a jury at work: its rows exist already
    commit_pause(problems[2].pk)  # the file's first problem
    text = json.dumps(
        {
            "problems": [
                {"problem": n, "criteria": [{"code": f"{n}a", "title": "A", "maximum": 2}]}
                for n in (2, 1)
            ]
        }
    )
    replace = rubric_services.rubric_replace
    written: list[int] = []
    committing = threading.Event()

    def recorded(*, problem, **kwargs):
        result = replace(problem=problem, **kwargs)
        written.append(problem.number)
        if len(written) == 2:
            committing.set()  # all written: the import commits next
        return result

    monkeypatch.setattr(rubric_services, "rubric_replace", recorded)

    def rename():
        committing.wait(10)
        time.sleep(PAUSE / 3)  # within the import's commit, after its first check
        competition_names_save(
            competition=competition,
            name="Renamed",
            titles={1: "new 1", 2: "new 2"},
            language_names={},
        )
        finished.append("rename")

    def import_rubrics():
        rubric_services.rubrics_import(text, competition=competition)
        finished.append("import")

    finished: list[str] = []
    run_concurrently([import_rubrics, rename])
    assert written == [1, 2]  # number order, whatever the file's
    assert finished == ["rename", "import"]  # the rename did not wait for the import's commit
    assert sorted(competition.problems.values_list("title", flat=True)) == ["new 1", "new 2"]
    assert Rubric.objects.filter(problem__competition=competition).count() == 2

"""Every import that replaces or adds to a competition's data takes the competition's lock
before it writes anything (tests/puzzles/test_import_locks.py shows on PostgreSQL that a
second import waits for it)."""

from __future__ import annotations

import io

import pytest
from django.db import connection, transaction

from grading.services import contestants_import
from puzzles.analytics.probes.imports import probes_import
from puzzles.analytics.runs.imports import runs_import
from puzzles.analytics.runs.output_imports import run_outputs_import
from puzzles.analytics.techniques.services import runs_tag, runs_untag, tags_import
from puzzles.models import Competition, CompetitionQuerySet, Run, Task
from puzzles.services import system_scores_import

WRITES = ("INSERT", "UPDATE", "DELETE")


@pytest.fixture
def demo(demo):
    """The demo's competition (from the shared `demo` fixture of tests/conftest.py)."""
    return demo.competition


@pytest.fixture
def events(monkeypatch):
    """What the code under test does, in order: "lock" (the competition's) and "write"."""
    log: list[str] = []
    lock = CompetitionQuerySet.lock

    def recorded(self, competition):
        log.append("lock")
        return lock(self, competition)

    def watch(execute, sql, params, many, context):
        if sql.lstrip().split(" ", 1)[0].upper() in WRITES:
            log.append("write")
        return execute(sql, params, many, context)

    monkeypatch.setattr(CompetitionQuerySet, "lock", recorded)
    with connection.execute_wrapper(watch):
        yield log


def _ordinary_run(competition: Competition) -> Run:
    return (
        Run.objects.submissions()
        .filter(system__competition=competition, status=Run.Status.SCORED)
        .select_related("system")
        .order_by("system__name", "run_index")[0]
    )


def _imports(competition: Competition) -> dict[str, callable]:
    run = _ordinary_run(competition)
    team, index = run.system.name, run.run_index
    task = Task.objects.filter(problem__competition=competition).order_by("pk")[0]

    def csv(text: str) -> io.StringIO:
        return io.StringIO(text)

    return {
        "runs": lambda: runs_import(
            competition=competition,
            stream=csv(
                "team,run,submitted_at,status,failure,public,private,selected\n"
                f"{team},900,2026-07-01T10:00:00Z,scored,,0.5,0.5,0\n"
            ),
            file="runs.csv",
            scope="submissions",
        ),
        "run outputs": lambda: run_outputs_import(
            competition=competition,
            stream=csv(f"team,run,task,output\n{team},{index},{task.external_id},an answer\n"),
            file="outputs.csv",
        ),
        "tags": lambda: tags_import(
            competition=competition,
            stream=csv(f"team,run,technique\n{team},{index},lock test\n"),
            file="tags.csv",
        ),
        "tag": lambda: runs_tag(
            competition=competition, team=team, runs=[index], technique="lock test"
        ),
        "untag": lambda: runs_untag(
            competition=competition, team=team, runs=None, technique="lock test"
        ),
        "probes": lambda: probes_import(
            competition=competition,
            stream=csv("model,problem,probe_type,item,correct\nSome model,1,lexicon,1,1\n"),
            file="probes.csv",
        ),
        "system scores": lambda: system_scores_import(
            competition=competition,
            stream=csv("system,score\nSome external system,0.5\n"),
            file="scores.csv",
        ),
        "contestants": lambda: contestants_import(
            competition=competition,
            stream=csv("contestant,total\nC001,20\n"),
            file="contestants.csv",
        ),
    }


@pytest.mark.parametrize(
    "name",
    ["runs", "run outputs", "tags", "tag", "untag", "probes", "system scores", "contestants"],
)
def test_an_import_locks_its_competition_before_it_writes(demo, events, name):
    imports = _imports(demo)
    if name == "untag":
        runs_tag(
            competition=demo, team=_ordinary_run(demo).system.name, runs=None, technique="lock test"
        )
        events.clear()
    imports[name]()
    assert "write" in events, events
    assert events[0] == "lock", events


@pytest.mark.django_db(transaction=True)
def test_the_lock_is_refused_outside_a_transaction(demo):
    with pytest.raises(transaction.TransactionManagementError):
        Competition.objects.lock(demo)
    with transaction.atomic():
        assert Competition.objects.lock(demo) == demo

"""Imports that replace a competition's data take its row lock, and wait for each other."""

from __future__ import annotations

import io
import threading

import pytest
from django.db import transaction

from puzzles.analytics.runs.imports import runs_import
from puzzles.models import Competition, Run, System
from tests.concurrency import run_concurrently

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("postgres_only")]


def test_a_runs_import_waits_for_another_import_holding_the_competition(demo):
    competition = Competition.objects.get(slug="demo")
    team = System.objects.filter(competition=competition, oracle=False).order_by("name")[0]
    csv = (
        "team,run,submitted_at,status,failure,public,private,selected\n"
        f"{team.name},900,2026-07-01T10:00:00Z,scored,,0.5,0.5,0\n"
    )
    holding, order = threading.Event(), []

    def other_import():
        with transaction.atomic():
            Competition.objects.lock(competition)
            holding.set()
            threading.Event().wait(0.7)  # long enough for the runs import to reach the lock
            order.append("other import done")

    def import_runs():
        holding.wait(10)
        runs_import(
            competition=competition,
            stream=io.StringIO(csv),
            file="runs.csv",
            scope="submissions",
        )
        order.append("runs import done")

    run_concurrently([other_import, import_runs], together=False)

    assert order == ["other import done", "runs import done"]
    assert Run.objects.filter(system=team, run_index=900).exists()

"""A threshold and the scale set at the same time never end with the threshold above the
scale: both writes hold the competition's row, so the second checks what the first saved.

Each service's read of the scale is slowed (a sleep after the real read) so that, without the
lock, both would check against the state before either saved: gold 75 would then be saved
against the organizer's 100 while the scale moved to 70."""

from __future__ import annotations

import time
from decimal import Decimal as D

import pytest

from grading.errors import GradingError
from grading.services import competition_set_scale, competition_set_thresholds
from grading.services import scale as scale_services
from puzzles.models import Competition
from tests.concurrency import run_concurrently
from tests.puzzles.factories import CompetitionFactory, ProblemFactory


@pytest.mark.django_db(transaction=True)
def test_a_threshold_and_a_scale_set_together_never_disagree(postgres_only, monkeypatch):
    real = scale_services.jury_scale

    def slow_read(competition):
        found = real(competition)
        time.sleep(0.5)
        return found

    monkeypatch.setattr(scale_services, "jury_scale", slow_read)
    competition = CompetitionFactory(slug="race", jury_scale=D(100))
    ProblemFactory(competition=competition, number=1)
    competition_set_thresholds(competition=competition, gold=D(60), silver=D(40))
    outcomes: dict[str, str] = {}

    def job(name, action):
        def run():
            try:
                action()
            except GradingError as exc:
                outcomes[name] = f"refused: {exc.message}"
            else:
                outcomes[name] = "saved"

        return run

    def thresholds():
        competition_set_thresholds(
            competition=Competition.objects.get(slug="race"), gold=D(75), silver=D(40)
        )

    def scale():
        competition_set_scale(competition=Competition.objects.get(slug="race"), points=D(70))

    run_concurrently([job("thresholds", thresholds), job("scale", scale)])
    final = Competition.objects.get(slug="race")
    assert sorted(outcomes.values())[1] == "saved"  # one of them went through
    assert sorted(outcomes.values())[0].startswith("refused: ")  # the other saw it
    assert final.gold_threshold <= final.jury_scale, (outcomes, final.gold_threshold)

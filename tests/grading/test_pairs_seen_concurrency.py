"""The record of who has seen which system wrote which paper is written once, even when the
first views of a user come at the same time (PostgreSQL)."""

from __future__ import annotations

import pytest

from grading.models import PairsSeen
from grading.services import pairs_seen_record
from tests.concurrency import run_concurrently
from tests.grading.factories import ChairFactory
from tests.puzzles.factories import CompetitionFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("postgres_only")]


def test_first_views_at_once_write_one_record():
    chair = ChairFactory()
    competition = CompetitionFactory()

    def view(source: str):
        return lambda: pairs_seen_record(user=chair, competition=competition, source=source)

    run_concurrently([view(f"page {i}") for i in range(6)])
    assert PairsSeen.objects.filter(user=chair, competition=competition).count() == 1
    assert PairsSeen.history.count() == 1

"""Celery tasks of the problem set: thin wrappers that take ids and call a service."""

from __future__ import annotations

from celery import shared_task

from .models import Competition
from .services import competition_rescore


@shared_task
def competition_rescore_task(competition_id: int) -> int:
    """Rescore every output of a competition; return how many were rescored."""
    competition = Competition.objects.get(pk=competition_id)
    return competition_rescore(competition=competition)

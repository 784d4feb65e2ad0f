"""Reads of jurors' loads: papers assigned and submitted, overall or in one competition.

The accounts pages and the grading-group form ask here rather than reading grading's
tables themselves. Each function runs a fixed number of queries.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db.models import Count, Q

from ioleval.roles import JUROR, ORGANIZER
from puzzles.models import Competition

from ..models import Assignment, ProblemJuror


@dataclass(frozen=True)
class JurorLoad:
    assigned: int = 0
    submitted: int = 0


def juror_loads() -> dict[int, JurorLoad]:
    """Return, by user id, the papers assigned and submitted of everyone with a paper."""
    rows = Assignment.objects.values("juror_id").annotate(
        assigned=Count("pk"), submitted=Count("pk", filter=Assignment.submitted_q())
    )
    return {r["juror_id"]: JurorLoad(r["assigned"], r["submitted"]) for r in rows}


@dataclass(frozen=True)
class GroupCandidate:
    """An account the grading-group form offers, with its load in the competition."""

    username: str
    name: str
    active: bool
    organizer: bool
    load: JurorLoad
    problems: tuple[int, ...]

    @property
    def label(self) -> str:
        """Return the form's label: who, papers here, groups, and why it may be refused."""
        who = f"{self.username} ({self.name})" if self.name else self.username
        text = f"{who}: {self.load.assigned} papers here, {self.load.submitted} submitted"
        if self.problems:
            text += "; groups " + ", ".join(map(str, self.problems))
        if not self.active:
            text += "; deactivated"
        if self.organizer:
            text += "; organizer, cannot grade blind"
        return text


def group_candidates(competition: Competition) -> list[GroupCandidate]:
    """Return the active juror accounts (no organizers) and the competition's group members.

    Members stay listed whatever became of their account, so that they can be removed.
    """
    User = get_user_model()
    members = ProblemJuror.objects.filter(problem__competition=competition)
    jurors = (
        User.objects.filter(is_active=True, is_superuser=False, groups__name=JUROR)
        .exclude(groups__name=ORGANIZER)
        .values("pk")
    )
    users = list(
        User.objects.filter(Q(pk__in=jurors) | Q(pk__in=members.values("juror_id")))
        .order_by("username")
        .distinct()
    )
    organizers = set(
        User.objects.filter(
            Q(pk__in=[u.pk for u in users]) & (Q(is_superuser=True) | Q(groups__name=ORGANIZER))
        ).values_list("pk", flat=True)
    )
    groups: dict[int, list[int]] = defaultdict(list)
    for juror_id, number in members.order_by("problem__number").values_list(
        "juror_id", "problem__number"
    ):
        groups[juror_id].append(number)
    loads = {
        r["juror_id"]: JurorLoad(r["assigned"], r["submitted"])
        for r in Assignment.objects.filter(paper__problem__competition=competition)
        .values("juror_id")
        .annotate(assigned=Count("pk"), submitted=Count("pk", filter=Assignment.submitted_q()))
    }
    return [
        GroupCandidate(
            username=u.username,
            name=u.get_full_name(),
            active=u.is_active,
            organizer=u.pk in organizers,
            load=loads.get(u.pk, JurorLoad()),
            problems=tuple(groups.get(u.pk, ())),
        )
        for u in users
    ]

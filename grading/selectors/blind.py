"""Who is not blind for a competition: organizers by nature, staff accounts that may read
papers or outputs beside their systems in the Django admin, and whoever has been shown which
system wrote which paper of it (grading.models.PairsSeen). One rule, read by the jury page,
the grading groups and the assignment of jurors."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.db.models import Q
from django.utils import timezone

from ioleval.roles import CHAIR, JUROR, ORGANIZER
from puzzles.models import Competition

from ..models import Assignment, PairsSeen, ProblemJuror


@dataclass(frozen=True)
class NotBlind:
    """A user who knows which system wrote papers of the competition, and why."""

    username: str
    reason: str
    confirmed: str = ""  # the organizer's latest confirmation of assigning them, in words

    @property
    def text(self) -> str:
        return f"{self.username} ({self.reason})"


def _date(when) -> str:
    return timezone.localtime(when).strftime("%Y-%m-%d %H:%M")


# The admin pages that show what a system wrote beside its name: the papers (code, system)
# and the outputs (the text a paper shows). A staff account that may view either (view or
# change permission, its own or its groups') can look at any time, recorded or not.
ADMIN_PAIRS = (("grading", "paper"), ("puzzles", "output"))
ADMIN_REASON = (
    "a staff account that may view papers or system outputs in the admin, beside their systems"
)


def _admin_readers(users) -> set[str]:
    """Return the usernames among `users` whose admin shows papers or outputs (one query)."""
    allowed = Q()
    for app, model in ADMIN_PAIRS:
        allowed |= Q(content_type__app_label=app, codename__in=[f"view_{model}", f"change_{model}"])
    permissions = Permission.objects.filter(allowed)
    return set(
        users.filter(is_staff=True, is_active=True)
        .filter(
            Q(is_superuser=True)
            | Q(user_permissions__in=permissions)
            | Q(groups__permissions__in=permissions)
        )
        .values_list("username", flat=True)
    )


def not_blind(competition: Competition, user_ids: Iterable[int] | None = None) -> list[NotBlind]:
    """Return the users not blind for the competition, by username, in three queries: among
    `user_ids`, or else its grading groups' members and (if shown the pairs) the juror and
    chair accounts."""
    User = get_user_model()
    if user_ids is not None:
        users = User.objects.filter(pk__in=list(user_ids))
        candidates = users
    else:
        members = ProblemJuror.objects.filter(problem__competition=competition).values("juror_id")
        users = User.objects.filter(pk__in=members)
        candidates = User.objects.filter(Q(pk__in=members) | Q(groups__name__in=(JUROR, CHAIR)))
    organizers = set(
        users.filter(Q(is_superuser=True) | Q(groups__name=ORGANIZER)).values_list(
            "username", flat=True
        )
    )
    admins = _admin_readers(users) - organizers
    seen = {
        record.user.username: record
        for record in PairsSeen.objects.filter(
            competition=competition, user__in=candidates.values("pk")
        ).select_related("user", "confirmed_by")
    }
    found = []
    for username in sorted(organizers | admins | set(seen)):
        record = seen.get(username)
        if username in organizers:
            reason = "an organizer: organizers see which system wrote each paper"
        elif username in admins:
            reason = ADMIN_REASON
        else:
            reason = (
                f"shown which system wrote which paper by {record.source}, {_date(record.seen_at)}"
            )
        confirmed = ""
        if record is not None and record.confirmed_at is not None:
            by = record.confirmed_by.username if record.confirmed_by else "the command line"
            confirmed = f"assigning confirmed by {by}, {_date(record.confirmed_at)}"
        found.append(NotBlind(username, reason, confirmed))
    return found


# --- blindness by sequence: the review opens once one's own papers are in -------------------


def papers_still_graded(user, competition: Competition | None = None) -> dict[int, list[str]]:
    """Return, per competition id, the codes of the user's papers not yet submitted (one
    query): while there are any, the result review (which names the system behind papers)
    stays closed to them."""
    rows = Assignment.objects.of(user).open()
    if competition is not None:
        rows = rows.filter(paper__problem__competition=competition)
    codes: dict[int, list[str]] = defaultdict(list)
    for competition_id, code in rows.order_by("paper__code").values_list(
        "paper__problem__competition_id", "paper__code"
    ):
        codes[competition_id].append(code)
    return dict(codes)


def review_closed_text(codes: list[str]) -> str:
    """Say why the review is closed to a user still grading these papers, and when it opens."""
    shown = ", ".join(codes[:10]) + (" …" if len(codes) > 10 else "")
    papers = f"{len(codes)} paper{'s' if len(codes) != 1 else ''}"
    return (
        "The result review names the system behind papers, so it stays closed while you"
        f" grade papers of this competition: it opens once you submit your {papers} still"
        f" in progress ({shown})"
    )

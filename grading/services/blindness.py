"""Records of who has been shown which system wrote which paper (grading.models.PairsSeen)."""

from __future__ import annotations

from django.utils import timezone

from puzzles.models import Competition

from ..models import PairsSeen


def pairs_seen_record(*, user, competition: Competition, source: str) -> None:
    """Record that the user was shown paper codes beside their systems, once per competition.

    One indexed read per call; the write happens at the first call alone (a concurrent first
    call is settled by the unique constraint, through get_or_create)."""
    if not user.is_authenticated:
        return
    PairsSeen.objects.get_or_create(user=user, competition=competition, defaults={"source": source})


def pairs_seen_confirm(*, users, competition: Competition, by) -> None:
    """Record an organizer's confirmation that these not-blind users get papers of the
    competition (`by` None: from the command line); an organizer without a record gets one."""
    now = timezone.now()
    for user in users:
        record, _ = PairsSeen.objects.get_or_create(
            user=user, competition=competition, defaults={"source": "the organizer role"}
        )
        record.confirmed_at = now
        record.confirmed_by = by
        record._history_user = by
        record.save(update_fields=["confirmed_at", "confirmed_by"])

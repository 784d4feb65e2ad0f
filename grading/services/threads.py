"""What a juror has read of the criteria's threads: opening a thread marks it read."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from ..models import Criterion, Paper, ThreadRead


@transaction.atomic
def thread_mark_read(
    *, juror: AbstractBaseUser, paper: Paper, criterion: Criterion, last_post: int
) -> ThreadRead:
    """Record that the juror has read the criterion's thread of the paper up to the post with
    id `last_post` (the latest the page showed them; 0 for none).

    Never backwards: a page loaded earlier (another tab) and reported later leaves a later
    reading as it is. Two first readings at once make one record (the unique constraint)."""
    now = timezone.now()
    read, created = ThreadRead.objects.get_or_create(
        juror=juror,
        paper=paper,
        criterion_code=criterion.code,
        defaults={"last_post": last_post, "read_at": now},
    )
    if not created:
        # One conditional UPDATE, so that concurrent readings can only move it forward.
        ThreadRead.objects.filter(pk=read.pk, last_post__lte=last_post).update(
            last_post=last_post, read_at=now
        )
    return read

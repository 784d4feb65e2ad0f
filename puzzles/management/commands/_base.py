"""What the puzzles commands share: competition lookup and import errors as CommandError."""

from __future__ import annotations

from contextlib import contextmanager

from django.core.management.base import CommandError

from ioleval.errors import AppError
from puzzles.models import Competition


def competition_or_error(slug: str) -> Competition:
    """Return the competition or raise CommandError naming the known slugs."""
    try:
        return Competition.objects.get(slug=slug)
    except Competition.DoesNotExist:
        known = ", ".join(Competition.objects.values_list("slug", flat=True)) or "none"
        raise CommandError(f"unknown competition {slug!r} (known: {known})") from None


@contextmanager
def import_errors():
    """Turn the application's refusals (AppError: import failures, jury refusals) into
    CommandError (non-zero exit, message on stderr)."""
    try:
        yield
    except AppError as exc:
        raise CommandError(str(exc)) from None

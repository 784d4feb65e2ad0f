"""What the puzzles commands share: competition lookup and import errors as CommandError."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from contextlib import contextmanager
from decimal import Decimal, InvalidOperation
from pathlib import Path

from django.core.management.base import CommandError

from ioleval.commands import AppCommand
from ioleval.errors import AppError
from puzzles.models import Competition
from puzzles.tabular import open_text


def competition_or_error(slug: str) -> Competition:
    """Return the competition or raise CommandError naming the known slugs."""
    try:
        return Competition.objects.get(slug=slug)
    except Competition.DoesNotExist:
        known = ", ".join(Competition.objects.values_list("slug", flat=True)) or "none"
        raise CommandError(f"unknown competition {slug!r} (known: {known})") from None


def points_argument(text: str) -> Decimal:
    """Parse a number of points for argparse (a usage error for anything else)."""
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of points") from None
    if not value.is_finite():
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of points")
    return value


@contextmanager
def import_errors():
    """Turn the application's refusals (AppError: import failures, jury refusals) into
    CommandError (non-zero exit, message on stderr)."""
    try:
        yield
    except AppError as exc:
        raise CommandError(str(exc)) from None


class FileImportCommand(AppCommand):
    """A command that imports one file through a service `importer(stream=, file=)` whose
    result has `lines()`: refusals exit non-zero naming file, line and field."""

    importer: Callable[..., object]  # set by each command, as a staticmethod

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)

    def handle(self, *args, **options):
        path: Path = options["file"]
        with import_errors():
            with open_text(path) as stream:
                result = self.importer(stream=stream, file=str(path))
        for line in result.lines():
            self.stdout.write(line)


class CompetitionFileImportCommand(AppCommand):
    """FileImportCommand for one competition: `SLUG FILE`, the importer called with
    `competition=` too, and with what `importer_options` takes from the command's own
    options."""

    importer: Callable[..., object]  # set by each command, as a staticmethod

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("file", type=Path)

    def importer_options(self, options: dict) -> dict:
        """Return the importer's further keyword arguments (a command with options of its own
        overrides this)."""
        return {}

    def handle(self, *args, **options):
        competition = competition_or_error(options["slug"])
        path: Path = options["file"]
        extra = self.importer_options(options)
        with import_errors():
            with open_text(path) as stream:
                result = self.importer(
                    competition=competition, stream=stream, file=str(path), **extra
                )
        for line in result.lines():
            self.stdout.write(line)

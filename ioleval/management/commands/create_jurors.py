"""Create accounts from a CSV and print each one's set-password link (stdout only)."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import CommandError

from ioleval.accounts.services import (
    AccountError,
    accounts_import,
    accounts_read,
    password_link,
)
from ioleval.commands import AppCommand


class Command(AppCommand):
    help = (
        "Create accounts from a CSV of username,name,email,role rows (role juror, chair or"
        " organizer; every row or none) and print each username with its one-time"
        " set-password link. Links go to stdout only, never to a log."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)
        parser.add_argument(
            "--base-url",
            default="",
            help="the site's address for the links (default: IOLEVAL_BASE_URL)",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="check the file and create nothing"
        )

    def handle(self, *args, **options):
        path: Path = options["file"]
        base_url = options["base_url"] or settings.IOLEVAL_BASE_URL
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise CommandError(f"{path}: {exc.strerror or exc}") from None
        try:
            if options["dry_run"]:
                specs = accounts_read(data, file=str(path))
                for spec in specs:
                    self.stdout.write(f"{spec.username}\t{spec.role}\twould be created")
                self.stderr.write(f"{len(specs)} accounts checked; nothing created (dry run)")
                return
            users = accounts_import(data, file=str(path))
        except AccountError as exc:
            raise CommandError(str(exc)) from None
        for user in users:
            self.stdout.write(f"{user.username}\t{password_link(user, base_url=base_url)}")
        days = settings.PASSWORD_RESET_TIMEOUT / 86400
        # A summary apart from the links, so that stdout holds only "username<TAB>link" lines.
        self.stderr.write(
            f"{len(users)} accounts created; each link works once and for {days:g} days."
        )

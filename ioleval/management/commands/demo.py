from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import CommandError
from django.db import transaction

from grading.demo import demo_jury_load
from ioleval.commands import AppCommand
from ioleval.roles import CHAIR, JUROR, ORGANIZER
from puzzles.context.lab.demo import context_demo_load
from puzzles.demo import demo_competition_load

USERS = [
    ("organizer", [ORGANIZER]),
    ("chair", [CHAIR, JUROR]),
    ("juror1", [JUROR]),
    ("juror2", [JUROR]),
    ("juror3", [JUROR]),
    ("juror4", [JUROR]),
]


class Command(AppCommand):
    help = "Load the demo competition, systems, users and a jury in progress (idempotent)."

    def add_arguments(self, parser):
        parser.add_argument("--password", default=settings.DEMO_PASSWORD)

    @transaction.atomic
    def handle(self, *args, **options):
        password = options["password"]
        if getattr(settings, "PRODUCTION", False) and password == settings.DEMO_PASSWORD:
            raise CommandError("refusing the demo password in production; pass --password")
        User = get_user_model()
        for username, roles in USERS:
            user, _ = User.objects.get_or_create(username=username)
            user.set_password(password)
            user.is_staff = username == "organizer"
            user.save()
            user.groups.set([Group.objects.get_or_create(name=r)[0] for r in roles])
        competition = demo_competition_load()
        demo_jury_load(competition)
        puzzles = context_demo_load()
        self.stdout.write(
            f"demo competition '{competition.slug}': {competition.problems.count()} problems, "
            f"{competition.systems.count()} systems; users "
            + ", ".join(u for u, _ in USERS)
            + f" (password: {password!r}); context lab puzzles "
            + ", ".join(p.slug for p in puzzles)
        )

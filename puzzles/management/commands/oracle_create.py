from ioleval.commands import AppCommand
from puzzles.analytics.oracle import oracle_create

from ._base import competition_or_error, import_errors


class Command(AppCommand):
    help = (
        "Save the oracle ensemble of some systems (per task, the best member's output) as a "
        "system; print the member chosen for each task and the overall score."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--name", required=True, help="the oracle system's name")
        parser.add_argument("systems", nargs="+", help="two or more member systems")

    def handle(self, *args, **options):
        competition = competition_or_error(options["slug"])
        with import_errors():
            saved = oracle_create(
                competition=competition, members=options["systems"], name=options["name"]
            )
        for line in saved.lines():
            self.stdout.write(line)

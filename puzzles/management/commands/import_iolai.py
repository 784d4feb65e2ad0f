from pathlib import Path

from ioleval.commands import AppCommand
from puzzles.services import competition_import_iolai

from ._base import import_errors


class Command(AppCommand):
    help = "Create or update a competition from a directory in the IOL-AI results layout."

    def add_arguments(self, parser):
        parser.add_argument("directory", type=Path)
        parser.add_argument("--slug", required=True)
        parser.add_argument(
            "--name",
            default="",
            help='readable name (default: "IOL-AI <year>" on creation; a re-import without '
            "--name keeps the current name)",
        )
        parser.add_argument("--year", type=int, help="default: the year in the task ids")

    def handle(self, *args, **options):
        with import_errors():
            summary = competition_import_iolai(
                directory=options["directory"],
                slug=options["slug"],
                name=options["name"],
                year=options["year"],
            )
        for line in summary.lines():
            self.stdout.write(line)

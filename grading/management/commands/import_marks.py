from pathlib import Path

from django.core.management.base import BaseCommand

from grading.errors import GradingError
from grading.services import marks_import
from puzzles.management.commands._base import competition_or_error, import_errors


class Command(BaseCommand):
    help = (
        "Import marks graded elsewhere (columns system, problem, criterion, juror, points, "
        "comment); with --final, agreed final marks."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("file", type=Path)
        parser.add_argument("--final", action="store_true")

    def handle(self, *args, **options):
        competition = competition_or_error(options["slug"])
        path: Path = options["file"]
        with import_errors():
            if not path.is_file():
                raise GradingError("no such file", file=str(path))
            with path.open(encoding="utf-8-sig", newline="") as stream:
                result = marks_import(
                    competition=competition, stream=stream, file=str(path), final=options["final"]
                )
        for line in result.lines():
            self.stdout.write(line)

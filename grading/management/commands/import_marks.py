from pathlib import Path

from grading.services import marks_import
from ioleval.commands import AppCommand
from puzzles.management.commands._base import competition_or_error, import_errors
from puzzles.tabular import open_text


class Command(AppCommand):
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
            with open_text(path) as stream:
                result = marks_import(
                    competition=competition, stream=stream, file=str(path), final=options["final"]
                )
        for line in result.lines():
            self.stdout.write(line)

from pathlib import Path

from grading.services import contestants_import
from ioleval.commands import AppCommand
from puzzles.management.commands._base import competition_or_error, import_errors
from puzzles.tabular import open_text


class Command(AppCommand):
    help = (
        "Replace the competition's human contestants: CSV with columns contestant, total; or "
        "contestant, problem, criterion, points (criterion codes of the current rubrics; "
        "totals are the sums, and an optional total column must equal them)."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("file", type=Path)

    def handle(self, *args, **options):
        competition = competition_or_error(options["slug"])
        path: Path = options["file"]
        with import_errors():
            with open_text(path) as stream:
                result = contestants_import(competition=competition, stream=stream, file=str(path))
        for line in result.lines():
            self.stdout.write(line)

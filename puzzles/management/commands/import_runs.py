from pathlib import Path

from ioleval.commands import AppCommand
from puzzles.analytics.run_imports import runs_import
from puzzles.tabular import open_text

from ._base import competition_or_error, import_errors


class Command(AppCommand):
    help = (
        "Import runs: CSV with columns team (an existing system's name), run, submitted_at "
        "(ISO 8601), status (scored/failed), failure (environment, runtime, limit, packaging, "
        "other; failed runs only), public, private, selected (1/0), and optionally "
        "submission_id. Replaces the competition's runs; all or nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("file", type=Path)

    def handle(self, *args, **options):
        competition = competition_or_error(options["slug"])
        path: Path = options["file"]
        with import_errors():
            with open_text(path) as stream:
                result = runs_import(competition=competition, stream=stream, file=str(path))
        for line in result.lines():
            self.stdout.write(line)

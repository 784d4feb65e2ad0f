from pathlib import Path

from ioleval.commands import AppCommand
from puzzles.services import system_scores_import
from puzzles.tabular import open_text

from ._base import competition_or_error, import_errors


class Command(AppCommand):
    help = (
        "Import automatic figures computed elsewhere: CSV with columns system, score and "
        "optional exact_match, chrf, problem (0-1 scale; a blank problem is the whole "
        "competition). Unknown systems are created as external, without outputs; for "
        "systems with outputs, the computed figures take precedence."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("file", type=Path)

    def handle(self, *args, **options):
        competition = competition_or_error(options["slug"])
        path: Path = options["file"]
        with import_errors():
            with open_text(path) as stream:
                result = system_scores_import(
                    competition=competition, stream=stream, file=str(path)
                )
        for line in result.lines():
            self.stdout.write(line)

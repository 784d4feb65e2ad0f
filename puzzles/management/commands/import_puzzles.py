from pathlib import Path

from ioleval.commands import AppCommand
from puzzles.context.services import puzzles_import
from puzzles.tabular import open_text

from ._base import import_errors


class Command(AppCommand):
    help = (
        "Import Rosetta Stone puzzles for the context lab from a JSON list of "
        '{"slug", "title", "language", "examples": [{"foreign", "english"}], '
        '"questions": [{"id", "direction", "prompt", "answer"}]} (README, Context lab). '
        "An existing slug is replaced, unless it has solver answers or judge verdicts. "
        "All or nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)

    def handle(self, *args, **options):
        path: Path = options["file"]
        with import_errors():
            with open_text(path) as stream:
                result = puzzles_import(stream=stream, file=str(path))
        for line in result.lines():
            self.stdout.write(line)

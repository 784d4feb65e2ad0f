from pathlib import Path

from ioleval.commands import AppCommand
from puzzles.context.result_imports import judge_verdicts_import
from puzzles.tabular import open_text

from ._base import import_errors


class Command(AppCommand):
    help = (
        'Import judge verdicts, one JSON object per line: {"puzzle", "condition", "judge", '
        '"verdict": "valid" or "unsolvable"}. All or nothing; importing a row again updates it.'
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)

    def handle(self, *args, **options):
        path: Path = options["file"]
        with import_errors():
            with open_text(path) as stream:
                result = judge_verdicts_import(stream=stream, file=str(path))
        for line in result.lines():
            self.stdout.write(line)

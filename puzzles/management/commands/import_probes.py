from pathlib import Path

from ioleval.commands import AppCommand
from puzzles.analytics.probe_imports import probes_import
from puzzles.tabular import open_text

from ._base import competition_or_error, import_errors


class Command(AppCommand):
    help = (
        "Import knowledge probe results: CSV with columns model, problem (a problem number or "
        "a language label), probe_type, item, correct (1/0, true/false, yes/no). Replaces the "
        "competition's probe results; a model is matched to the system of the same name."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("file", type=Path)

    def handle(self, *args, **options):
        competition = competition_or_error(options["slug"])
        path: Path = options["file"]
        with import_errors():
            with open_text(path) as stream:
                result = probes_import(competition=competition, stream=stream, file=str(path))
        for line in result.lines():
            self.stdout.write(line)

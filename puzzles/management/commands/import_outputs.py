from pathlib import Path

from ioleval.commands import AppCommand
from puzzles.models import System
from puzzles.services import outputs_import_csv, outputs_import_jsonl
from puzzles.tabular import open_text

from ._base import competition_or_error, import_errors


class Command(AppCommand):
    help = (
        "Import one system's outputs: a submission CSV (id,pred[,explanation]) or, "
        'with --raw, JSONL lines {"id", "output"} of free model text.'
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("file", type=Path)
        parser.add_argument("--system", required=True)
        parser.add_argument("--team", default="")
        parser.add_argument("--tier", choices=System.Tier.values)
        parser.add_argument("--raw", action="store_true", help="JSONL of free model text")

    def handle(self, *args, **options):
        competition = competition_or_error(options["slug"])
        path: Path = options["file"]
        importer = outputs_import_jsonl if options["raw"] else outputs_import_csv
        with import_errors():
            with open_text(path) as stream:
                summary = importer(
                    competition=competition,
                    stream=stream,
                    system_name=options["system"],
                    file=str(path),
                    team=options["team"],
                    tier=options["tier"],
                )
        for line in summary.lines():
            self.stdout.write(line)

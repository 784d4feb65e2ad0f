import sys

from grading.services import marks_csv, marks_xlsx
from ioleval.commands import AppCommand
from puzzles.management.commands._base import competition_or_error


class Command(AppCommand):
    help = "Export every mark and final mark (CSV to stdout, or XLSX to --out)."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--format", choices=("csv", "xlsx"), default="csv")
        parser.add_argument(
            "--out", help="file to write (required for xlsx unless stdout is a file)"
        )

    def handle(self, *args, **options):
        competition = competition_or_error(options["slug"])
        if options["format"] == "csv":
            data = marks_csv(competition)
            if options["out"]:
                with open(options["out"], "w", encoding="utf-8", newline="") as handle:
                    handle.write(data)
            else:
                self.stdout.write(data, ending="")
            return
        data = marks_xlsx(competition)
        if options["out"]:
            with open(options["out"], "wb") as handle:
                handle.write(data)
        else:
            sys.stdout.buffer.write(data)

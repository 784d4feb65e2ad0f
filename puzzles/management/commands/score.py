import json

from ioleval.commands import AppCommand
from ioleval.spreadsheet import csv_text
from puzzles.metrics import METRICS
from puzzles.selectors import STAGES, leaderboard

from ._base import competition_or_error

COLUMNS = (
    "system",
    "score",
    "exact_match",
    "chrf",
    "public_score",
    "private_split_score",
    "line_format_match_rate",
    "explanation_rate",
)


class Command(AppCommand):
    help = "Print the automatic leaderboard, one row per system (0-1 scale)."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--metric", choices=METRICS, default="iol2026")
        parser.add_argument("--format", choices=("csv", "json"), default="csv")
        parser.add_argument("--stage", choices=STAGES, default="official")
        parser.add_argument(
            "--all-columns", action="store_true", help="add rank, tier, EM/chrF per split, format"
        )

    def handle(self, *args, **options):
        competition = competition_or_error(options["slug"])
        _, rows = leaderboard(competition, metric=options["metric"], stage=options["stage"])
        records = [r.as_dict() for r in rows]
        if not options["all_columns"]:
            records = [{k: r[k] for k in COLUMNS} for r in records]
        if options["format"] == "json":
            self.stdout.write(json.dumps(records, indent=2, ensure_ascii=False))
            return
        columns = list(records[0]) if records else list(COLUMNS)
        rows = [[r[c] for c in columns] for r in records]
        self.stdout.write(csv_text(columns, rows, lineterminator="\n"), ending="")

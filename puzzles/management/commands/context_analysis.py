import json

from django.core.management.base import CommandError

from ioleval.commands import AppCommand
from puzzles.context.lab.analysis import DEFAULT_TOKENIZER, TOKENIZERS, analysis_report
from puzzles.context.lab.selectors import puzzle_analysis, puzzle_or_none, puzzle_slugs


class Command(AppCommand):
    help = (
        "Print a context-lab puzzle's damage scores as JSON: {puzzle, tokenizer, fragile, "
        "max_dq, examples: [{index (from 1), d, dq, damaged_questions}]}."
    )

    def add_arguments(self, parser):
        parser.add_argument("puzzle", help="the puzzle's slug")
        parser.add_argument("--tokenizer", choices=sorted(TOKENIZERS), default=DEFAULT_TOKENIZER)
        parser.add_argument("--format", choices=["json"], default="json")

    def handle(self, *args, **options):
        puzzle = puzzle_or_none(options["puzzle"])
        if puzzle is None:
            known = ", ".join(puzzle_slugs()) or "none"
            raise CommandError(f"unknown puzzle {options['puzzle']!r} (known: {known})")
        analysis = puzzle_analysis(puzzle, options["tokenizer"])
        report = analysis_report(analysis, puzzle=puzzle.slug)
        self.stdout.write(json.dumps(report, ensure_ascii=False, indent=2))

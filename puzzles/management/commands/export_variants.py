import json
from pathlib import Path

from django.core.management.base import CommandError

from ioleval.commands import AppCommand
from ioleval.spreadsheet import csv_text
from puzzles.context.lab.analysis import DEFAULT_TOKENIZER, TOKENIZERS
from puzzles.context.lab.variants import DEFAULT_SEED
from puzzles.context.results.selectors import puzzle_variants_of, puzzles_selected

FIELDS = ("puzzle", "condition", "deleted", "prompt")


class Command(AppCommand):
    help = (
        "Write one prompt per puzzle and condition (original, random, targeted, no_context) "
        "with the fields puzzle, condition, deleted (the puzzle's example numbers the variant "
        "removes) and prompt, as JSONL or CSV. Every puzzle when none is named."
    )

    def add_arguments(self, parser):
        parser.add_argument("puzzles", nargs="*", help="puzzle slugs (default: every puzzle)")
        parser.add_argument("--format", choices=["jsonl", "csv"], default="jsonl")
        parser.add_argument(
            "--seed", type=int, default=DEFAULT_SEED, help="seed of the random deletion"
        )
        parser.add_argument("--tokenizer", choices=sorted(TOKENIZERS), default=DEFAULT_TOKENIZER)
        parser.add_argument("--out", type=Path, help="write to this file instead of stdout")

    def handle(self, *args, **options):
        try:
            puzzles = puzzles_selected(options["puzzles"] or None)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        if not puzzles:
            raise CommandError("no puzzles: import some with import_puzzles first")
        variants = puzzle_variants_of(puzzles, seed=options["seed"], tokenizer=options["tokenizer"])
        if options["format"] == "jsonl":
            text = "".join(
                json.dumps(
                    {
                        "puzzle": v.puzzle,
                        "condition": v.condition,
                        "deleted": list(v.deleted),
                        "prompt": v.prompt.text,
                    },
                    ensure_ascii=False,
                )
                + "\n"
                for v in variants
            )
        else:
            text = csv_text(
                FIELDS,
                (
                    (v.puzzle, v.condition, " ".join(map(str, v.deleted)), v.prompt.text)
                    for v in variants
                ),
            )
        if options["out"] is None:
            self.stdout.write(text, ending="")
            return
        options["out"].write_text(text, encoding="utf-8", newline="")
        self.stderr.write(f"{len(variants)} prompts written to {options['out']}")

import json

from django.core.management.base import BaseCommand

from grading.review.services import review_cached
from puzzles.management.commands._base import competition_or_error


class Command(BaseCommand):
    help = (
        "Print the result review of a competition (jury against automatic, medals, criterion "
        "difficulty) as JSON, or write it to --out. Only --format json exists for now: the "
        "PDF report is not built yet."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument(
            "--format",
            choices=("json",),
            default="json",
            help="json (the PDF report is not available yet)",
        )
        parser.add_argument("--out", help="file to write instead of stdout")
        parser.add_argument(
            "--resamples",
            type=int,
            default=10_000,
            help="bootstrap resamples of the intervals (default 10,000)",
        )

    def handle(self, *args, **options):
        competition = competition_or_error(options["slug"])
        review = review_cached(
            competition=competition, resamples=options["resamples"], with_charts=False
        ).review
        text = json.dumps(review.as_json(), ensure_ascii=False, indent=2) + "\n"
        if options["out"]:
            with open(options["out"], "w", encoding="utf-8") as handle:
                handle.write(text)
        else:
            self.stdout.write(text, ending="")

import json
import sys

from django.core.management.base import CommandError

from grading.review.cache import review_cached
from grading.review.report import review_pdf
from ioleval.commands import AppCommand
from puzzles.analytics.report import analytics_json
from puzzles.analytics.report_pdf import analytics_report_html
from puzzles.management.commands._base import competition_or_error


class Command(AppCommand):
    help = (
        "Write the result review of a competition (jury against automatic, medals, criterion "
        "difficulty, juror agreement, observations): --format json prints it, with the "
        'challenge analytics (a section per analysis) under "analytics", or writes it to '
        "--out; --format pdf renders the whole review with its charts, then the challenge "
        "analytics, to --out (without --out, the PDF's bytes go to standard output)."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument(
            "--format",
            choices=("json", "pdf"),
            default="json",
            help="json (default) or pdf (the report with its charts)",
        )
        parser.add_argument("--out", help="file to write instead of standard output")
        parser.add_argument(
            "--resamples",
            type=int,
            default=10_000,
            help="bootstrap resamples of the intervals (default 10,000)",
        )

    def handle(self, *args, **options):
        competition = competition_or_error(options["slug"])
        if options["format"] == "pdf":
            self._pdf(competition, options)
            return
        review = review_cached(
            competition=competition, resamples=options["resamples"], with_charts=False
        ).review
        data = {**review.as_json(), "analytics": analytics_json(competition)}
        text = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
        if options["out"]:
            with open(options["out"], "w", encoding="utf-8") as handle:
                handle.write(text)
        else:
            self.stdout.write(text, ending="")

    def _pdf(self, competition, options):
        page = review_cached(competition=competition, resamples=options["resamples"])
        data = review_pdf(
            page.review, page.charts, analytics_html=analytics_report_html(competition)
        )
        if options["out"]:
            with open(options["out"], "wb") as handle:
                handle.write(data)
            return
        # Bytes, not text: the command's stdout wrapper takes str, so write to its buffer.
        stream = getattr(self.stdout, "_out", sys.stdout)
        buffer = getattr(stream, "buffer", None)
        if buffer is None:
            raise CommandError("standard output takes no bytes here: give --out FILE")
        buffer.write(data)
        buffer.flush()

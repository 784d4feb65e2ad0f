from django.core.management.base import CommandError

from grading.services import jurors_assign
from ioleval.commands import AppCommand
from puzzles.management.commands._base import competition_or_error, import_errors


def problem_override(text: str) -> tuple[int, int]:
    number, _, count = text.partition("=")
    try:
        return int(number), int(count)
    except ValueError:
        raise CommandError(f"--problem takes P=N (problem number = jurors), not {text!r}") from None


class Command(AppCommand):
    help = "Give every paper at least N jurors of its problem's grading group; never drops marks."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--per-paper", type=int, required=True)
        parser.add_argument("--problem", action="append", default=[], metavar="P=N")
        parser.add_argument(
            "--allow-seen",
            action="store_true",
            help="also give papers to jurors who are not blind for the competition (they were"
            " shown which system wrote which paper, or are organizers); the confirmation is"
            " recorded",
        )

    def handle(self, *args, **options):
        competition = competition_or_error(options["slug"])
        overrides = dict(problem_override(text) for text in options["problem"])
        with import_errors():
            report = jurors_assign(
                competition=competition,
                per_paper=options["per_paper"],
                per_problem=overrides,
                allow_seen=options["allow_seen"],
            )
        for line in report.lines():
            self.stdout.write(line)

import argparse
from decimal import Decimal, InvalidOperation

from ioleval.commands import AppCommand
from puzzles.services import competition_set_thresholds

from ._base import competition_or_error, import_errors


def points(text: str) -> Decimal:
    """Parse a threshold in points for argparse."""
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of points") from None
    if not value.is_finite():
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of points")
    return value


class Command(AppCommand):
    help = "Set a competition's medal thresholds in points."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--gold", type=points, required=True)
        parser.add_argument("--silver", type=points, required=True)
        parser.add_argument("--bronze", type=points)
        parser.add_argument("--honourable-mention", type=points)

    def handle(self, *args, **options):
        competition = competition_or_error(options["slug"])
        with import_errors():
            competition_set_thresholds(
                competition=competition,
                gold=options["gold"],
                silver=options["silver"],
                bronze=options["bronze"],
                honourable_mention=options["honourable_mention"],
            )
        self.stdout.write(
            f"{competition.slug}: gold {competition.gold_threshold}, "
            f"silver {competition.silver_threshold}, bronze {competition.bronze_threshold}, "
            f"honourable mention {competition.honourable_mention_threshold}"
        )

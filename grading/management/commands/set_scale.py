from grading.services import competition_set_scale
from ioleval.commands import AppCommand
from puzzles.management.commands._base import competition_or_error, import_errors, points_argument


class Command(AppCommand):
    help = (
        "Set what a competition's jury totals and medal thresholds are out of: --points N, "
        "or --from-rubrics for the sum of the current rubrics' maxima (the default)."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        which = parser.add_mutually_exclusive_group(required=True)
        which.add_argument("--points", type=points_argument, help="the scale, in points")
        which.add_argument(
            "--from-rubrics",
            action="store_true",
            help="follow the sum of the current rubrics' maxima again",
        )

    def handle(self, *args, **options):
        competition = competition_or_error(options["slug"])
        with import_errors():
            lines = competition_set_scale(competition=competition, points=options["points"])
        for line in lines:
            self.stdout.write(f"{competition.slug}: {line}")

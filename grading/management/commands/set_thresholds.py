from grading.services import competition_set_thresholds
from ioleval.commands import AppCommand
from puzzles.management.commands._base import competition_or_error, import_errors, points_argument


class Command(AppCommand):
    help = (
        "Set a competition's medal thresholds in points of the jury's scale (set_scale; by "
        "default the sum of the rubrics' maxima); each must lie within it."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--gold", type=points_argument, required=True)
        parser.add_argument("--silver", type=points_argument, required=True)
        parser.add_argument("--bronze", type=points_argument)
        parser.add_argument("--honourable-mention", type=points_argument)

    def handle(self, *args, **options):
        competition = competition_or_error(options["slug"])
        with import_errors():
            scale = competition_set_thresholds(
                competition=competition,
                gold=options["gold"],
                silver=options["silver"],
                bronze=options["bronze"],
                honourable_mention=options["honourable_mention"],
            )
        self.stdout.write(
            f"{competition.slug}: {scale.thresholds_text}; the jury's scale is {scale.text}"
        )

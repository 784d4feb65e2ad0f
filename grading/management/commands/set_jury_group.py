from django.core.management.base import BaseCommand, CommandError

from grading.services import problem_jurors_set
from puzzles.management.commands._base import competition_or_error, import_errors


class Command(BaseCommand):
    help = "Add jurors to the grading group of a problem."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("problem", type=int)
        parser.add_argument("--jurors", required=True, help="comma-separated usernames")

    def handle(self, *args, **options):
        competition = competition_or_error(options["slug"])
        problem = competition.problems.filter(number=options["problem"]).first()
        if problem is None:
            raise CommandError(f"no problem {options['problem']} in {competition.slug}")
        with import_errors():
            members = problem_jurors_set(
                problem=problem,
                usernames=[u.strip() for u in options["jurors"].split(",") if u.strip()],
            )
        self.stdout.write(f"problem {problem.number}: {len(members)} jurors added or kept")

from django.core.management.base import CommandError

from grading.services import problem_jurors_remove, problem_jurors_set
from ioleval.commands import AppCommand
from puzzles.management.commands._base import competition_or_error, import_errors


class Command(AppCommand):
    help = (
        "Add jurors to the grading group of a problem, or with --remove take out jurors who"
        " have marked none of its papers (their unmarked papers are unassigned)."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("problem", type=int)
        parser.add_argument("--jurors", required=True, help="comma-separated usernames")
        parser.add_argument("--remove", action="store_true", help="take them out instead")
        parser.add_argument(
            "--allow-seen",
            action="store_true",
            help="also add jurors who are not blind for the competition (they were shown which"
            " system wrote which paper); the confirmation is recorded",
        )

    def handle(self, *args, **options):
        competition = competition_or_error(options["slug"])
        problem = competition.problems.filter(number=options["problem"]).first()
        if problem is None:
            raise CommandError(f"no problem {options['problem']} in {competition.slug}")
        usernames = [u.strip() for u in options["jurors"].split(",") if u.strip()]
        with import_errors():
            if options["remove"]:
                gone = problem_jurors_remove(problem=problem, usernames=usernames)
                self.stdout.write(
                    f"problem {problem.number}: {len(usernames)} jurors removed,"
                    f" {gone} unmarked papers unassigned"
                )
                return
            members = problem_jurors_set(
                problem=problem, usernames=usernames, allow_seen=options["allow_seen"]
            )
        self.stdout.write(f"problem {problem.number}: {len(members)} jurors added or kept")

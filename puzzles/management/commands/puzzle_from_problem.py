from django.core.management.base import CommandError

from ioleval.commands import AppCommand
from puzzles.context.lab.rosetta import SIDES
from puzzles.context.lab.services import puzzle_from_problem
from puzzles.models import Problem

from ._base import competition_or_error, import_errors


class Command(AppCommand):
    help = (
        "Make a context-lab puzzle from a competition's Rosetta Stone problem: its numbered "
        "examples ('N. a / b | translation'), the numbered items of its translation tasks "
        "and their answer key. Prints what was detected (foreign side, counts, each "
        "question's direction and required tokens, what was skipped) for a person to check."
    )

    def add_arguments(self, parser):
        parser.add_argument("competition", help="the competition's slug")
        parser.add_argument("problem", type=int, help="the problem's number")
        parser.add_argument("--slug", required=True, help="the puzzle's slug")
        parser.add_argument(
            "--dry-run", action="store_true", help="print what was detected, save nothing"
        )
        parser.add_argument(
            "--foreign",
            choices=SIDES,
            help="the side of ' | ' that is foreign, when the detection cannot tell",
        )

    def handle(self, *args, **options):
        competition = competition_or_error(options["competition"])
        problem = Problem.objects.filter(competition=competition, number=options["problem"]).first()
        if problem is None:
            known = ", ".join(str(n) for n in competition.problems.values_list("number", flat=True))
            raise CommandError(
                f"competition {competition.slug!r} has no problem {options['problem']} "
                f"(problems: {known or 'none'})"
            )
        with import_errors():
            result = puzzle_from_problem(
                problem=problem,
                slug=options["slug"],
                dry_run=options["dry_run"],
                foreign_side=options["foreign"],
            )
        for line in result.lines:
            self.stdout.write(line)
        if not result.saved:
            self.stdout.write(f"dry run: puzzle {result.spec.slug} not saved")
        else:
            self.stdout.write(f"{'created' if result.created else 'updated'} {result.spec.slug}")

from pathlib import Path

from django.core.management.base import BaseCommand

from grading.services import rubrics_import
from puzzles.management.commands._base import competition_or_error, import_errors


class Command(BaseCommand):
    help = "Import rubrics (criteria with maximum and step) for one or more problems from JSON."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("file", type=Path)
        parser.add_argument(
            "--new-version",
            action="store_true",
            help="required once marks exist: creates a new rubric version and carries marks over",
        )

    def handle(self, *args, **options):
        competition = competition_or_error(options["slug"])
        with import_errors():
            results = rubrics_import(
                options["file"], competition=competition, new_version=options["new_version"]
            )
        for rubric, change in results:
            self.stdout.write(
                f"problem {rubric.problem.number}: rubric v{rubric.version}, "
                f"{rubric.criteria.count()} criteria"
            )
            if change.marks:
                for line in change.lines():
                    self.stdout.write(f"  {line}")

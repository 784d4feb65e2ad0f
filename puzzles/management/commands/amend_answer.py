from django.core.management.base import CommandError

from ioleval.commands import AppCommand
from puzzles.models import Task
from puzzles.services import answer_key_amend

from ._base import competition_or_error, import_errors


class Command(AppCommand):
    help = "Add or remove an accepted alternative of an answer-key item, rescore, report changes."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("task_id")
        parser.add_argument("item_number", type=int, help="counted from 1")
        action = parser.add_mutually_exclusive_group(required=True)
        action.add_argument("--add", metavar="TEXT")
        action.add_argument("--remove", metavar="TEXT")

    def handle(self, *args, **options):
        competition = competition_or_error(options["slug"])
        task = Task.objects.filter(
            problem__competition=competition, external_id=options["task_id"]
        ).first()
        if task is None:
            raise CommandError(f"unknown task {options['task_id']!r} in {competition.slug}")
        with import_errors():
            report = answer_key_amend(
                task=task,
                item_number=options["item_number"],
                add=options["add"],
                remove=options["remove"],
            )
        for line in report.lines():
            self.stdout.write(line)

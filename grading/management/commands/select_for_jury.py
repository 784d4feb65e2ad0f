from django.core.management.base import BaseCommand

from grading.services import papers_create
from puzzles.management.commands._base import competition_or_error, import_errors


class Command(BaseCommand):
    help = "Make the anonymized papers (one per problem) of the named systems."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--systems", required=True, help="comma-separated system names")

    def handle(self, *args, **options):
        competition = competition_or_error(options["slug"])
        with import_errors():
            papers = papers_create(
                competition=competition, system_names=options["systems"].split(",")
            )
        self.stdout.write(f"{len(papers)} papers created")

from pathlib import Path

from django.core.management.base import CommandError

from grading.selectors import papers_recognisable
from grading.services import papers_create
from ioleval.commands import AppCommand
from puzzles.errors import ImportFailure
from puzzles.management.commands._base import competition_or_error, import_errors
from puzzles.tabular import open_text
from puzzles.untrusted import text_check


class Command(AppCommand):
    help = "Make the anonymized papers (one per problem) of the named systems."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument(
            "--system",
            action="append",
            default=[],
            metavar="NAME",
            help="one system's name, as it is (commas included); repeat for more",
        )
        parser.add_argument(
            "--systems-file",
            type=Path,
            metavar="FILE",
            help="a UTF-8 text file with one system name per line (blank lines are skipped)",
        )
        parser.add_argument(
            "--systems",
            default="",
            metavar="A,B,C",
            help="comma-separated system names (kept for scripts; names with commas need "
            "--system or --systems-file)",
        )

    def handle(self, *args, **options):
        competition = competition_or_error(options["slug"])
        with import_errors():
            names = [
                *options["system"],
                *_names_file(options["systems_file"]),
                *(n for n in options["systems"].split(",") if n.strip()),
            ]
        if not names:
            raise CommandError("name the systems: --system NAME, --systems-file FILE or --systems")
        with import_errors():
            papers = papers_create(competition=competition, system_names=names)
        self.stdout.write(f"{len(papers)} papers created")
        for recognisable in papers_recognisable(competition, names):
            self.stdout.write(recognisable.line())


def _names_file(path: Path | None) -> list[str]:
    """Return the names in the file, one a line (a name may hold commas, not a newline)."""
    if path is None:
        return []
    try:
        with open_text(path) as handle:
            text = handle.read()
    except UnicodeDecodeError:
        raise ImportFailure("not UTF-8 text", file=str(path)) from None
    names = []
    for line, name in enumerate(text.split("\n"), start=1):
        name = name.rstrip("\r")
        if name.strip():
            names.append(text_check(name, file=str(path), line=line))
    return names

from pathlib import Path

from grading.scale import scale_moves
from grading.selectors import jury_scale, rubrics_scale_lines
from grading.services import rubrics_import, rubrics_preview
from ioleval.commands import AppCommand
from puzzles.management.commands._base import competition_or_error, import_errors


class Command(AppCommand):
    help = (
        "Import rubrics (criteria with maximum and step) for one or more problems from JSON; "
        "prints what the import does to existing marks and to the jury's scale and thresholds."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("file", type=Path)
        parser.add_argument(
            "--new-version",
            action="store_true",
            help="required once marks exist: creates a new rubric version and carries marks over",
        )
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="print what the import would do to existing marks, and write nothing",
        )

    def handle(self, *args, **options):
        competition = competition_or_error(options["slug"])
        new_version = options["new_version"]
        before = jury_scale(competition)
        with import_errors():
            if options["dry_run"]:
                changes = rubrics_preview(
                    options["file"], competition=competition, new_version=new_version
                )
                results = [(None, change) for change in changes]
                scale = rubrics_scale_lines(competition, changes)
            else:
                results = rubrics_import(
                    options["file"], competition=competition, new_version=new_version
                )
                scale = scale_moves(before, jury_scale(competition))
        for rubric, change in results:
            if rubric is None:
                after = change.version_after(new_version=new_version)
                self.stdout.write(
                    f"problem {change.problem.number}: would be rubric v{after} "
                    "(dry run: nothing written)"
                )
            else:
                self.stdout.write(
                    f"problem {rubric.problem.number}: rubric v{rubric.version}, "
                    f"{rubric.criteria.count()} criteria"
                )
            if change.marks or change.needs_new_version:
                for line in change.lines():
                    self.stdout.write(f"  {line}")
        for line in scale:
            self.stdout.write(line)

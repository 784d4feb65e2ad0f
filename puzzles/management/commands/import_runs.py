from puzzles.analytics.models import RunScope
from puzzles.analytics.runs import runs_import

from ._base import CompetitionFileImportCommand


class Command(CompetitionFileImportCommand):
    help = (
        "Import runs: CSV with columns team (an existing system's name), run, submitted_at "
        "(ISO 8601), status (scored/failed), failure (environment, runtime, limit, packaging, "
        "other; failed runs only), public, private, selected (1/0; at most one per team, never "
        "on an ablation run), and optionally submission_id, condition and seed (an ablation "
        "run: the condition it was made under and its whole-number seed; a seed needs a "
        "condition) and techniques (separated by semicolons). Replaces the competition's runs "
        "of --scope: all (default), submissions (ordinary runs only; ablation runs kept) or "
        "ablations (ablation runs only; ordinary runs kept); all or nothing."
    )
    importer = staticmethod(runs_import)

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument(
            "--scope",
            choices=RunScope.values,
            default=RunScope.ALL,
            help="which of the competition's runs the file replaces (default: all)",
        )

    def importer_options(self, options: dict) -> dict:
        return {"scope": options["scope"]}

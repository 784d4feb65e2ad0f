from puzzles.analytics.run_imports import runs_import

from ._base import CompetitionFileImportCommand


class Command(CompetitionFileImportCommand):
    help = (
        "Import runs: CSV with columns team (an existing system's name), run, submitted_at "
        "(ISO 8601), status (scored/failed), failure (environment, runtime, limit, packaging, "
        "other; failed runs only), public, private, selected (1/0), and optionally "
        "submission_id. Replaces the competition's runs; all or nothing."
    )
    importer = staticmethod(runs_import)

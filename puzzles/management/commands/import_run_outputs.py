from puzzles.analytics.runs import run_outputs_import

from ._base import CompetitionFileImportCommand


class Command(CompetitionFileImportCommand):
    help = (
        "Import runs' outputs: CSV with columns team (an existing system's name), run (the "
        "index of one of its imported runs), task (the task's id), output (the answer text as "
        "submitted). Scores each output by the competition's rule; replaces the outputs of the "
        "runs it names; all or nothing."
    )
    importer = staticmethod(run_outputs_import)

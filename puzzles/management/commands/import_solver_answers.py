from puzzles.context.results.imports import solver_answers_import

from ._base import FileImportCommand


class Command(FileImportCommand):
    help = (
        'Import solver answers, one JSON object per line: {"puzzle", "condition", "model", '
        '"question", "answer"}; null, empty or N/A is an abstention. All or nothing; '
        "importing a row again updates it."
    )
    importer = staticmethod(solver_answers_import)

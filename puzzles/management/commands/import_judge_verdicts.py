from puzzles.context.results.imports import judge_verdicts_import

from ._base import FileImportCommand


class Command(FileImportCommand):
    help = (
        'Import judge verdicts, one JSON object per line: {"puzzle", "condition", "judge", '
        '"verdict": "valid" or "unsolvable"}. All or nothing; importing a row again updates it.'
    )
    importer = staticmethod(judge_verdicts_import)

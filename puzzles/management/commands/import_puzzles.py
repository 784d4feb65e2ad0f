from puzzles.context.lab.services import puzzles_import

from ._base import FileImportCommand


class Command(FileImportCommand):
    help = (
        "Import Rosetta Stone puzzles for the context lab from a JSON list of "
        '{"slug", "title", "language", "examples": [{"foreign", "english"}], '
        '"questions": [{"id", "direction", "prompt", "answer"}]} (docs/context-lab.md). '
        "An existing slug is replaced, unless it has solver answers or judge verdicts. "
        "All or nothing."
    )
    importer = staticmethod(puzzles_import)

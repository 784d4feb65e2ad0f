from puzzles.analytics.techniques import tags_import

from ._base import CompetitionFileImportCommand


class Command(CompetitionFileImportCommand):
    help = (
        "Tag runs with techniques: CSV with columns team (a team with runs), run (its run "
        "index), technique (a known or a new technique, at most 120 characters). Adds tags; "
        "tags already there stay; all or nothing."
    )
    importer = staticmethod(tags_import)

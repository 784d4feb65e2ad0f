from puzzles.analytics.probes import probes_import

from ._base import CompetitionFileImportCommand


class Command(CompetitionFileImportCommand):
    help = (
        "Import knowledge probe results: CSV with columns model, problem (a problem number or "
        "a language label), probe_type, item, correct (1/0, true/false, yes/no). Replaces the "
        "competition's probe results; a model is matched to the system of the same name."
    )
    importer = staticmethod(probes_import)

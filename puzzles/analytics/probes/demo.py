"""The demo competition's knowledge probes, all invented and loaded through the ordinary
importer (idempotent: an import replaces the competition's probes): probes for its systems
and one model that is not a system."""

from __future__ import annotations

import io

from ...models import Competition, System
from .imports import probes_import

PROBE_ONLY_MODEL = "Probe-LM (no system)"
ITEMS = 10  # per model, probe type and problem


def _probes_csv(models: list[str], problems: list[tuple[int, str]]) -> str:
    """Each model gets a share of items right that grows with its place in `models` (a
    rough tie to the board) and differs a little by problem; all of it is invented."""
    lines = ["model,problem,probe_type,item,correct"]
    for m, model in enumerate(models):
        for p, (number, language) in enumerate(problems):
            right = min(ITEMS, 3 + m + (p % 2))
            for i in range(ITEMS):
                lines.append(f'"{model}",{number},language context,c{i + 1},{int(i < right)}')
            lexicon_right = min(ITEMS, 2 + (m * 3 + p) % 7)
            for i in range(ITEMS):
                lines.append(
                    f'"{model}","{language}",lexicon,w{i + 1},{"yes" if i < lexicon_right else "no"}'
                )
    return "\n".join(lines) + "\n"


def probes_demo_load(competition: Competition) -> None:
    """Import invented probe results for every system of the competition but oracle
    ensembles (not models: nothing to probe)."""
    names = sorted(
        System.objects.filter(competition=competition, oracle=False).values_list("name", flat=True)
    )
    problems = [
        (p.number, p.language or f"language {p.number}")
        for p in competition.problems.order_by("number")
    ]
    probes_import(
        competition=competition,
        stream=io.StringIO(_probes_csv([*names, PROBE_ONLY_MODEL], problems)),
        file="demo-probes.csv",
    )

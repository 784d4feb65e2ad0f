"""The context lab's demo: invented Rosetta Stone puzzles in invented languages (idempotent).

Tolmeric is fragile (two questions rest on one example each); Vashko is robust with the
normalized tokenizer and fragile with the paper's whitespace split (capitals and full stops
make `Mira` and `mira` two tokens); Ubrenti has clitics (`=`), an example with two foreign
forms and a question with two accepted answers. All of it is our own.
"""

from __future__ import annotations

import io
import json

from ...models import ContextPuzzle, JudgeVerdict, SolverAnswer
from .selectors import puzzle_inputs
from .services import puzzle_specs_read, puzzles_import

DEMO_FILE = "puzzles/context/demo.py"


def _example(foreign: str | list[str], english: str) -> dict:
    return {"foreign": foreign, "english": english}


def _question(qid: str, direction: str, prompt: str, answer: str | list[str]) -> dict:
    return {"id": qid, "direction": direction, "prompt": prompt, "answer": answer}


DEMO_PUZZLES: list[dict] = [
    {
        "slug": "demo-tolmeric",
        "title": "Tolmeric (demo)",
        "language": "Tolmeric",
        "examples": [
            _example("Neru kasa velim.", "The girl sees the house."),
            _example("Neru talo velim.", "The girl sees the river."),
            _example("Obi kasa velim.", "The boy sees the house."),
            _example("Obi talo murat.", "The boy crosses the river."),
            _example("Neru sena murat.", "The girl crosses the bridge."),
            _example("Obi kasa dorem.", "The boy builds the house."),
        ],
        "questions": [
            _question("1.a", "to_english", "Obi sena velim.", "The boy sees the bridge."),
            _question("1.b", "to_english", "Neru kasa dorem.", "The girl builds the house."),
            _question("1.c", "to_english", "Obi dorem.", "The boy builds."),
            _question("2.a", "to_foreign", "The girl crosses the river.", "Neru talo murat."),
            _question(
                "2.b",
                "to_foreign",
                "The boy sees the river.",
                ["Obi talo velim.", "Talo obi velim."],
            ),
        ],
    },
    {
        "slug": "demo-vashko",
        "title": "Vashko (demo)",
        "language": "Vashko",
        "examples": [
            _example("Mira tef lonu.", "Mira drinks water."),
            _example("Sado tef lonu.", "Sado drinks water."),
            _example("Lonu mira gavet.", "Mira carries water."),
            _example("Sado gavet pira.", "Sado carries bread."),
            _example("Pira mira kesh.", "Mira eats bread."),
            _example("Sado kesh pira.", "Sado eats bread."),
        ],
        "questions": [
            _question("1", "to_english", "Mira kesh lonu.", "Mira eats water."),
            _question("2", "to_foreign", "Sado carries water.", "Sado gavet lonu."),
            _question(
                "3", "to_foreign", "Mira eats bread.", ["Mira kesh pira.", "Pira mira kesh."]
            ),
        ],
    },
    {
        "slug": "demo-ubrenti",
        "title": "Ubrenti (demo)",
        "language": "Ubrenti",
        "examples": [
            _example("ama=n sulu teki", "my mother is sleeping"),
            _example("apa=n sulu rewa", "my father is singing"),
            _example(["ama=r teki", "teki ama=r"], "your mother sleeps"),
            _example("apa=r gonu teki", "your father sleeps at home"),
            _example("ama=n gonu rewa", "my mother sings at home"),
            _example("ina=r sulu", "your sister is here"),
        ],
        "questions": [
            _question("A", "to_english", "ina=r gonu rewa", "your sister sings at home"),
            _question(
                "B", "to_foreign", "your father is singing", ["apa=r sulu rewa", "apa=r rewa"]
            ),
            _question("C", "to_foreign", "my father sleeps", "apa=n teki"),
            _question("D", "to_english", "ama=r gonu teki", "your mother sleeps at home"),
        ],
    },
]


def context_demo_load() -> list[ContextPuzzle]:
    """Load the demo puzzles with invented solver answers and judge verdicts; return the
    puzzles. Running it again changes nothing."""
    from ..results.demo import context_demo_results_load

    puzzles = demo_puzzles_load()
    context_demo_results_load(puzzles)
    return puzzles


def demo_puzzles_load() -> list[ContextPuzzle]:
    """Import, through `puzzles_import`, each demo puzzle that is missing or differs; one
    with results already (the import refuses to replace those) is left as it is."""
    specs = puzzle_specs_read(DEMO_PUZZLES, file=DEMO_FILE)
    slugs = [s.slug for s in specs]
    stored = {p.slug: p for p in ContextPuzzle.objects.filter(slug__in=slugs)}
    with_results = set(
        SolverAnswer.objects.filter(puzzle__slug__in=slugs).values_list("puzzle__slug", flat=True)
    ) | set(
        JudgeVerdict.objects.filter(puzzle__slug__in=slugs).values_list("puzzle__slug", flat=True)
    )

    def differs(spec) -> bool:
        puzzle = stored[spec.slug]
        return puzzle_inputs(puzzle) != (spec.examples, spec.questions) or (
            puzzle.title,
            puzzle.language,
        ) != (spec.title, spec.language)

    changed = [
        entry
        for entry, spec in zip(DEMO_PUZZLES, specs, strict=True)
        if spec.slug not in stored or (spec.slug not in with_results and differs(spec))
    ]
    if changed:
        puzzles_import(stream=io.StringIO(json.dumps(changed)), file=DEMO_FILE)
    return list(ContextPuzzle.objects.filter(slug__in=[s.slug for s in specs]).order_by("slug"))

"""Build a competition with the analytics data of a whole challenge (issue 12), seeded.

Problems, tasks and systems come from the factories of tests/; every output is prepared by
`output_prepare` (items, flags and the stored format failures) and scored by
`competition_rescore`; runs (with their ablation conditions, seeds and techniques) go
through `runs_import` and probe results through `probes_import`, as CSV files the way an
organizer uploads them. The runs' per-task answers (RunOutput) are inserted in bulk: no
service writes them yet, and the pages only read them.

The same seed gives the same data: every random draw comes from the `rng` given, in a fixed
order.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from .data import GLOSSES, word

TECHNIQUES = (
    "self-consistency voting",
    "retry loop",
    "chain of thought",
    "few-shot examples",
    "tool use",
    "ensembling",
)
CONDITIONS = ("no language information", "no context examples")
ABLATION_TEAMS = 4  # the first teams also ran each condition with seeds 1-3
SEEDS = (1, 2, 3)
PROBE_TYPES = ("language context", "lexicon")
START = datetime(2026, 3, 1, 8, tzinfo=UTC)


@dataclass
class Analytics:
    competition: object
    systems: list
    counts: dict = field(default_factory=dict)


def _shaped(answers: list[str], shape: int, rng) -> str:
    """Return the answers as one of the shapes systems send (clean and failing formats)."""
    numbered = "\n".join(f"{i}. {a}" for i, a in enumerate(answers, 1))
    return [
        json.dumps(answers, ensure_ascii=False),
        numbered,
        "\n".join(f"({chr(96 + i)}) {a}" for i, a in enumerate(answers, 1)),
        "\n".join(f"**{a}**" for a in answers),
        "Sure! Here are the answers:\n" + numbered,
        "Answers: " + json.dumps(answers, ensure_ascii=False),
        "",
        "\n".join(answers[:-1]),
        f"Let me think about {word(rng)} and {word(rng)} first.\n\n## Answers\n{numbered}\n\n"
        "The suffix marks the plural.",
    ][shape]


def build_analytics(
    *,
    slug: str,
    n_problems: int,
    n_tasks: int,
    n_systems: int,
    n_runs: int,
    probe_items: int,
    rng,
) -> Analytics:
    """Create a competition with outputs, runs (and their answers), techniques, ablation runs
    and knowledge probes."""
    from puzzles.analytics.models import RunOutput
    from puzzles.analytics.probes.imports import probes_import
    from puzzles.analytics.runs.imports import runs_import
    from puzzles.models import Output, Run, System, Task
    from puzzles.services import competition_rescore, output_prepare
    from tests.puzzles.factories import (
        CompetitionFactory,
        ProblemFactory,
        SystemFactory,
        TaskFactory,
    )

    competition = CompetitionFactory(slug=slug, name=f"Analytics benchmark ({slug})")
    problems = [
        ProblemFactory(competition=competition, number=n, language=word(rng).title())
        for n in range(1, n_problems + 1)
    ]
    tasks = []
    for k in range(n_tasks):  # round robin: 14 tasks over 5 problems gives 3, 3, 3, 3, 2
        problem = problems[k % n_problems]
        number = k // n_problems + 1
        n_items = rng.randint(3, 6)
        tasks.append(
            TaskFactory(
                problem=problem,
                number=number,
                external_id=f"{slug}-{problem.number}-{number}",
                query="Translate into English:\n"
                + "\n".join(f"{i}. {word(rng)} {word(rng)}" for i in range(1, n_items + 1)),
                split=Task.Split.PUBLIC if number % 2 else Task.Split.PRIVATE,
                answer_key=[[rng.choice(GLOSSES)] for _ in range(n_items)],
            )
        )
    tiers = System.Tier.values
    systems = [
        SystemFactory(
            competition=competition,
            name=f"{slug}-team-{i:03d}",
            team=f"team {i:03d}",
            tier=tiers[i % len(tiers)],
        )
        for i in range(n_systems)
    ]
    outputs = []
    for i, system in enumerate(systems):
        free_text = i % 3 == 0  # a third of the systems send free model text
        for task in tasks:
            answers = [
                key[0] if rng.random() < 0.6 else rng.choice((*GLOSSES, word(rng)))
                for key in task.answer_key
            ]
            shape = rng.choice((0, 0, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8))
            output = Output(
                system=system,
                task=task,
                source=Output.Source.MODEL_TEXT if free_text else Output.Source.SUBMISSION,
                raw_text=_shaped(answers, shape, rng),
            )
            output_prepare(output=output, task=task)
            outputs.append(output)
    Output.objects.bulk_create(outputs, batch_size=1000)
    competition_rescore(competition=competition)

    stored = runs_import(
        competition=competition,
        stream=io.StringIO(_runs_csv(systems, n_runs, rng)),
        file=f"{slug}-runs.csv",
    )
    runs = list(Run.objects.filter(system__competition=competition).only("pk", "status"))
    RunOutput.objects.bulk_create(
        (
            RunOutput(
                run=run,
                task=task,
                raw_text=json.dumps([rng.choice(GLOSSES) for _ in task.answer_key]),
                exact_match=round(rng.random(), 4),
                chrf=round(rng.random(), 4),
            )
            for run in runs
            for task in tasks
        ),
        batch_size=2000,
    )
    probes = probes_import(
        competition=competition,
        stream=io.StringIO(_probes_csv(systems, problems, probe_items, rng)),
        file=f"{slug}-probes.csv",
    )
    counts = {
        "problems": len(problems),
        "tasks": len(tasks),
        "systems": len(systems),
        "outputs": len(outputs),
        "runs": stored.runs,
        "failed_runs": stored.failed,
        "ablation_runs": Run.objects.filter(system__competition=competition)
        .exclude(condition="")
        .count(),
        "run_outputs": len(runs) * len(tasks),
        "probe_results": probes.results,
        "probe_models": probes.models,
    }
    return Analytics(competition=competition, systems=systems, counts=counts)


def _runs_csv(systems: list, n_runs: int, rng) -> str:
    """n_runs runs over the teams (spread evenly), about one in seven failed, over a month;
    each team's last scored ordinary run selected; the first teams' last runs are ablations
    (each condition with each seed); every run tagged with 0 to 3 techniques."""
    lines = [
        "team,run,submitted_at,status,failure,public,private,selected,submission_id,"
        "condition,seed,techniques"
    ]
    families = ("environment", "runtime", "limit", "packaging", "other")
    per_team, extra = divmod(n_runs, len(systems))
    ablations = [(c, s) for c in CONDITIONS for s in SEEDS]
    for t, system in enumerate(systems):
        count = per_team + (t < extra)
        rows = []
        for k in range(1, count + 1):
            when = START + timedelta(minutes=rng.randint(0, 30 * 24 * 60))
            failed = rng.random() < 0.14 and k != 1
            condition, seed = "", ""
            if t < ABLATION_TEAMS and k > count - len(ablations):
                condition, seed = ablations[k - (count - len(ablations)) - 1]
                failed = False
            public = round(rng.uniform(0.05, 0.6), 4)
            private = round(min(1.0, max(0.0, public + rng.uniform(-0.08, 0.08))), 4)
            tags = ";".join(rng.sample(TECHNIQUES, rng.randint(0, 3)))
            rows.append(
                [
                    system.name,
                    k,
                    when.strftime("%Y-%m-%dT%H:%M:%SZ"),
                    "failed" if failed else "scored",
                    families[(t + k) % len(families)] if failed else "",
                    "" if failed else public,
                    "" if failed else private,
                    0,
                    f"sub-{t:03d}-{k:03d}",
                    condition,
                    seed,
                    tags,
                ]
            )
        ordinary = [r for r in rows if r[3] == "scored" and not r[9]]
        if ordinary:
            max(ordinary, key=lambda r: r[2])[7] = 1
        lines += [",".join(f'"{v}"' if isinstance(v, str) else str(v) for v in r) for r in rows]
    return "\n".join(lines) + "\n"


def _probes_csv(systems: list, problems: list, items: int, rng) -> str:
    """About `items` probe items per model: each type, each problem, equally many; one model
    more than the systems (a probe-only model)."""
    per = max(1, items // (len(PROBE_TYPES) * len(problems)))
    models = [s.name for s in systems] + ["probe-only model"]
    lines = ["model,problem,probe_type,item,correct"]
    for m, model in enumerate(models):
        skill = 0.3 + 0.6 * m / len(models)
        for problem in problems:
            for probe_type in PROBE_TYPES:
                for i in range(per):
                    right = int(rng.random() < skill)
                    lines.append(f'"{model}",{problem.number},{probe_type},q{i + 1},{right}')
    return "\n".join(lines) + "\n"

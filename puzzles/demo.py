"""The demo competition: three problems in invented languages, tasks, keys and systems.

Everything here is made up for ioleval; nothing is taken from any olympiad.
"""

from __future__ import annotations

import csv
import io
import json
import tempfile
from pathlib import Path

from django.db import transaction

from .analytics.ablations import ablations_demo_load
from .analytics.oracle import oracle_demo_load
from .analytics.probes import probes_demo_load
from .analytics.runs import runs_demo_load
from .analytics.techniques import techniques_demo_load
from .models import Competition, Problem, System
from .services import (
    competition_import_iolai,
    outputs_import_jsonl,
    system_scores_import,
)

DEMO_SLUG = "demo"

PROBLEMS = {
    1: {
        "title": "Velmari nouns",
        "language": "Velmari (invented)",
        "context": (
            "Here are some Velmari words and their English translations:\n\n"
            "1. sorel: house\n2. sorelek: houses\n3. masorel: my house\n"
            "4. takaimek: your dogs\n5. vituun: in the river\n6. malamoek: my trees\n"
            "7. lamoun: in the tree\n8. tavitu: your river"
        ),
    },
    2: {
        "title": "Oskrunic numerals",
        "language": "Oskrunic (invented)",
        "context": (
            "Here are some numbers in Oskrunic:\n\n"
            "ot 1 · ba 2 · kiri 3 · fen 4 · sul 5 · ham 6 · ham ba 8 · baham 12 · "
            "kiriham sul 23 · sulham fen 34 · tomo 36"
        ),
    },
    3: {
        "title": "Tiruvan verbs",
        "language": "Tiruvan (invented)",
        "context": (
            "Here are some Tiruvan sentences and their English translations. "
            "Tiruvan does not mark the gender of 'he' and 'she'.\n\n"
            "1. nitalra: I saw.\n2. sumok: You eat.\n3. apenke: He will call. / She will call.\n"
            "4. nimokra: I ate.\n5. sutal: You see.\n6. apen: He calls. / She calls."
        ),
    },
}

# (problem, task, type, eval, split, points, query, key)
TASKS = [
    (
        1,
        1,
        "translation",
        "single",
        "public",
        1,
        "Translate into English:\n1. kaimek\n2. tasorel\n3. malamoun",
        ["dogs", "your house", "in my tree"],
    ),
    (
        1,
        2,
        "translation",
        "single",
        "private",
        1,
        "Translate into Velmari:\n4. my rivers\n5. in your houses\n6. trees",
        ["mavituek", "tasorelekun", "lamoek"],
    ),
    (
        1,
        3,
        "fill_blanks",
        "single",
        "private",
        0,
        "Explain how possession and plurality are marked in Velmari: ____",
        [
            "Possession is a prefix (ma- 'my', ta- 'your'); the plural is the suffix -ek; 'in' is the suffix -un after the plural."
        ],
    ),
    (
        2,
        1,
        "text_to_num",
        "single",
        "public",
        1,
        "Write as numbers:\na. fenham kiri\nb. baham sul\nc. tomo ot",
        ["27", "17", "37"],
    ),
    (
        2,
        2,
        "num_to_text",
        "single",
        "private",
        1,
        "Write in Oskrunic:\nd. 9\ne. 20\nf. 30",
        ["ham kiri", "kiriham ba", "sulham"],
    ),
    (
        3,
        1,
        "translation",
        "multi",
        "public",
        1,
        "Translate into English, in all possible ways:\n7. sutalke\n8. amokra\n9. nipen",
        [["you will see"], ["he ate", "she ate"], ["I call", "I am calling"]],
    ),
    (
        3,
        2,
        "translation",
        "single",
        "private",
        1,
        "Translate into Tiruvan:\n10. I will eat.\n11. You called.",
        ["nimokke", "supenra"],
    ),
]

# System -> (tier, {task: predicted items}, explanation style). None keeps the gold answer.
SYSTEMS = {
    "Ensemble-3": ("ensemble", {(3, 1): [None, "he ate", "I called"]}, "full"),
    "Frontier-A": (
        "frontier",
        {(1, 2): [None, "tasorelun", None], (2, 2): [None, "kiriham ba", "sulham ot"]},
        "full",
    ),
    "Frontier-B": (
        "frontier",
        {
            (1, 1): ["dog", None, "in the tree"],
            (2, 1): [None, "15", None],
            (3, 2): ["nimokra", None],
        },
        "short",
    ),
    "Team Lexicon": (
        "challenge",
        {
            (1, 2): ["vituek", "sorelekun", None],
            (2, 2): ["ham kiri", "kirihamba", "sul ham"],
            (3, 1): ["you see", None, None],
        },
        "short",
    ),
    "OpenModel-7B": (
        "open",
        {
            (1, 1): ["dogs", "house", "my tree"],
            (1, 2): ["mavitu", "tasorel", "lamo"],
            (2, 1): ["21", "17", "36"],
            (3, 1): ["you saw", "he eat", None],
            (3, 2): ["mokke", "penra"],
        },
        "none",
    ),
    "Baseline-echo": ("baseline", {"*": "echo"}, "none"),
}

# Explanations, by style. "full" explains each task on its own; "short" repeats one line
# for every task of a problem (the explanation screen flags it as duplicated); "templated"
# pads a line with one repeated sentence; "none" leaves the explanation empty. A style
# may differ by problem (STYLES), as a system's care does.
FULL = {
    (1, 1): "*-ek* marks the plural (*kai-ek* 'dogs'); *ta-* is 'your' (*ta-sorel*); *-un* is "
    "'in' and *ma-* 'my', so *ma-lamo-un* is 'in my tree'.",
    (1, 2): "'My' is the prefix *ma-* and the plural *-ek* (*ma-vitu-ek*); location *-un* "
    "follows the plural (*ta-sorel-ek-un*); a bare plural takes only *-ek* (*lamo-ek*).",
    (1, 3): "The possessor is a **prefix**: *ma-* 'my', *ta-* 'your'. The plural is the "
    "suffix *-ek* and location ('in') is *-un*, which follows the plural: *ta-sorel-ek-un*.",
    (2, 1): "A word before *ham* (six) multiplies it and a word after it adds: *fenham kiri* "
    "= 4 x 6 + 3 = 27, *baham sul* = 2 x 6 + 5 = 17, *tomo ot* = 36 + 1 = 37.",
    (2, 2): "Numbers are counted in sixes: 9 = *ham kiri* (6 + 3), 20 = *kiriham ba* "
    "(3 x 6 + 2), 30 = *sulham* (5 x 6).",
    (3, 1): "Person is a prefix (*ni-* I, *su-* you, *a-* he/she) and tense a suffix (*-ra* "
    "past, *-ke* future, none for the present); gender is not marked, so *amokra* is "
    "'he ate' or 'she ate'.",
    (3, 2): "'I' is *ni-* and the future *-ke*: *ni-mok-ke*; 'you' is *su-* and the past "
    "*-ra*: *su-pen-ra*.",
}
SHORT = {
    1: "Prefixes mark the owner; suffixes mark number.",
    2: "The numbers use six as a base.",
    3: "Prefixes mark the person; suffixes mark tense.",
}
FILLER = "Each form was checked against the examples."
STYLES = {
    "Frontier-B": {1: "full", 2: "short", 3: "short"},
    "Team Lexicon": {1: "full", 2: "short", 3: "templated"},
}


def _explanation(style: str, problem: int, task: int) -> str:
    if style == "full":
        return FULL[(problem, task)]
    if style == "short":
        return SHORT[problem]
    if style == "templated":
        return f"Answer {task} of problem {problem} follows the data. " + " ".join([FILLER] * 3)
    return ""


RAW_SYSTEM = "Frontier-C (raw text)"

# A frontier model the organizers ran with another harness: no outputs here, only its
# automatic figures (0-1), for the whole competition and per problem.
EXTERNAL_SYSTEM = "Frontier-X (held elsewhere)"
EXTERNAL_SCORES = [
    # (problem or None, score, exact_match, chrf)
    (None, 0.71, 0.62, 0.81),
    (1, 0.78, 0.67, 0.9),
    (2, 0.74, 0.67, 0.82),
    (3, 0.6, 0.5, 0.72),
]

# Every problem's rubric (grading/demo.py) is worth 10 points: 30 in all, the jury's scale
# (the rubrics' sum: the demo sets no scale), and grading/demo.py sets the medal thresholds
# within it once the rubrics exist.
PROBLEM_POINTS = 10
THRESHOLDS = {"gold": 24, "silver": 19, "bronze": 14, "honourable_mention": 10}


def _task_id(problem: int, task: int) -> str:
    return f"12026{problem:02d}{task:02d}00"


def _gold(key: list) -> list[str]:
    return [k[0] if isinstance(k, list) else k for k in key]


def _predictions(edits, key: list, query: str) -> list[str]:
    gold = _gold(key)
    if edits == "echo":
        # The baseline repeats the query's last words, as a weak model does.
        words = [line.split()[-1] for line in query.splitlines()[1:]]
        return (words + [""] * len(gold))[: len(gold)]
    return [g if e is None else e for g, e in zip(gold, edits or [None] * len(gold), strict=True)]


def _write_layout(root: Path) -> None:
    (root / "task").mkdir(parents=True)
    with (root / "task" / "test.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(
            ["id", "context", "query", "work_lang", "task_lang", "task_type", "eval_type"]
        )
        for p, t, ttype, etype, _split, _pts, query, _key in TASKS:
            writer.writerow(
                [
                    _task_id(p, t),
                    PROBLEMS[p]["context"],
                    query,
                    "eng_Latn",
                    "['xvl_Latn']",
                    ttype,
                    etype,
                ]
            )
    with (root / "task" / "solution.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "answer", "split", "points", "task_type", "eval_type"])
        for p, t, ttype, etype, split, pts, _query, key in TASKS:
            writer.writerow(
                [_task_id(p, t), json.dumps(key, ensure_ascii=False), split, pts, ttype, etype]
            )
    for index, (name, (tier, edits, style)) in enumerate(SYSTEMS.items(), start=1):
        folder = root / "submissions" / f"{index:02d}_{name.replace(' ', '_')}"
        folder.mkdir(parents=True)
        account = "organizer" if tier == "baseline" else "external"
        (folder / "metadata.json").write_text(
            json.dumps({"team": name, "account_type": account, "rank": index}), encoding="utf-8"
        )
        rows = []
        for p, t, _tt, _et, _split, _pts, query, key in TASKS:
            items = _predictions(edits.get("*") or edits.get((p, t)), key, query)
            # A weak open model prints numbered lines rather than the JSON list asked for.
            pred = (
                "\n".join(f"{i}. {item}" for i, item in enumerate(items, start=1))
                if tier == "open"
                else json.dumps(items, ensure_ascii=False)
            )
            rows.append(
                {
                    "id": _task_id(p, t),
                    "pred": pred,
                    "explanation": _explanation(STYLES.get(name, {}).get(p, style), p, t),
                }
            )
        (folder / "predictions.json").write_text(
            json.dumps(rows, ensure_ascii=False), encoding="utf-8"
        )


def _raw_outputs() -> str:
    """Return JSONL of free model text, in the shapes chat models print."""
    lines = []
    for p, t, _tt, _et, _split, _pts, query, key in TASKS:
        gold = _gold(key)
        labels = [line.split()[0] for line in query.splitlines()[1:]]
        if len(labels) == len(gold):
            answers = "\n".join(f"**{label}** {g}" for label, g in zip(labels, gold, strict=True))
        else:  # an explanation task: one paragraph
            answers = " ".join(gold)
        text = (
            "Let me work through the data first.\n\n"
            f"## Explanation\nComparing the examples pair by pair isolates each affix.\n\n"
            f"## Answer\n{answers}\n"
        )
        lines.append(json.dumps({"id": _task_id(p, t), "output": text}, ensure_ascii=False))
    return "\n".join(lines) + "\n"


def _external_scores() -> str:
    """Return the CSV of the external system's figures, as import_system_scores reads it."""
    lines = ["system,problem,score,exact_match,chrf"]
    for problem, score, exact_match, chrf in EXTERNAL_SCORES:
        lines.append(f"{EXTERNAL_SYSTEM},{problem or ''},{score},{exact_match},{chrf}")
    return "\n".join(lines) + "\n"


@transaction.atomic
def demo_competition_load() -> Competition:
    """Create or refresh the demo competition through the ordinary importers."""
    with tempfile.TemporaryDirectory() as tmp:
        _write_layout(Path(tmp))
        competition_import_iolai(
            directory=Path(tmp), slug=DEMO_SLUG, name="Demo Olympiad 2026", year=2026
        )
    competition = Competition.objects.get(slug=DEMO_SLUG)
    for name, (tier, _edits, _style) in SYSTEMS.items():
        System.objects.filter(competition=competition, name=name).update(tier=tier)
    for number, data in PROBLEMS.items():
        Problem.objects.filter(competition=competition, number=number).update(
            title=data["title"], language=data["language"], points=PROBLEM_POINTS
        )
    outputs_import_jsonl(
        competition=competition,
        stream=io.StringIO(_raw_outputs()),
        system_name=RAW_SYSTEM,
        file="demo-raw.jsonl",
        tier=System.Tier.FRONTIER,
    )
    system_scores_import(
        competition=competition, stream=io.StringIO(_external_scores()), file="demo-scores.csv"
    )
    probes_demo_load(competition)
    # Runs first: an import of runs replaces the competition's runs, tags and ablations too.
    runs_demo_load(competition)
    techniques_demo_load(competition)
    ablations_demo_load(competition)
    oracle_demo_load(competition)
    return competition

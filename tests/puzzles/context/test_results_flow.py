"""End to end, without a browser: JSON import, analysis, variants export, solver answers
and judge verdicts, to Table 1, the paired tests and the judges' tables.

Two invented puzzles, every figure below worked out by hand:

vela (fragile): examples 1 "ta mo", 2 "ta ri", 3 "ka mo". Tokens ta {1,2}, mo {1,3}, ri {2},
ka {3}: D = 0, 1, 1. Question v.1 (to_english "ka ri") needs ka and ri, each a singleton,
so deleting 2 or 3 damages it; v.2 (to_foreign "ta mo") needs ta and mo, each in two
examples. D_Q = 0, 1, 1: the targeted deletion is example 2 (tie on D_Q and D, lower index).

sorn (robust): examples 1 "na pe", 2 "na lu", 3 "pe lu"; every token is in two examples,
D = D_Q = 0, so the targeted deletion is example 1 and no single deletion damages anything.
Both questions need tokens of the context, so no_context is unsolvable for both puzzles.

The random deletion (seed 2026) is example 3 of vela (damages v.1) and example 1 of sorn.
"""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from puzzles.context.lab.variants import random_deletion
from puzzles.context.results.selectors import context_results, context_results_report
from puzzles.models import JudgeVerdict, SolverAnswer

pytestmark = pytest.mark.django_db

PUZZLES = [
    {
        "slug": "vela",
        "title": "Vela (invented)",
        "language": "Vela",
        "examples": [
            {"foreign": "ta mo", "english": "I see."},
            {"foreign": "ta ri", "english": "I run."},
            {"foreign": "ka mo", "english": "You see."},
        ],
        "questions": [
            {"id": "v.1", "direction": "to_english", "prompt": "ka ri", "answer": "You run."},
            {"id": "v.2", "direction": "to_foreign", "prompt": "I see.", "answer": "ta mo"},
        ],
    },
    {
        "slug": "sorn",
        "title": "Sorn (invented)",
        "language": "Sorn",
        "examples": [
            {"foreign": "na pe", "english": "He eats."},
            {"foreign": "na lu", "english": "He sleeps."},
            {"foreign": "pe lu", "english": "Eating sleeps."},
        ],
        "questions": [
            {"id": "s.1", "direction": "to_english", "prompt": "na pe", "answer": "He eats."},
            {
                "id": "s.2",
                "direction": "to_foreign",
                "prompt": "He sleeps.",
                "answer": ["na lu", "lu na"],
            },
        ],
    },
]


def _answer(puzzle, condition, question, answer, model="m1"):
    return {
        "puzzle": puzzle,
        "condition": condition,
        "model": model,
        "question": question,
        "answer": answer,
    }


ANSWERS = [
    # vela: EM 1 in the original, 0.5 when example 2 goes (v.1 abstained), 0 without context.
    _answer("vela", "original", "v.1", "you run"),
    _answer("vela", "original", "v.2", "ta mo"),
    _answer("vela", "targeted", "v.1", "N/A"),
    _answer("vela", "targeted", "v.2", "ta mo"),
    _answer("vela", "no_context", "v.1", " n/a "),
    _answer("vela", "no_context", "v.2", ""),
    # sorn: EM 1 in the original and targeted (the normalized and alternative answers
    # count), 0 without context.
    _answer("sorn", "original", "s.1", "He eats."),
    _answer("sorn", "original", "s.2", "lu na"),
    _answer("sorn", "targeted", "s.1", "he eats"),
    _answer("sorn", "targeted", "s.2", "na lu"),
    _answer("sorn", "no_context", "s.1", "N/A"),
    _answer("sorn", "no_context", "s.2", None),
]
VERDICTS = [
    ("vela", "original", "valid"),  # label valid: TN
    ("vela", "targeted", "unsolvable"),  # label unsolvable: TP
    ("vela", "no_context", "unsolvable"),  # label unsolvable: TP
    ("sorn", "targeted", "unsolvable"),  # label valid: FP; EM held at 1 (Table 7)
    ("sorn", "no_context", "valid"),  # label unsolvable: FN; EM fell 1 -> 0 (Table 8)
]


def _jsonl(path, rows):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return str(path)


def _run(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_from_json_to_the_tables(tmp_path):
    (tmp_path / "p.json").write_text(json.dumps(PUZZLES))
    _run("import_puzzles", str(tmp_path / "p.json"))

    analysis = json.loads(_run("context_analysis", "vela", "--format", "json"))
    assert [(e["d"], e["dq"]) for e in analysis["examples"]] == [(0, 0), (1, 1), (1, 1)]
    assert analysis["fragile"] is True
    robust = json.loads(_run("context_analysis", "sorn", "--format", "json"))
    assert robust["fragile"] is False and robust["max_dq"] == 0

    # The seeded random deletion this test's labels rest on.
    assert random_deletion(3, puzzle_slug="vela", seed=2026) == 3
    assert random_deletion(3, puzzle_slug="sorn", seed=2026) == 1
    lines = [json.loads(x) for x in _run("export_variants", "--format", "jsonl").splitlines()]
    assert [(x["puzzle"], x["condition"], x["deleted"]) for x in lines] == [
        ("sorn", "original", []),
        ("sorn", "random", [1]),
        ("sorn", "targeted", [1]),
        ("sorn", "no_context", [1, 2, 3]),
        ("vela", "original", []),
        ("vela", "random", [3]),
        ("vela", "targeted", [2]),
        ("vela", "no_context", [1, 2, 3]),
    ]
    targeted = lines[6]["prompt"]
    assert "ta ri" not in targeted and "ka mo" in targeted and "N/A" in targeted
    assert (
        "ta mo" not in lines[7]["prompt"]
        and "v.1 (translate into English): ka ri" in (lines[7]["prompt"])
    )

    answers = _jsonl(tmp_path / "answers.jsonl", ANSWERS)
    assert "12 created, 0 updated, 0 unchanged" in _run("import_solver_answers", answers)
    verdicts = _jsonl(
        tmp_path / "verdicts.jsonl",
        [{"puzzle": p, "condition": c, "judge": "j1", "verdict": v} for p, c, v in VERDICTS],
    )
    assert "5 created" in _run("import_judge_verdicts", verdicts)
    assert SolverAnswer.objects.filter(abstained=True).count() == 5

    results = context_results()
    labels = {(x.puzzle, x.condition): x.label for x in results.labels}
    assert labels == {
        ("sorn", "original"): "valid",
        ("sorn", "random"): "valid",
        ("sorn", "targeted"): "valid",
        ("sorn", "no_context"): "unsolvable",
        ("vela", "original"): "valid",
        ("vela", "random"): "unsolvable",
        ("vela", "targeted"): "unsolvable",
        ("vela", "no_context"): "unsolvable",
    }
    table1 = {
        row.condition: (
            row.n_puzzles,
            row.mean_em,
            row.puzzles_abstained,
            row.mean_em_attempted,
            row.puzzles_caused_abstention,
            row.puzzles_answered_in_original,
            row.questions_caused_abstention,
            row.questions_answered_in_original,
        )
        for row in results.summaries
    }
    # targeted: vela v.1 answered in the original, abstained on here: 1 of 2 puzzles (both
    # had an answered question), 1 of 4 questions. no_context: every question of both.
    assert table1 == {
        "original": (2, 1.0, 0, 1.0, None, None, None, None),
        "targeted": (2, 0.75, 0, 0.75, 1, 2, 1, 4),
        "no_context": (2, 0.0, 2, None, 2, 2, 4, 4),
    }
    tests = {t.condition: t for t in results.tests}
    # targeted: one puzzle's EM changed (1 -> 0.5); Wilcoxon on one nonzero difference: p 1.
    # McNemar: v.1 lost, nothing gained: binomial(1 of 1) p = 1.
    assert (tests["targeted"].n_puzzles, tests["targeted"].n_changed) == (2, 1)
    assert tests["targeted"].wilcoxon_p == pytest.approx(1.0)
    assert (tests["targeted"].lost, tests["targeted"].gained) == (1, 0)
    assert tests["targeted"].mcnemar_p == pytest.approx(1.0)
    # no_context: both puzzles fell 1 -> 0: the exact two-sided p of n = 2 is 2/4 = 0.5;
    # all 4 questions lost: McNemar p = 2 * (1/2)^4 = 0.125.
    assert tests["no_context"].wilcoxon_p == pytest.approx(0.5)
    assert (tests["no_context"].lost, tests["no_context"].gained) == (4, 0)
    assert tests["no_context"].mcnemar_p == pytest.approx(0.125)

    # The paper's Table 2, the targeted variants alone: vela (fragile) judged unsolvable,
    # TP; sorn (robust) judged unsolvable, FP. Precision 1/2, recall 1/1, F1 2/(2 + 1).
    (judge,) = results.agreement_targeted
    assert (judge.tp, judge.fp, judge.fn, judge.tn) == (1, 1, 0, 0)
    assert (judge.precision, judge.recall) == (0.5, 1.0)
    assert judge.f1 == pytest.approx(2 / 3)
    # Pooled over the five verdicts (original, targeted, no_context).
    (judge,) = results.agreement_pooled
    assert (judge.tp, judge.fp, judge.fn, judge.tn) == (2, 1, 1, 1)
    assert judge.precision == pytest.approx(2 / 3)
    assert judge.recall == pytest.approx(2 / 3)
    assert judge.f1 == pytest.approx(2 / 3)
    held = [
        (c.puzzle, c.condition, c.em_original, c.em_variant)
        for c in results.contradictions.unsolvable_but_held
    ]
    fell = [
        (c.puzzle, c.condition, c.em_original, c.em_variant)
        for c in results.contradictions.valid_but_fell
    ]
    assert held == [("sorn", "targeted", 1.0, 1.0)]
    assert fell == [("sorn", "no_context", 1.0, 0.0)]

    report = json.loads(_run("context_results", "--format", "json"))
    assert report == json.loads(json.dumps(context_results_report(results)))
    assert report["judges_targeted"][0]["n"] == 2
    assert report["judges_targeted"][0]["conditions"] == ["targeted"]
    assert report["judges_pooled"][0]["n"] == 5
    text = _run("context_results")
    assert "m1 | targeted | 2 | 0.7500 | 0 | 0.7500 | 1/2 | 1/4" in text
    assert "m1 | no_context | 2 | 0.0000 | 2 | - | 2/2 | 4/4" in text
    table_2, pooled = text.split("Table 2: verdicts on the targeted deletion")[1].split(
        "Not the paper's Table 2"
    )
    assert "j1 | 1 | 1 | 0 | 0 | 0.5000 | 1.0000 | 0.6667" in table_2
    assert "j1 | 2 | 1 | 1 | 1 | 0.6667 | 0.6667 | 0.6667" in pooled

    # The same file again changes nothing; a changed row is updated, the others kept.
    assert "0 created, 0 updated, 12 unchanged" in _run("import_solver_answers", answers)
    again = _jsonl(tmp_path / "again.jsonl", [_answer("vela", "targeted", "v.1", "You run")])
    assert "0 created, 1 updated, 0 unchanged" in _run("import_solver_answers", again)
    assert SolverAnswer.objects.count() == 12
    flipped = _jsonl(
        tmp_path / "flip.jsonl",
        [{"puzzle": "sorn", "condition": "targeted", "judge": "j1", "verdict": "valid"}],
    )
    assert "1 updated" in _run("import_judge_verdicts", flipped)
    assert JudgeVerdict.objects.get(puzzle__slug="sorn", condition="targeted").verdict == "valid"
    after = context_results()
    assert {r.condition: r.mean_em for r in after.summaries}["targeted"] == 1.0
    (judge,) = after.agreement_pooled
    assert (judge.tp, judge.fp, judge.fn, judge.tn) == (2, 0, 1, 2)
    (judge,) = after.agreement_targeted
    assert (judge.tp, judge.fp, judge.fn, judge.tn) == (1, 0, 0, 1)


def test_export_variants_csv_to_a_file_and_a_chosen_seed(tmp_path):
    (tmp_path / "p.json").write_text(json.dumps(PUZZLES))
    _run("import_puzzles", str(tmp_path / "p.json"))
    out = tmp_path / "v.csv"
    _run("export_variants", "vela", "--format", "csv", "--out", str(out), "--seed", "7")
    import csv

    rows = list(csv.DictReader(out.open(encoding="utf-8", newline="")))
    assert [r["condition"] for r in rows] == ["original", "random", "targeted", "no_context"]
    assert [r["deleted"] for r in rows[2:]] == ["2", "1 2 3"]
    assert rows[1]["deleted"] == str(random_deletion(3, puzzle_slug="vela", seed=7))
    assert rows[3]["prompt"].startswith("Puzzle: Vela (invented)")


def test_unknown_puzzle_is_refused_by_the_export():
    from django.core.management import CommandError

    with pytest.raises(CommandError, match="unknown puzzle 'nope'"):
        _run("export_variants", "nope")

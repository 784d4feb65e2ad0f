"""puzzle_from_problem: the reading of a Rosetta Stone problem (pure, on invented text) and
the two IOL 2026 conversions from the shared data (counts, directions and token facts
only: the problem texts stay out of the repository)."""

from __future__ import annotations

import shutil
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from puzzles.context.lab.analysis import TO_ENGLISH, TO_FOREIGN
from puzzles.context.lab.rosetta import (
    ConversionError,
    ProblemTask,
    rosetta_convert,
    task_direction,
)
from puzzles.context.lab.selectors import puzzle_analysis
from puzzles.models import ContextPuzzle

CONTEXT = """Here are sentences in Vela and their English translations.

1. ta mo / mo ta | I see.
2. ta ri | I run.
3. ka mo | You see.
4. a footnote without a pair

Vela is an invented language.
"""


def _task(number, query, key, task_type="translation"):
    return ProblemTask(number=number, query=query, task_type=task_type, answer_key=key)


def test_invented_problem_is_read_with_sides_directions_alternatives_and_skips():
    tasks = [
        _task(1, "Translate into English:\n\n5. ka ri (two meanings)\n", [["You run."]]),
        _task(
            2,
            "Translate from English:\n\n6. I run.\n7. You see.\n",
            [["ta ri"], ["ka mo", "mo ka"]],
        ),
        _task(3, "Match them.\n\n8. ta\n", [["A"]], task_type="match_letters"),
        _task(4, "Translate into Vela:\n\n9. I see.\n", [["ta mo"], ["extra"]]),
        _task(5, "Say something.\n\n10. ta\n", [["x"]]),
    ]
    result = rosetta_convert(problem_number=7, context=CONTEXT, tasks=tasks)
    assert result.foreign_side == "left"
    assert [e.foreign for e in result.examples] == [("ta mo", "mo ta"), ("ta ri",), ("ka mo",)]
    assert result.examples[0].english == "I see."
    assert [(q.id, q.direction, q.prompt, q.answers) for q in result.questions] == [
        ("7.1.a", TO_ENGLISH, "ka ri", ("You run.",)),
        ("7.2.a", TO_FOREIGN, "I run.", ("ta ri",)),
        ("7.2.b", TO_FOREIGN, "You see.", ("ka mo", "mo ka")),
    ]
    reasons = " / ".join(result.skipped)
    assert "context line 6 (numbered 4)" in reasons
    assert "7.1.a: note '(two meanings)' dropped" in reasons
    assert "task 3: a match_letters task" in reasons
    assert "task 4: 1 numbered items but 2 answers" in reasons
    assert "task 5: its assignment says neither" in reasons


def test_foreign_side_on_the_right_tie_refused_unless_named():
    swapped = "1. I see. | ta mo\n2. You see. | ka mo\n"
    tasks = [_task(1, "Translate into English:\n3. ka ta\n", [["You I"]])]
    assert rosetta_convert(problem_number=1, context=swapped, tasks=tasks).foreign_side == "right"
    nothing_shared = [_task(1, "Translate into English:\n3. zu\n", [["?"]])]
    with pytest.raises(ConversionError, match="cannot tell which side") as caught:
        rosetta_convert(problem_number=1, context=swapped, tasks=nothing_shared)
    assert caught.value.field == "side"
    named = rosetta_convert(
        problem_number=1, context=swapped, tasks=nothing_shared, foreign_side="right"
    )
    assert named.examples[0].foreign == ("ta mo",) and named.side_named


@pytest.mark.parametrize(
    ("query", "direction"),
    [
        ("Translate into English in all possible ways:", TO_ENGLISH),
        ("Translate the following sentences into Iquito.", TO_FOREIGN),
        ("Translate into the Vela language:", TO_FOREIGN),
        ("Translate from English:", TO_FOREIGN),
        ("Translate from Vela:", TO_ENGLISH),
        ("Fill in the blanks.", None),
    ],
)
def test_direction_from_the_assignment(query, direction):
    told = task_direction(query + "\n1. into English\n")  # items do not count
    assert (told[0] if told else None) == direction


def test_no_pairs_or_no_translation_task_is_refused():
    with pytest.raises(ConversionError) as caught:
        rosetta_convert(problem_number=1, context="1. just text\n", tasks=[])
    assert caught.value.field == "context"
    with pytest.raises(ConversionError) as caught:
        rosetta_convert(problem_number=1, context=CONTEXT, tasks=[])
    assert caught.value.field == "tasks"


# --- the IOL 2026 problems ----------------------------------------------------------------


@pytest.fixture
def iol2026(db, iolai_dir, tmp_path):
    shutil.copytree(iolai_dir / "task", tmp_path / "real" / "task")
    call_command("import_iolai", str(tmp_path / "real"), "--slug", "iol26", stdout=StringIO())
    return "iol26"


def _convert(competition, number, slug, *options) -> str:
    out = StringIO()
    call_command(
        "puzzle_from_problem", competition, str(number), "--slug", slug, *options, stdout=out
    )
    return out.getvalue()


def test_iquito_problem_3(iol2026):
    shown = _convert(iol2026, 3, "iquito")
    assert "foreign side: left" in shown and "examples: 16 (numbered 1-16), 3 with" in shown
    assert "skipped: nothing" in shown
    puzzle = ContextPuzzle.objects.get(slug="iquito")
    assert puzzle.source_problem.number == 3 and puzzle.language == "Iquito"
    examples = list(puzzle.examples.all())
    assert len(examples) == 16
    assert [e.position for e in examples if e.foreign_alternatives] == [3, 13, 16]
    # The foreign side holds the clitic boundary, the English side never does.
    assert all("=" not in e.english for e in examples)
    assert sum("=" in e.foreign for e in examples) == 14
    questions = list(puzzle.questions.all())
    assert [(q.qid, q.direction, len(q.answers)) for q in questions] == [
        ("3.1.a", TO_ENGLISH, 1),
        ("3.1.b", TO_ENGLISH, 1),
        ("3.1.c", TO_ENGLISH, 2),
        ("3.1.d", TO_ENGLISH, 1),
        ("3.2.a", TO_FOREIGN, 1),
        ("3.2.b", TO_FOREIGN, 1),
        ("3.2.c", TO_FOREIGN, 1),
        ("3.2.d", TO_FOREIGN, 2),
        ("3.2.e", TO_FOREIGN, 1),
    ]
    analysis = puzzle_analysis(puzzle)
    assert (len(analysis.tokens), sum(r.singleton for r in analysis.tokens)) == (45, 32)
    assert analysis.fragile and analysis.max_dq == 3
    # Every question needs tokens of the context; 7 also need some the context lacks.
    assert all(set(q.required[0]) - set(q.absent) for q in analysis.questions)
    assert sum(bool(q.absent) for q in analysis.questions) == 7
    # to_foreign questions' required tokens come from the answers: 3.2.d has two orders.
    assert len(analysis.questions[7].required) == 2


def test_komnzo_problem_5_foreign_on_the_right(iol2026):
    shown = _convert(iol2026, 5, "komnzo")
    assert "foreign side: right" in shown
    assert "task 1: to_foreign" in shown and "task 2: to_english" in shown
    puzzle = ContextPuzzle.objects.get(slug="komnzo")
    examples = list(puzzle.examples.all())
    assert len(examples) == 15 and not any(e.foreign_alternatives for e in examples)
    # The English side is the sentence with a capital and a full stop; the foreign side
    # is two words (a time word and the verb).
    assert all(e.english.endswith(".") for e in examples)
    assert all(len(e.foreign.split()) == 2 for e in examples)
    questions = list(puzzle.questions.all())
    assert [(q.qid, q.direction) for q in questions] == [
        *((f"5.1.{x}", TO_FOREIGN) for x in "abcd"),
        *((f"5.2.{x}", TO_ENGLISH) for x in "abcd"),
    ]
    assert [len(q.answers) for q in questions] == [1, 1, 1, 1, 2, 2, 2, 2]
    analysis = puzzle_analysis(puzzle)
    # Three time words shared by the examples, 15 verb forms each in one example.
    assert (len(analysis.tokens), sum(r.singleton for r in analysis.tokens)) == (18, 15)
    assert not analysis.fragile
    assert all(len(q.absent) == 1 for q in analysis.questions)


def test_dry_run_saves_nothing_and_other_problems_are_refused(iol2026):
    shown = _convert(iol2026, 5, "komnzo", "--dry-run")
    assert "dry run: puzzle komnzo not saved" in shown
    assert not ContextPuzzle.objects.exists()
    with pytest.raises(CommandError, match="problem 1, field 'context'"):
        _convert(iol2026, 1, "yupik")
    with pytest.raises(CommandError, match="has no problem 9"):
        _convert(iol2026, 9, "nine")
    with pytest.raises(CommandError, match="slug 'a b'"):
        _convert(iol2026, 3, "a b")
    assert not ContextPuzzle.objects.exists()


def test_converting_again_replaces_the_puzzle(iol2026):
    _convert(iol2026, 3, "iquito")
    assert "updated iquito" in _convert(iol2026, 3, "iquito")
    assert ContextPuzzle.objects.get(slug="iquito").questions.count() == 9

"""The context lab's demo: invented puzzles with the verdicts they were designed for, loaded
by `manage.py demo`, idempotent."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from puzzles.context.lab.demo import DEMO_PUZZLES, context_demo_load
from puzzles.context.lab.selectors import puzzle_analysis
from puzzles.models import ContextExample, ContextPuzzle, ContextQuestion

pytestmark = pytest.mark.django_db


def _state():
    return [
        sorted(ContextPuzzle.objects.values_list("pk", "slug", "title", "language", "created_at")),
        sorted(ContextExample.objects.values_list("pk", "puzzle_id", "position", "foreign")),
        sorted(ContextQuestion.objects.values_list("pk", "puzzle_id", "qid", "answers")),
    ]


def test_the_demo_command_loads_the_puzzles_and_a_second_run_changes_nothing():
    call_command("demo", stdout=io.StringIO())
    first = _state()
    assert sorted(p[1] for p in first[0]) == ["demo-tolmeric", "demo-ubrenti", "demo-vashko"]
    out = io.StringIO()
    call_command("demo", stdout=out)
    assert _state() == first
    assert "context lab puzzles demo-tolmeric, demo-ubrenti, demo-vashko" in out.getvalue()


def test_the_demo_has_a_fragile_and_a_robust_puzzle():
    context_demo_load()
    verdicts = {
        (p.slug, tokenizer): puzzle_analysis(p, tokenizer).max_dq
        for p in ContextPuzzle.objects.all()
        for tokenizer in ("normalized", "whitespace")
    }
    assert verdicts == {
        ("demo-tolmeric", "normalized"): 2,
        ("demo-tolmeric", "whitespace"): 2,
        ("demo-vashko", "normalized"): 0,
        ("demo-vashko", "whitespace"): 1,
        ("demo-ubrenti", "normalized"): 1,
        ("demo-ubrenti", "whitespace"): 1,
    }


def test_a_demo_puzzle_edited_by_hand_is_restored_and_the_others_are_left_alone():
    from puzzles.models import JudgeVerdict, SolverAnswer

    context_demo_load()
    # With results, a puzzle is not replaced (the import refuses to): the edit stays.
    ContextExample.objects.filter(puzzle__slug="demo-vashko", position=1).update(foreign="x")
    context_demo_load()
    vashko = ContextPuzzle.objects.get(slug="demo-vashko")
    assert vashko.examples.get(position=1).foreign == "x"
    # Without results, the demo restores it and leaves the other puzzles alone.
    SolverAnswer.objects.filter(puzzle=vashko).delete()
    JudgeVerdict.objects.filter(puzzle=vashko).delete()
    before = _state()
    context_demo_load()
    after = _state()
    vashko = ContextPuzzle.objects.get(slug="demo-vashko")
    assert vashko.examples.get(position=1).foreign == "Mira tef lonu."
    untouched = [e for e in before[1] if e[1] != vashko.pk]
    assert untouched == [e for e in after[1] if e[1] != vashko.pk]


def test_the_demo_is_our_own_invented_material():
    languages = {p["language"] for p in DEMO_PUZZLES}
    assert languages == {"Tolmeric", "Vashko", "Ubrenti"}
    assert all(p["slug"].startswith("demo-") and "(demo)" in p["title"] for p in DEMO_PUZZLES)

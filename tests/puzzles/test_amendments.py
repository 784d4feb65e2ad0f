"""Answer-key amendments on the demo competition: rescoring, the report, history, refusals.

In the demo, task 12026010100 item 3 has the gold "in my tree"; Frontier-B answered
"in the tree" and OpenModel-7B "my tree".
"""

from __future__ import annotations

import json
import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from puzzles.errors import ImportFailure
from puzzles.models import AnswerAmendment, Output, Task
from puzzles.services import answer_key_amend

SLUG = "demo"
TASK = "12026010100"
ORIGINAL_KEY = [["dogs"], ["your house"], ["in my tree"]]


def _amend(*args: str) -> list[str]:
    out = StringIO()
    call_command("amend_answer", SLUG, *args, stdout=out)
    return out.getvalue().splitlines()


def _board() -> dict[str, dict]:
    out = StringIO()
    call_command("score", SLUG, "--format", "json", "--all-columns", stdout=out)
    return {row["system"]: row for row in json.loads(out.getvalue())}


def _task() -> Task:
    return Task.objects.get(problem__competition__slug=SLUG, external_id=TASK)


def _snapshot() -> dict[str, object]:
    return {
        "keys": list(Task.objects.order_by("pk").values_list("pk", "answer_key", "eval_type")),
        "scores": list(Output.objects.order_by("pk").values_list("pk", "scores")),
        "amendments": AnswerAmendment.objects.count(),
    }


def _change_lines(lines: list[str]) -> dict[str, tuple[float, float, int, int]]:
    """Parse the report's 'System: score a -> b, rank c -> d' lines."""
    pattern = re.compile(
        r"^(?P<system>.+): score (?P<s0>[\d.]+) -> (?P<s1>[\d.]+), rank (?P<r0>\d+) -> (?P<r1>\d+)$"
    )
    changes = {}
    for line in lines[1:]:
        match = pattern.match(line)
        assert match, f"not a change line: {line!r}"
        changes[match["system"]] = (
            float(match["s0"]),
            float(match["s1"]),
            int(match["r0"]),
            int(match["r1"]),
        )
    return changes


def _expected_changes(before: dict, after: dict) -> dict[str, tuple[float, float, int, int]]:
    return {
        name: (before[name]["score"], row["score"], before[name]["rank"], row["rank"])
        for name, row in after.items()
        if (before[name]["score"], before[name]["rank"]) != (row["score"], row["rank"])
    }


def test_add_alternative_makes_wrong_answer_right_and_reports_it(demo_competition):
    before = _board()
    output = Output.objects.get(system__name="Frontier-B", task__external_id=TASK)
    assert output.parsed_items[2] == "in the tree"
    assert output.scores["iol2026"]["parsed"]["item_em"][2] == 0.0

    lines = _amend(TASK, "3", "--add", "in the tree")

    after = _board()
    assert after["Frontier-B"]["score"] > before["Frontier-B"]["score"]
    assert after["Frontier-B"]["exact_match"] > before["Frontier-B"]["exact_match"]
    output.refresh_from_db()
    assert output.scores["iol2026"]["parsed"]["item_em"][2] == 1.0
    assert output.scores["sacrebleu"]["parsed"]["item_em"][2] == 1.0

    assert lines[0].startswith(f"{TASK} item 3: add alternative 'in the tree'")
    assert "accepted now: 'in my tree', 'in the tree'" in lines[0]
    changes = _change_lines(lines)
    assert changes["Frontier-B"] == (
        before["Frontier-B"]["score"],
        after["Frontier-B"]["score"],
        before["Frontier-B"]["rank"],
        after["Frontier-B"]["rank"],
    )
    assert changes["Frontier-B"][3] < changes["Frontier-B"][2]  # it climbs
    # Exactly the systems whose score or rank moved are listed (here one it overtook too).
    assert changes == _expected_changes(before, after)
    assert "Ensemble-3" not in changes
    assert "OpenModel-7B" not in changes  # "my tree" is still wrong

    task = _task()
    assert task.answer_key == [["dogs"], ["your house"], ["in my tree", "in the tree"]]
    assert task.eval_type == Task.EvalType.MULTI


def test_remove_reverses_an_addition(demo_competition):
    original = _board()
    _amend(TASK, "3", "--add", "in the tree")
    amended = _board()

    lines = _amend(TASK, "3", "--remove", "in the tree")

    assert lines[0].startswith(f"{TASK} item 3: remove alternative 'in the tree'")
    assert lines[0].endswith("accepted now: 'in my tree'")
    assert _board() == original
    assert _change_lines(lines) == _expected_changes(amended, original)
    assert "Frontier-B" in _change_lines(lines)
    assert _task().answer_key == ORIGINAL_KEY


def test_amendment_without_effect_says_so(demo_competition):
    before = _board()
    lines = _amend(TASK, "1", "--add", "hounds")
    assert lines[1:] == ["no system's score or rank changed"]
    assert _board() == before


def test_command_amendment_history_has_no_user(demo_competition):
    _amend(TASK, "3", "--add", "in the tree")
    amendment = AnswerAmendment.objects.get()
    assert amendment.created_by is None
    assert amendment.task == _task()
    assert (amendment.item_number, amendment.action, amendment.text) == (
        3,
        AnswerAmendment.Action.ADD,
        "in the tree",
    )
    assert amendment.before == ORIGINAL_KEY
    assert amendment.after == [["dogs"], ["your house"], ["in my tree", "in the tree"]]
    assert {c["system"] for c in amendment.changes} >= {"Frontier-B"}


def test_service_amendment_history_records_the_user(demo_competition, organizer):
    answer_key_amend(task=_task(), item_number=3, add="in the tree", user=organizer)
    report = answer_key_amend(task=_task(), item_number=3, remove="in the tree", user=organizer)

    added, removed = AnswerAmendment.objects.order_by("pk")
    assert added.created_by == organizer
    assert removed.created_by == organizer
    assert removed.action == AnswerAmendment.Action.REMOVE
    assert removed.before == added.after
    assert removed.after == ORIGINAL_KEY
    assert report.amendment == removed
    # The task's own history carries the user too.
    assert _task().history.first().history_user == organizer


def test_amendment_text_is_stripped(demo_competition):
    _amend(TASK, "3", "--add", "  in the tree  ")
    assert _task().answer_key[2] == ["in my tree", "in the tree"]
    assert AnswerAmendment.objects.get().text == "in the tree"


@pytest.mark.parametrize(
    ("args", "words"),
    [
        pytest.param([TASK, "4", "--add", "x"], "has items 1 to 3, not 4", id="item-too-big"),
        pytest.param([TASK, "0", "--add", "x"], "has items 1 to 3, not 0", id="item-zero"),
        pytest.param(
            [TASK, "1", "--remove", "dogs"],
            "'dogs' is the only accepted alternative of item 1",
            id="remove-only-alternative",
        ),
        pytest.param(
            [TASK, "3", "--add", "in my tree"],
            "'in my tree' is already accepted for item 3",
            id="add-existing",
        ),
        pytest.param(
            [TASK, "3", "--remove", "in the tree"],
            "'in the tree' is not an accepted alternative of item 3",
            id="remove-absent",
        ),
        pytest.param([TASK, "2", "--add", "   "], "the alternative is empty", id="add-blank"),
        pytest.param(["12026099900", "1", "--add", "x"], "unknown task '12026099900'", id="task"),
    ],
)
def test_refused_amendments_change_nothing(demo_competition, args, words):
    before = _snapshot()
    board = _board()
    with pytest.raises(CommandError) as exc:
        _amend(*args)
    assert words in str(exc.value)
    assert _snapshot() == before
    assert _board() == board


def test_unknown_competition_is_refused(demo_competition):
    with pytest.raises(CommandError, match="unknown competition 'nope'"):
        call_command("amend_answer", "nope", TASK, "1", "--add", "x", stdout=StringIO())


def test_service_needs_exactly_one_action(demo_competition):
    before = _snapshot()
    with pytest.raises(ImportFailure):
        answer_key_amend(task=_task(), item_number=1)
    with pytest.raises(ImportFailure):
        answer_key_amend(task=_task(), item_number=1, add="a", remove="dogs")
    assert _snapshot() == before


def test_command_needs_add_or_remove(demo_competition):
    with pytest.raises(CommandError):
        call_command("amend_answer", SLUG, TASK, "1", stdout=StringIO(), stderr=StringIO())

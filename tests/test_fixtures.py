"""The demo reaches a test through one fixture: `demo` (tests/conftest.py).

Loading the demo runs every importer of the app; the fixture loads it once per test process
and copies its rows into each test that asks (tests/demo_snapshot.py). A test module that
calls the loaders itself pays the whole load in every test. This walks the tests' code and
names every call of a demo loader (`call_command("demo")`, or a function named like
`demo_*_load` / `*_demo_load`) outside the places that test the loaders themselves.
"""

from __future__ import annotations

import ast
import io
import re
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import models
from django.urls import reverse
from django.utils import timezone

from tests.demo_snapshot import rows_read

TESTS = Path(__file__).resolve().parent
LOADER = re.compile(r"(^|_)demo(_.*)?_load$")

# Where a demo loader may be called: the fixture itself, the browser tests (a live server
# with its own database setup), and the tests of the loaders (that a load does what it says,
# that a second one changes nothing), each test by name.
ALLOWED_FILES = {"demo_snapshot.py", "e2e"}
ALLOWED_TESTS = {
    "test_fixtures.py::test_a_second_run_of_the_demo_on_the_fixture_changes_nothing",
    # the demo command: users, passwords, a second run, what it holds
    "puzzles/test_demo.py::*",
    # grading/demo.py: a second run keeps what an organizer, a juror or the chair did meanwhile
    "grading/test_demo_review.py::test_running_the_demo_again_changes_none_of_it",
    "grading/test_demo_review.py::test_thresholds_an_organizer_set_survive_a_new_run",
    "grading/test_demo_review.py::test_a_second_run_keeps_a_jurors_own_marks_on_an_open_paper",
    "grading/test_demo_review.py::test_thresholds_an_organizer_set_above_the_scale_stay",
    "grading/test_demo_review.py::"
    "test_a_rubric_edit_that_left_the_thresholds_above_the_scale_does_not_break_the_demo",
    "grading/test_demo_review.py::test_a_second_run_after_the_chair_read_the_review_changes_nothing",
    # the analytics' demo loaders, on the demo or on a competition of their own
    "puzzles/analytics/test_ablations.py::test_demo_loader_is_idempotent_and_flags_one_condition",
    "puzzles/analytics/test_oracle.py::test_the_demo_oracle_takes_the_best_complete_systems",
    "puzzles/analytics/test_oracle.py::"
    "test_the_demo_oracle_loads_twice_as_one_system_never_on_the_public_board",
    "puzzles/analytics/test_probes.py::test_demo_has_probes_and_loads_twice",
    "puzzles/analytics/test_runs.py::test_demo_has_runs_and_loads_twice",
    "puzzles/analytics/test_techniques.py::"
    "test_demo_tags_give_adoption_and_two_techniques_over_three_teams",
    # the context lab's demo puzzles and its invented results, on generated puzzles too
    "puzzles/context/test_demo.py::*",
    "puzzles/context/test_results_pages.py::*",
}


def _loader_name(call: ast.Call) -> str | None:
    """Return the name of the demo loader `call` calls, if it calls one."""
    func = call.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
    if name == "call_command":
        first = call.args[0] if call.args else None
        if isinstance(first, ast.Constant) and first.value == "demo":
            return 'call_command("demo")'
        return None
    return name if name and LOADER.search(name) else None


def demo_loads(path: Path) -> list[tuple[str, int, str]]:
    """Return (function, line, loader) for every call of a demo loader in the module at
    `path`; the function is the outermost one around the call ("" at module level)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []

    def visit(node: ast.AST, function: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = function
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) and not function:
                inner = child.name
            if isinstance(child, ast.Call) and (name := _loader_name(child)):
                found.append((inner, child.lineno, name))
            visit(child, inner)

    visit(tree, "")
    return found


def _allowed(relative: str, function: str) -> bool:
    if relative.split("/")[0] in ALLOWED_FILES:
        return True
    return f"{relative}::{function}" in ALLOWED_TESTS or f"{relative}::*" in ALLOWED_TESTS


def test_no_test_loads_the_demo_but_through_the_demo_fixture():
    faults = []
    for path in sorted(TESTS.rglob("*.py")):
        relative = path.relative_to(TESTS).as_posix()
        for function, line, loader in demo_loads(path):
            if not _allowed(relative, function):
                faults.append(f"tests/{relative}:{line}: {function or 'module'} calls {loader}")
    assert not faults, "use the `demo` fixture (tests/conftest.py):\n" + "\n".join(faults)


def test_every_allowed_test_still_loads_the_demo():
    """An entry of the allowed list whose test no longer loads the demo goes (no stale leave)."""
    loading = {
        f"{path.relative_to(TESTS).as_posix()}::{function}"
        for path in TESTS.rglob("*.py")
        for function, _, _ in demo_loads(path)
    }
    files = {entry.split("::")[0] for entry in loading}
    stale = [
        entry
        for entry in ALLOWED_TESTS
        if (entry.endswith("::*") and entry[:-3] not in files)
        or (not entry.endswith("::*") and entry not in loading)
    ]
    assert not stale


def test_the_check_finds_each_way_of_loading_the_demo(tmp_path):
    module = tmp_path / "test_example.py"
    module.write_text(
        "from django.core.management import call_command\n"
        "from puzzles import demo\n"
        "from puzzles.context.lab.demo import context_demo_load\n"
        "LOADED = demo.demo_competition_load()\n"
        "def test_a():\n"
        "    call_command('demo', stdout=None)\n"
        "def test_b():\n"
        "    def inner():\n"
        "        return context_demo_load()\n"
        "    call_command('score', 'demo')\n"
        "    return demo_get(), oracle_demo_load(None)\n"
    )
    assert demo_loads(module) == [
        ("", 4, "demo_competition_load"),
        ("test_a", 6, 'call_command("demo")'),
        ("test_b", 9, "context_demo_load"),
        ("test_b", 11, "oracle_demo_load"),
    ]


# --- the fixture's copy is the demo -------------------------------------------------------------


def _kept(table, *, ids: bool) -> list[int]:
    """Return the positions of the table's fields that a copy keeps: all but its times (the
    copy moves them); without `ids`, not its ids nor passwords either, which a second run of
    the command makes anew (it replaces the runs, salts every password again)."""
    return [
        i
        for i, f in enumerate(table.fields)
        if not isinstance(f, models.DateTimeField)
        and (ids or not (f.primary_key or f.is_relation or f.name in ("id", "password")))
    ]


def _values(table, rows, *, ids: bool = True) -> list[tuple]:
    kept = _kept(table, ids=ids)
    return sorted((tuple(row[i] for i in kept) for row in rows), key=repr)


def _in_database(snapshot, *, ids: bool = True) -> dict:
    return {t.model: _values(t, rows_read(t.model).values(), ids=ids) for t in snapshot.tables}


@pytest.mark.django_db
def test_the_demo_fixture_holds_every_row_of_the_demo(demo, _demo_snapshot, client):
    assert _demo_snapshot.row_count > 1000
    loaded = {t.model: _values(t, t.found + t.rows) for t in _demo_snapshot.tables}
    assert _in_database(_demo_snapshot) == loaded
    assert demo.competition.problems.count() == 3 and len(demo.puzzles) == 3
    assert demo.login(client, "juror1").get(reverse("grading:home")).status_code == 200


@pytest.mark.django_db
def test_the_demo_fixture_moves_the_demos_times_to_now(demo, _demo_snapshot):
    # The demo's last row is from now, as after a load in the test: never from the load of
    # the whole process, minutes ago, nor later than what the test itself writes.
    latest = max(
        value
        for table in _demo_snapshot.tables
        for row in rows_read(table.model).values()
        for value in row
        if isinstance(value, datetime)
    )
    assert timezone.now() - timedelta(seconds=5) < latest <= timezone.now()
    assert latest > _demo_snapshot.loaded_at


@pytest.mark.django_db
def test_a_second_run_of_the_demo_on_the_fixture_changes_nothing(demo, _demo_snapshot):
    def rows() -> dict:  # the history of the tasks records each run of the importer
        everything = _in_database(_demo_snapshot, ids=False)
        return {m: v for m, v in everything.items() if not m.__name__.startswith("Historical")}

    before = rows()
    call_command("demo", stdout=io.StringIO())
    assert rows() == before

"""Every app command refuses an unmigrated database in one line (issue 9, item 1), not with
a traceback from its first query."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import get_commands, load_command_class

from ioleval.commands import AppCommand

ROOT = Path(__file__).resolve().parent.parent
OUR_APPS = {"puzzles", "grading", "ioleval"}


def test_every_command_of_ours_checks_the_migrations():
    ours = {name: app for name, app in get_commands().items() if app in OUR_APPS}
    assert {"import_iolai", "import_outputs", "assign_jurors", "demo", "report"} <= set(ours)
    for name, app in ours.items():
        assert isinstance(load_command_class(app, name), AppCommand), name


@pytest.mark.parametrize(
    "argv",
    [
        ["import_iolai", "../shared/data/iolai-2026", "--slug", "iolai-2026"],
        ["assign_jurors", "demo", "--per-paper", "2"],
    ],
)
def test_an_unmigrated_database_is_named_with_what_to_do(tmp_path, argv):
    database = tmp_path / "empty.sqlite3"
    env = dict(
        os.environ,
        DATABASE_URL=f"sqlite:///{database}",
        DJANGO_SETTINGS_MODULE="ioleval.settings.test",
    )
    run = subprocess.run(
        [sys.executable, "manage.py", *argv],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 1
    [line] = run.stderr.strip().splitlines()  # one line, no traceback
    assert line.startswith(f"CommandError: the database {database} is not migrated (")
    assert line.endswith("migrations to apply): run `python manage.py migrate` first")
    assert not database.exists() or database.stat().st_size == 0  # nothing created in it

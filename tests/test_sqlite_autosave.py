"""SQLite, the database of `make run` and of the README's jury, under concurrent autosaves.

Before its DATABASES options (ioleval/settings/base.py) and WAL mode (ioleval/sqlite.py),
concurrent autosaves answered 500 "database is locked": 72 of 93 with 40 tabs for 10 s.
This runs benchmarks/sqlite_autosave.py small: the demo on a fresh SQLite file, served by
`manage.py runserver` (threaded), 16 tabs saving without pause for 8 s.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.timeout(600)
def test_sixteen_tabs_saving_at_once_on_sqlite_get_no_error():
    run = subprocess.run(
        [
            sys.executable,
            "benchmarks/sqlite_autosave.py",
            "--clients",
            "16",
            "--seconds",
            "8",
            "--json",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=540,
    )
    assert run.returncode in (0, 1), run.stderr[-3000:]
    result = json.loads(run.stdout)
    assert result["saves"] > 16
    assert (result["failed"], result["database_is_locked_in_log"]) == (0, 0), result
    assert result["journal_mode"] == "wal"

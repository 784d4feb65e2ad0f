"""docs/run-a-real-jury.md (the README's "Run a real jury", linked from it) works as
written: its shell block, run on a fresh SQLite database from a checkout-like folder, imports the IOL-AI data, creates the accounts with
their links, sets medal thresholds on the jury's scale (its 75-point rubrics), and ends with
every paper assigned twice and rendered as PDF."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WALK = ROOT / "docs" / "run-a-real-jury.md"


def _block() -> str:
    walk = WALK.read_text(encoding="utf-8")
    return re.search(r"```sh\n(.*?)```", walk, re.S).group(1)


def test_the_readme_links_the_jury_walk():
    assert "(docs/run-a-real-jury.md)" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_block_runs_a_real_jury_from_an_empty_database(tmp_path, iolai_dir):
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    for name in ("manage.py", ".venv", "Makefile", "pyproject.toml"):
        (checkout / name).symlink_to(ROOT / name)
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL")}
    env |= {"IOLAI": str(iolai_dir), "DJANGO_SETTINGS_MODULE": "ioleval.settings.local"}
    run = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", _block()],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    jury = checkout / "jury"
    links = re.findall(r"^(\w+)\thttp://127\.0\.0\.1:8000/reset/\S+/\S+/$", run.stdout, re.M)
    assert links == ["maria", "ann", "ben", "cleo"]
    assert "Traceback" not in run.stderr
    # The rubrics make the scale (75, not the 100 a competition used to get by default), and
    # the thresholds are set on it.
    assert "the jury's scale becomes 75 (the sum of the rubrics' maxima)" in run.stdout
    assert (
        "iolai-2026: gold 60, silver 45, bronze 30, honourable mention —; the jury's scale is 75 "
        "(the sum of the rubrics' maxima)"
    ) in run.stdout
    papers = sorted(p.name for p in (jury / "papers").glob("*.pdf"))
    assert len(papers) == 3 * 5  # three systems, five problems
    with sqlite3.connect(jury / "jury.sqlite3") as db:
        assignments = db.execute("SELECT COUNT(*) FROM grading_assignment").fetchone()[0]
        passwords = db.execute(
            "SELECT COUNT(*) FROM auth_user WHERE password NOT LIKE '!%'"
        ).fetchone()[0]
        scale = db.execute(
            "SELECT jury_scale, gold_threshold FROM puzzles_competition WHERE slug = 'iolai-2026'"
        ).fetchone()
    assert assignments == 2 * len(papers)
    assert passwords == 0  # nobody has a password until they open their link
    assert scale[0] is None and float(scale[1]) == 60  # no scale set: the rubrics' sum

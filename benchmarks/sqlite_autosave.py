"""Concurrent autosaves on SQLite, as `make run` serves them: how many are refused.

    .venv/bin/python benchmarks/sqlite_autosave.py [--clients 40] [--seconds 40] [--json]

What it does, step by step (see benchmarks/HISTORY.md for figures):

1. **Database.** A fresh SQLite file in a temporary folder (deleted at the end unless
   `--keep`), `manage.py migrate` and `manage.py demo`, as `make run` does; the settings are
   `ioleval.settings.local` with `DATABASE_URL=sqlite:///<that file>` (so the `DATABASES`
   options of `ioleval/settings/base.py` are the ones measured).
2. **Server.** `manage.py runserver 127.0.0.1:<free port> --noreload`: Django's threaded
   development server, one thread and one database connection per open client connection.
3. **Clients.** `--clients` browser tabs, spread round-robin over the demo's draft papers
   (each tab a juror logged in through the login form, so several tabs share a juror and a
   paper, as a juror's tabs do), each saving marks without pause for `--seconds`: a POST of
   the paper page's autosave (HX-Request, X-CSRFToken) to a random criterion of the paper's
   current rubric, with points on its step and a comment. Not timed: logins.
4. **Figures.** Saves sent, answered 200 with "saved", every other answer by status (a
   "database is locked" is a 500), latency (min, median, p95, max), throughput, the
   "database is locked" lines of the server's log, and the journal mode of the file.

Exit status: 0 no save refused or failed, 1 some were, 3 a setup error.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.scale.database import HOST, SetupError  # noqa: E402
from benchmarks.scale.server import REPO, Browser, free_port, tail  # noqa: E402
from benchmarks.scale.timing import load_average, summary  # noqa: E402

PASSWORD = "ioleval-demo"  # the demo's jurors (grading/demo.py)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=40, help="tabs saving at once")
    parser.add_argument("--seconds", type=float, default=40.0, help="how long they save")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON only")
    parser.add_argument("--keep", action="store_true", help="keep the folder with the database")
    return parser.parse_args(argv)


def _env(database: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DATABASE_URL=f"sqlite:///{database}",
        DJANGO_SETTINGS_MODULE="ioleval.settings.local",
        DJANGO_ALLOWED_HOSTS=HOST,
        CELERY_BROKER_URL="",
    )
    return env


def _manage(env: dict, *args: str) -> None:
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode:
        raise SetupError(f"manage.py {' '.join(args)}: {done.stderr[-2000:]}")


def _drafts(database: Path) -> list[tuple[str, str, list[tuple[int, Decimal, Decimal]]]]:
    """Return (juror, paper code, criteria of its current rubric) of every draft paper."""
    with sqlite3.connect(database) as db:
        rows = db.execute(
            """
            SELECT u.username, p.code, p.problem_id
            FROM grading_assignment a
            JOIN grading_paper p ON p.id = a.paper_id
            JOIN auth_user u ON u.id = a.juror_id
            LEFT JOIN grading_problemjury j ON j.problem_id = p.problem_id
            WHERE a.submitted_at IS NULL AND j.finalized_at IS NULL
            ORDER BY p.code, u.username
            """
        ).fetchall()
        criteria = {}
        for (problem_id,) in {(r[2],) for r in rows}:
            criteria[problem_id] = [
                (pk, Decimal(str(maximum)), Decimal(str(step)))
                for pk, maximum, step in db.execute(
                    """
                    SELECT c.id, c.maximum, c.step FROM grading_criterion c
                    WHERE c.rubric_id = (SELECT r.id FROM grading_rubric r
                        WHERE r.problem_id = ? ORDER BY r.version DESC LIMIT 1)
                    """,
                    [problem_id],
                )
            ]
    return [(juror, code, criteria[problem]) for juror, code, problem in rows]


def _journal_mode(database: Path) -> str:
    with sqlite3.connect(database) as db:
        return db.execute("PRAGMA journal_mode").fetchone()[0]


class Runserver:
    """`manage.py runserver` on a free port, its output in a log file."""

    def __init__(self, env: dict, tmp: Path) -> None:
        self.port = free_port()
        self.log = tmp / "runserver.log"
        self.process = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", f"{HOST}:{self.port}", "--noreload"],
            cwd=REPO,
            env=env,
            stdout=self.log.open("w"),
            stderr=subprocess.STDOUT,
        )

    def wait_ready(self, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SetupError(f"runserver exited:\n{tail(self.log)}")
            try:
                status, _ = Browser(self.port).send("GET", "/login/")
                if status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.3)
        raise SetupError(f"runserver not ready after {timeout} s:\n{tail(self.log)}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


def _login(port: int, username: str, code: str) -> Browser:
    browser = Browser(port)
    status, body = browser.send("GET", "/login/")
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', body)
    if status != 200 or not token:
        raise SetupError(f"GET /login/ gave {status}")
    form = {"username": username, "password": PASSWORD, "csrfmiddlewaretoken": token[1].decode()}
    status, _ = browser.send("POST", "/login/", form=form)
    if status != 302 or "sessionid" not in browser.cookies:
        raise SetupError(f"login of {username} failed ({status})")
    status, _ = browser.send("GET", f"/jury/papers/{code}/")
    if status != 200:
        raise SetupError(f"the grading page of {code} gave {status}")
    return browser


def _points(rng: random.Random, maximum: Decimal, step: Decimal) -> str:
    return format((step * rng.randint(0, int(maximum / step))).normalize(), "f")


def _tab(browser, code, criteria, *, seed, start, deadline, outcomes, lock) -> None:
    rng = random.Random(seed)
    start.wait()
    while time.monotonic() < deadline:
        pk, maximum, step = rng.choice(criteria)
        form = {"points": _points(rng, maximum, step), "comment": f"tab {seed}"}
        headers = {"HX-Request": "true", "X-CSRFToken": browser.cookies.get("csrftoken", "")}
        t0 = time.perf_counter()
        try:
            status, body = browser.send(
                "POST", f"/jury/papers/{code}/marks/{pk}/", form=form, headers=headers
            )
            saved = status == 200 and b"saved" in body
            detail = "" if saved else body[:160].decode(errors="replace")
        except OSError as exc:
            status, saved, detail = 0, False, repr(exc)
        latency = (time.perf_counter() - t0) * 1000
        with lock:
            outcomes.append((status, saved, latency, detail))


def run(args, tmp: Path, say) -> dict:
    database = tmp / "jury.sqlite3"
    env = _env(database)
    say("migrate and demo …")
    _manage(env, "migrate", "--verbosity", "0")
    _manage(env, "demo")
    drafts = _drafts(database)
    if not drafts:
        raise SetupError("the demo has no draft paper to save marks of")
    server = Runserver(env, tmp)
    try:
        server.wait_ready()
        tabs = [drafts[i % len(drafts)] for i in range(args.clients)]
        say(f"{len(tabs)} tabs over {len(drafts)} draft papers: logging in …")
        browsers = [_login(server.port, juror, code) for juror, code, _ in tabs]
        outcomes: list[tuple[int, bool, float, str]] = []
        lock = threading.Lock()
        start = threading.Barrier(len(tabs) + 1)
        deadline = time.monotonic() + args.seconds + 1.0  # the threads start first
        threads = [
            threading.Thread(
                target=_tab,
                args=(browser, code, criteria),
                kwargs=dict(
                    seed=args.seed + index,
                    start=start,
                    deadline=deadline,
                    outcomes=outcomes,
                    lock=lock,
                ),
                daemon=True,
            )
            for index, (browser, (_, code, criteria)) in enumerate(zip(browsers, tabs, strict=True))
        ]
        say(f"saving for {args.seconds:g} s …")
        for thread in threads:
            thread.start()
        t0 = time.perf_counter()
        start.wait()
        for thread in threads:
            thread.join(args.seconds + 120)
        wall = time.perf_counter() - t0
    finally:
        server.stop()
    statuses = Counter(status for status, _, _, _ in outcomes)
    failed = [o for o in outcomes if not o[1]]
    log = server.log.read_text(errors="replace")
    return {
        "clients": len(tabs),
        "seconds": args.seconds,
        "draft_papers": len(drafts),
        "load_average_after": load_average(),
        "journal_mode": _journal_mode(database),
        "saves": len(outcomes),
        "saved": len(outcomes) - len(failed),
        "failed": len(failed),
        "statuses": dict(sorted(statuses.items())),
        "database_is_locked_in_log": log.count("database is locked"),
        "throughput_per_s": round(len(outcomes) / wall, 1) if wall else None,
        "latency": summary([latency for _, _, latency, _ in outcomes]),
        "failure_examples": [f"{s} {d[:120]}" for s, _, _, d in failed[:3]],
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    say = (lambda *_: None) if args.json else (lambda text: print(text, flush=True))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    tmp = Path(tempfile.mkdtemp(prefix="ioleval-sqlite-"))
    try:
        result = run(args, tmp, say)
    except SetupError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3
    finally:
        if args.keep:
            print(f"kept {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")
    return 0 if result["failed"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

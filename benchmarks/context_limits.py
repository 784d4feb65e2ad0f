"""Benchmark: every context-lab page on a puzzle at all the import limits at once.

    .venv/bin/python benchmarks/context_limits.py [--requests 5] [--database-url URL] [--json]

What the script does:

1. **Data (untimed but the import).** A throwaway SQLite database (or `--database-url`,
   used as given, its puzzles left in place), migrated; an organizer; the demo's three
   puzzles with their invented answers and verdicts (`context_demo_load`); then the puzzle of
   `tests/puzzles/context/limit_puzzles.py` (100 examples, 100 questions, 1,000 distinct
   words, 10 foreign forms of an example, 10 accepted answers of a question, a 500-character
   text, 20,000 characters in all) through `puzzles_import`, timed, and invented answers of
   the demo's models and verdicts of its judges for it (`context_demo_results_load`).
2. **Pages (timed).** Every context-lab route (`puzzles/context/lab/urls.py` and
   `results_urls.py`) through Django's test Client as the organizer (HTTP_HOST localhost,
   DEBUG off, the whole request cycle): the corpus and its two exports; the puzzle page for
   each tokenizer and k = 1..4, as readers get it (its greedy-against-optimum comparison
   cached) and with that cache entry deleted before each request; each of its four tables as
   CSV and XLSX (k = 4); the results and judges pages and each results table as CSV and XLSX.
   One warm-up request each, then `--requests` requests: min, median and max wall time in
   ms, the median CPU time of the process (what the request costs whatever else the machine
   runs), and the response's size.

Exit status: 0 every page answered 200; 1 one did not; 3 a setup error. Figures of a run are
in benchmarks/HISTORY.md, beside the plain rule's time of `benchmarks/score_board.py` run in
the same session as a measure of the machine's speed.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SLUG = "at-limits"


def _setup(database_url: str) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ioleval.settings.local")
    os.environ["DATABASE_URL"] = database_url
    os.environ["DJANGO_DEBUG"] = "false"
    import django

    django.setup()


def _data() -> dict:
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.core.management import call_command

    from ioleval.roles import ORGANIZER
    from puzzles.context.lab.demo import context_demo_load
    from puzzles.context.lab.services import puzzles_import
    from puzzles.context.results.demo import context_demo_results_load
    from puzzles.models import ContextPuzzle
    from tests.puzzles.context.limit_puzzles import characters, puzzle_at_limits

    call_command("migrate", interactive=False, verbosity=0)
    user, _ = get_user_model().objects.get_or_create(username="bench-organizer")
    user.groups.add(Group.objects.get_or_create(name=ORGANIZER)[0])
    context_demo_load()
    puzzle = puzzle_at_limits(SLUG)
    start = time.perf_counter()
    puzzles_import(stream=io.StringIO(json.dumps([puzzle])), file="at-limits.json")
    imported = time.perf_counter() - start
    results = context_demo_results_load([ContextPuzzle.objects.get(slug=SLUG)])
    return {
        "user": user,
        "import_ms": imported * 1000,
        "characters": characters(puzzle),
        "answers": results.answers.created + results.answers.updated,
    }


def _urls() -> list[tuple[str, str, str | None]]:
    """Return (label, url, cache key to delete before each request or None)."""
    from django.urls import reverse

    from puzzles.context.lab.exports import PUZZLE_TABLES
    from puzzles.context.lab.pages import deletions_cache_key
    from puzzles.context.lab.selectors import puzzle_inputs, puzzle_or_none
    from puzzles.context.results.tables import TABLES

    inputs = puzzle_inputs(puzzle_or_none(SLUG))
    urls: list[tuple[str, str, str | None]] = []
    corpus = reverse("puzzles:context_corpus")
    urls += [
        ("corpus", corpus, None),
        ("corpus whitespace", f"{corpus}?tokenizer=whitespace", None),
    ]
    for fmt in ("csv", "xlsx"):
        urls.append((f"corpus.{fmt}", reverse("puzzles:context_corpus_export", args=[fmt]), None))
    page = reverse("puzzles:context_puzzle", args=[SLUG])
    for tokenizer in ("normalized", "whitespace"):
        for k in (1, 2, 3, 4):
            url = f"{page}?tokenizer={tokenizer}&k={k}"
            key = deletions_cache_key(*inputs, tokenizer=tokenizer, k=k)
            urls.append((f"puzzle {tokenizer} k={k}", url, None))
            urls.append((f"puzzle {tokenizer} k={k}, comparison not cached", url, key))
    for table in PUZZLE_TABLES:
        for fmt in ("csv", "xlsx"):
            url = reverse("puzzles:context_puzzle_export", args=[SLUG, table, fmt]) + "?k=4"
            urls.append((f"puzzle {table}.{fmt} (k=4)", url, None))
    urls.append(("results", reverse("puzzles:context_results"), None))
    urls.append(("judges", reverse("puzzles:context_judges"), None))
    for table in TABLES:
        for fmt in ("csv", "xlsx"):
            url = reverse("puzzles:context_results_export", args=[table, fmt])
            urls.append((f"results {table}.{fmt}", url, None))
    return urls


def _pages(user, requests: int) -> list[dict]:
    from django.core.cache import cache
    from django.test import Client

    client = Client(HTTP_HOST="localhost")
    client.force_login(user)
    rows = []
    for label, url, key in _urls():
        first = client.get(url)
        times, cpus = [], []
        for _ in range(requests):
            if key:
                cache.delete(key)  # only this entry: cache.clear() would end the session
            start, cpu = time.perf_counter(), time.process_time()
            response = client.get(url)
            times.append((time.perf_counter() - start) * 1000)
            cpus.append((time.process_time() - cpu) * 1000)
        rows.append(
            {
                "page": label,
                "url": url,
                "status": response.status_code if first.status_code == 200 else first.status_code,
                "bytes": len(response.content),
                "ms_min": min(times),
                "ms_median": statistics.median(times),
                "ms_max": max(times),
                "cpu_ms_median": statistics.median(cpus),
            }
        )
    return rows


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=5)
    parser.add_argument("--database-url", default="")
    parser.add_argument("--json", action="store_true")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="ioleval-ctxlimits-"))
    try:
        _setup(args.database_url or f"sqlite:///{tmp / 'bench.sqlite3'}")
        data = _data()
        rows = _pages(data["user"], args.requests)
    except Exception as exc:  # a setup failure: say which, exit 3
        print(f"error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 3
    finally:
        from django.db import connections

        connections.close_all()
        shutil.rmtree(tmp, ignore_errors=True)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    if args.json:
        summary = {k: v for k, v in data.items() if k != "user"}
        print(json.dumps({**summary, "load_average": load, "pages": rows}, indent=2))
    else:
        print(
            f"import of the puzzle at the limits ({data['characters']:,} characters):"
            f" {data['import_ms']:.0f} ms; {data['answers']:,} solver answers for it"
        )
        print(f"{'page':52} {'min':>7} {'median':>7} {'max':>7} {'CPU':>7} {'bytes':>10}")
        for r in rows:
            print(
                f"{r['page']:52} {r['ms_min']:7.1f} {r['ms_median']:7.1f} {r['ms_max']:7.1f}"
                f" {r['cpu_ms_median']:7.1f} {r['bytes']:10,}"
                + ("" if r["status"] == 200 else f"  status {r['status']}")
            )
        worst = max(rows, key=lambda r: r["ms_median"])
        print(f"slowest median: {worst['page']} {worst['ms_median']:.1f} ms")
        print(f"load average {load} on {os.cpu_count()} CPUs")
    return 0 if all(r["status"] == 200 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

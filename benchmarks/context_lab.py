"""Benchmark: the context lab's analysis of 1,000 puzzles, and its puzzle page.

    .venv/bin/python benchmarks/context_lab.py [--puzzles 1000] [--seed 2026] [--repeat 3]
        [--requests 20] [--json]

What the script does:

1. **Puzzles (untimed).** `--puzzles` random puzzles from the builder the tests use
   (`tests/puzzles/context/random_puzzles.py`, seeded): 10-40 examples and 5-30 questions
   each, words from a skewed invented vocabulary (some recur, many occur once), some
   examples with two foreign forms, some questions with two accepted answers; about a third
   ask only about repeated words.
2. **Pure work (timed).** For every puzzle: `analyse` (normalized tokenizer), the four
   variants (`puzzle_variants`: original, seeded random, ECC-targeted, no context) and the
   prompt of each variant (`variant_prompt`). Wall and CPU time of the whole corpus, and of
   the analysis alone; best of `--repeat` runs (the machine may be shared).
3. **The puzzle page.** A throwaway SQLite database (migrated), an organizer, one puzzle of
   40 examples and 30 questions; then `GET /context/p/<slug>/` through Django's test
   Client (HTTP_HOST="localhost", the whole request cycle), after one warm-up request:
   `--requests` times as a reader gets it (the deletion comparison cached), and as many
   times with the comparison's cache entry deleted before each request (greedy and the exact k = 1, 2 search
   computed again). DEBUG is off.

Exit status: 0 done; 3 a setup error. Figures of a run are in benchmarks/HISTORY.md.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _setup(database_url: str) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ioleval.settings.local")
    os.environ["DATABASE_URL"] = database_url
    os.environ["DJANGO_DEBUG"] = "false"
    import django

    django.setup()


def _pure(specs) -> tuple[int, int]:
    """Analyse every puzzle, make its four variants and their prompts; return counts."""
    from puzzles.context.lab.analysis import analyse
    from puzzles.context.lab.prompts import variant_prompt
    from puzzles.context.lab.variants import puzzle_variants

    fragile = prompts = 0
    for spec in specs:
        analysis = analyse(spec.examples, spec.questions)
        fragile += analysis.fragile
        scores = analysis.examples
        variants = puzzle_variants(
            [e.d for e in scores], [e.dq for e in scores], puzzle_slug=spec.slug
        )
        pairs = [(" / ".join(e.foreign), e.english) for e in spec.examples]
        questions = [(q.id, q.direction, q.prompt) for q in spec.questions]
        for v in variants:
            variant_prompt(
                title=spec.title,
                language=spec.language,
                examples=pairs,
                questions=questions,
                kept=v.kept,
            )
            prompts += 1
    return fragile, prompts


def _analysis_only(specs) -> None:
    from puzzles.context.lab.analysis import analyse

    for spec in specs:
        analyse(spec.examples, spec.questions)


def _timed(function, *args, repeat: int) -> tuple[float, float, object]:
    """Return the best wall and CPU seconds of `repeat` runs, and the last result."""
    walls, cpus, result = [], [], None
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        result = function(*args)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus), result


def _page(requests: int, seed: int) -> dict:
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.core.cache import cache
    from django.core.management import call_command
    from django.test import Client

    from ioleval.roles import ORGANIZER
    from puzzles.context.lab.forms import DEFAULT_K
    from puzzles.context.lab.pages import deletions_cache_key
    from puzzles.context.lab.selectors import puzzle_inputs
    from puzzles.context.lab.services import puzzle_save
    from tests.puzzles.context.random_puzzles import random_puzzle

    call_command("migrate", interactive=False, verbosity=0)
    user = get_user_model().objects.create_user(username="bench-organizer", password="x")
    user.groups.add(Group.objects.get_or_create(name=ORGANIZER)[0])
    spec = random_puzzle(random.Random(seed), slug="bench-40x30", n_examples=40, n_questions=30)
    puzzle, _ = puzzle_save(spec=spec)
    client = Client(HTTP_HOST="localhost")
    client.force_login(user)
    url = "/context/p/bench-40x30/"
    first = client.get(url)
    if first.status_code != 200:
        raise RuntimeError(f"GET {url}: {first.status_code}")

    # Only the comparison's entry: cache.clear() would also drop the session.
    key = deletions_cache_key(*puzzle_inputs(puzzle), tokenizer="normalized", k=DEFAULT_K)

    def times(clear: bool) -> list[float]:
        out = []
        for _ in range(requests):
            if clear:
                cache.delete(key)
            start = time.perf_counter()
            response = client.get(url)
            out.append((time.perf_counter() - start) * 1000)
            assert response.status_code == 200
        return out

    cached, cold = times(False), times(True)
    return {
        "page_bytes": len(first.content),
        "cached_ms_min": min(cached),
        "cached_ms_median": statistics.median(cached),
        "cold_cache_ms_min": min(cold),
        "cold_cache_ms_median": statistics.median(cold),
    }


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--puzzles", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="ioleval-ctxbench-"))
    try:
        _setup(f"sqlite:///{tmp / 'bench.sqlite3'}")
        from tests.puzzles.context.random_puzzles import random_puzzles

        specs = random_puzzles(args.puzzles, seed=args.seed)
        wall, cpu, (fragile, prompts) = _timed(_pure, specs, repeat=args.repeat)
        a_wall, a_cpu, _ = _timed(_analysis_only, specs, repeat=args.repeat)
        results = {
            "puzzles": len(specs),
            "examples_mean": statistics.mean(len(s.examples) for s in specs),
            "questions_mean": statistics.mean(len(s.questions) for s in specs),
            "fragile": fragile,
            "prompts": prompts,
            "all_s_wall": wall,
            "all_s_cpu": cpu,
            "analysis_s_wall": a_wall,
            "analysis_s_cpu": a_cpu,
            "load_average": " ".join(f"{x:.2f}" for x in os.getloadavg()),
            "cpus": os.cpu_count(),
        }
        results.update(_page(args.requests, args.seed))
    except Exception as exc:  # a setup failure: say which, exit 3
        print(f"error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 3
    finally:
        from django.db import connections

        connections.close_all()
        shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    r = results
    print(
        f"{r['puzzles']} puzzles (mean {r['examples_mean']:.1f} examples, "
        f"{r['questions_mean']:.1f} questions; {r['fragile']} fragile), {r['prompts']} prompts"
    )
    print(
        f"analysis + 4 variants + prompts: {r['all_s_wall']:.2f} s wall, "
        f"{r['all_s_cpu']:.2f} s CPU (best of {args.repeat}); target < 5 s"
    )
    print(f"analysis alone: {r['analysis_s_wall']:.2f} s wall, {r['analysis_s_cpu']:.2f} s CPU")
    print(
        f"puzzle page 40x30 ({r['page_bytes']:,} bytes), {args.requests} requests: "
        f"cached {r['cached_ms_min']:.1f} ms min / {r['cached_ms_median']:.1f} ms median; "
        f"comparison not cached {r['cold_cache_ms_min']:.1f} / {r['cold_cache_ms_median']:.1f} ms"
    )
    print(f"load average {r['load_average']} on {r['cpus']} CPUs")
    return 0


if __name__ == "__main__":
    sys.exit(main())

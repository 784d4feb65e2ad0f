"""Benchmark: rescore a full IOL-AI sized board (731 systems x 14 tasks) through the database.

    .venv/bin/python benchmarks/score_board.py [--systems 731] [--seed 2026]
        [--database-url postgres://postgres@127.0.0.1:5432/ioleval_bench] [--repeat 1]
        [--profile] [--tracemalloc] [--json] [--strict]

What it does (see benchmarks/README.md):

1. Sets Django up itself. By default it uses a throwaway SQLite file in a temporary
   directory; with --database-url it uses that database instead. For a PostgreSQL URL
   it creates the database with psycopg (refusing to touch an existing one unless
   --drop-existing) and drops it at the end (unless --keep-db). It runs `migrate`.
   DEBUG is forced off, so Django keeps no query log.
2. Imports the 14 tasks and the answer key from ../shared/data/iolai-2026 with
   competition_import_iolai, through a temporary layout that links only task/ (the
   data are read in place, never copied into the repository).
3. Builds the board: the 46 real submissions as they are, then deterministic
   perturbations of them (random.Random(seed)) up to --systems distinct systems. It
   bulk-creates System and Output rows filled by output_prepare and scores them once
   with every metric, as an import would. None of this is timed.
4. Clears the metric caches, then times competition_rescore(metrics=("iol2026",)) end
   to end (database reads and writes) and the leaderboard read that follows.
5. Times benchmarks/naive_iol2026.py, a plain implementation of the same rule with no
   caching, on the same in-memory predictions and answer key, in the same process.
6. Checks that every system's score, exact_match, chrf, public_score (and
   private_split_score) on the leaderboard equal the naive ones to 4 decimals, and
   exits 1 if not. Reports both times, the ratio naive / ours and the peak memory.

Exit status: 0 identical figures; 1 figures differ; 2 a target missed with --strict
(ratio below 2 or peak RSS of 500 MB or more); 3 a setup error.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import json
import os
import pstats
import random
import resource
import shutil
import sys
import tempfile
import time
import tracemalloc
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

REPO = Path(__file__).resolve().parents[1]
DATA_DIR = Path(__file__).resolve().parents[2] / "shared" / "data" / "iolai-2026"
SLUG = "iolai-2026-bench"
TARGET_RATIO = 2.0
TARGET_MEMORY_MB = 500.0
FIGURES = ("score", "exact_match", "chrf", "public_score", "private_split_score")
_STATE = {"created": False}  # whether this run created the bench competition

sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import naive_iol2026 as naive  # noqa: E402  (a sibling file, no Django)

# --- the board: real submissions and deterministic perturbations ---------------------------


@dataclass
class BoardSystem:
    name: str
    team: str
    preds: dict[str, str]  # task id -> raw prediction string
    explanations: dict[str, str] = field(default_factory=dict)
    base: str = ""
    perturbed_rows: int = 0


def _split_items(pred: str) -> tuple[list[str | None], str]:
    """Return the items of a prediction and its format ('json' or 'lines'), unpadded."""
    stripped = pred.strip()
    if not stripped:
        return [], "json"
    try:
        value = json.loads(stripped)
    except (ValueError, RecursionError):
        value = None
    if isinstance(value, list):
        return [None if v is None else str(v) for v in value], "json"
    return [line for line in pred.split("\n") if line.strip()], "lines"


def _render(items: list[str | None], fmt: str, rng: random.Random) -> str:
    if fmt == "json":
        return json.dumps(items, ensure_ascii=rng.random() < 0.2)
    style = rng.choice(("{n}. {x}", "{n}) {x}", "{x}", "{n}.{x}"))
    lines = [style.format(n=n, x=x) for n, x in enumerate(items, start=1) if x is not None]
    return "\n".join(lines) + rng.choice(("", "\n"))


_ALPHABET = "abcdefghijklmnopqrstuvwxyzáéíóúəɬχŋʔ'ˈ.- "


def _perturb_item(item: str, gold: list[str], rng: random.Random) -> str:
    op = rng.choice(
        ("upper", "title", "dot", "quote", "curly", "replace", "delete", "space", "gold", "empty")
    )
    if op == "upper":
        return item.upper()
    if op == "title":
        return item.title()
    if op == "dot":
        return item + rng.choice((".", "..", " ."))
    if op == "quote":
        q = rng.choice(('"', "'"))
        return f"{q}{item}{q}"
    if op == "curly":
        return f"\u2018{item}\u2019"
    if op == "replace" and item:
        i = rng.randrange(len(item))
        return item[:i] + rng.choice(_ALPHABET) + item[i + 1 :]
    if op == "delete" and item:
        i = rng.randrange(len(item))
        return item[:i] + item[i + 1 :]
    if op == "space":
        return "  " + item.replace(" ", rng.choice(("  ", "\t", " "))) + " "
    if op == "gold" and gold:
        return rng.choice(gold)
    if op == "empty":
        return ""
    return item + "x"


def perturb_pred(pred: str, key: naive.KeyRow, rng: random.Random) -> str:
    """Return a deterministic variant of one raw prediction string."""
    if rng.random() < 0.05:
        return rng.choice(("", "   ", "\n"))  # an emptied row
    items, fmt = _split_items(pred)
    if not items:
        items = [""] * len(key.alternatives)
    for _ in range(rng.choice((1, 1, 2, 3))):
        op = rng.choice(("item", "item", "item", "drop", "dup", "swap", "format", "null"))
        i = rng.randrange(len(items)) if items else 0
        if op == "item" and items:
            gold = key.alternatives[i] if i < len(key.alternatives) else []
            items[i] = _perturb_item(items[i] or "", gold, rng)
        elif op == "drop" and items:
            del items[i]
        elif op == "dup" and items:
            items.insert(i, items[i])
        elif op == "swap" and len(items) > 1:
            j = rng.randrange(len(items))
            items[i], items[j] = items[j], items[i]
        elif op == "format":
            fmt = "lines" if fmt == "json" else "json"
        elif op == "null" and items and fmt == "json":
            items[i] = None
    return _render(items, fmt, rng)


def build_board(
    records: list[tuple[str, dict[str, str], dict]],
    explanations: dict[str, dict[str, str]],
    key: list[naive.KeyRow],
    n_systems: int,
    seed: int,
) -> list[BoardSystem]:
    """The real records first, then perturbed copies; every system's predictions distinct."""
    rng = random.Random(seed)
    systems: list[BoardSystem] = []
    seen: set[tuple[str, ...]] = set()
    task_ids = [k.id for k in key]

    def add(system: BoardSystem) -> bool:
        signature = tuple(system.preds.get(t, "") for t in task_ids)
        if signature in seen:
            return False
        seen.add(signature)
        systems.append(system)
        return True

    for folder, preds, _metrics in records[:n_systems]:
        team = folder.split("_", 1)[-1]
        system = BoardSystem(folder, team, dict(preds), explanations.get(folder, {}), folder)
        while not add(system):  # identical real submissions get a perturbation
            t = rng.choice(key)
            system.preds[t.id] = perturb_pred(system.preds.get(t.id, ""), t, rng)
            system.perturbed_rows += 1
    index = 0
    while len(systems) < n_systems:
        folder, preds, _metrics = records[index % len(records)]
        index += 1
        rate = rng.uniform(0.1, 0.7)
        variant = dict(preds)
        changed = 0
        for task in key:
            if rng.random() < rate:
                variant[task.id] = perturb_pred(variant.get(task.id, ""), task, rng)
                changed += 1
        name = f"{folder} ~{len(systems):04d}"
        system = BoardSystem(
            name, folder.split("_", 1)[-1], variant, explanations.get(folder, {}), folder, changed
        )
        add(system)
    return systems


def read_explanations(directory: Path) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for folder in sorted(p for p in (directory / "submissions").iterdir() if p.is_dir()):
        rows = json.loads((folder / "predictions.json").read_text(encoding="utf-8"))
        out[folder.name] = {str(r["id"]).strip(): str(r.get("explanation") or "") for r in rows}
    return out


# --- the database ----------------------------------------------------------------------


def _pg_admin(url: str) -> tuple[str, str]:
    """Return (maintenance-database URL, database name) for a PostgreSQL URL."""
    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    if not name:
        raise SystemExit("--database-url must name a database, e.g. .../ioleval_bench")
    scheme = "postgresql" if parts.scheme in ("postgres", "postgresql", "pgsql") else parts.scheme
    admin = urlunsplit((scheme, parts.netloc, "/postgres", parts.query, ""))
    return admin, name


def pg_create(url: str, *, drop_existing: bool) -> None:
    import psycopg
    from psycopg import sql

    admin, name = _pg_admin(url)
    with psycopg.connect(admin, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if exists and not drop_existing:
            print(
                f"error: database {name!r} already exists; pass --drop-existing to replace it",
                file=sys.stderr,
            )
            sys.exit(3)
        if exists:
            conn.execute(sql.SQL("DROP DATABASE {}").format(sql.Identifier(name)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def pg_drop(url: str) -> None:
    import psycopg
    from psycopg import sql

    admin, name = _pg_admin(url)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name)))


def is_postgres(url: str) -> bool:
    return urlsplit(url).scheme in ("postgres", "postgresql", "pgsql", "postgis")


def django_setup(database_url: str) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ioleval.settings.local")
    os.environ["DATABASE_URL"] = database_url
    os.environ["DJANGO_DEBUG"] = "false"  # no query log: it would cost time and memory
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)


def clear_metric_caches() -> None:
    from puzzles import metrics

    for name in ("normalize", "chrf_iol", "_profile", "chrf_sacrebleu"):
        getattr(metrics, name).cache_clear()


def import_tasks(directory: Path, tmp: Path):
    """Import the 14 tasks and answer key through a layout holding task/ only."""
    from puzzles.models import Competition
    from puzzles.services import competition_import_iolai

    if Competition.objects.filter(slug=SLUG).exists():
        raise SystemExit(f"error: competition {SLUG!r} already exists in this database")
    layout = tmp / "iolai-tasks-only"
    layout.mkdir()
    try:
        (layout / "task").symlink_to(directory / "task", target_is_directory=True)
    except OSError:  # no symlinks here: copy the two CSVs into the temporary directory
        shutil.copytree(directory / "task", layout / "task")
    summary = competition_import_iolai(directory=layout, slug=SLUG, name="IOL-AI 2026 (bench)")
    _STATE["created"] = True
    return Competition.objects.get(slug=SLUG), summary


def store_board(competition, board: list[BoardSystem]) -> dict[str, int]:
    """Bulk-create the systems and their outputs, items filled by output_prepare."""
    from puzzles.models import Output, System, Task
    from puzzles.services.scoring import output_prepare

    tasks = {t.external_id: t for t in Task.objects.filter(problem__competition=competition)}
    System.objects.bulk_create(
        [
            System(
                competition=competition,
                name=s.name,
                team=s.team,
                tier=System.Tier.CHALLENGE,
                metadata={"bench_base": s.base, "perturbed_rows": s.perturbed_rows},
            )
            for s in board
        ],
        batch_size=500,
    )
    ids = dict(System.objects.filter(competition=competition).values_list("name", "pk"))
    outputs: list[Output] = []
    differ = 0
    for s in board:
        for task_id, task in tasks.items():
            output = Output(
                system_id=ids[s.name],
                task=task,
                source=Output.Source.SUBMISSION,
                raw_text=s.preds.get(task_id, ""),
                explanation=s.explanations.get(task_id, "").strip(),
            )
            output_prepare(output=output, task=task)
            differ += output.extracted_items != output.parsed_items
            outputs.append(output)
    Output.objects.bulk_create(outputs, batch_size=1000)
    return {
        "systems": len(ids),
        "tasks": len(tasks),
        "outputs": len(outputs),
        "extracted_differs": differ,
    }


def forget_scores(competition, metric: str = "iol2026") -> None:
    """Remove the stored figures of one metric (untimed), so the timed rescore rewrites
    every row: a rescore that skipped unchanged rows would otherwise write nothing here."""
    from django.db import connection, transaction

    from puzzles.models import Output, System

    table = connection.ops.quote_name(Output._meta.db_table)
    systems = connection.ops.quote_name(System._meta.db_table)
    where = f"system_id IN (SELECT id FROM {systems} WHERE competition_id = %s)"
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                f"UPDATE {table} SET scores = scores - %s WHERE {where}", [metric, competition.pk]
            )
        elif connection.vendor == "sqlite":
            cursor.execute(
                f"UPDATE {table} SET scores = json_remove(scores, %s) WHERE {where}",
                [f"$.{metric}", competition.pk],
            )
        else:
            outputs = list(Output.objects.filter(system__competition=competition).only("scores"))
            for output in outputs:
                output.scores.pop(metric, None)
            Output.objects.bulk_update(outputs, ["scores"], batch_size=1000)
    stale = Output.objects.filter(system__competition=competition, scores__has_key=metric).count()
    if stale:
        raise RuntimeError(f"{stale} outputs still hold {metric} scores")


# --- timing ------------------------------------------------------------------------------


def run_ours(competition) -> tuple[float, float, int, list]:
    """Cold caches; time the rescore (reads and writes) and the leaderboard read."""
    from puzzles.selectors import leaderboard
    from puzzles.services.scoring import competition_rescore

    forget_scores(competition)
    clear_metric_caches()
    gc.collect()
    t0 = time.perf_counter()
    count = competition_rescore(competition=competition, metrics=("iol2026",))
    t1 = time.perf_counter()
    _tasks, rows = leaderboard(competition)
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1, count, rows


def run_naive(systems: dict[str, dict[str, str]], key: list[naive.KeyRow]):
    gc.collect()
    t0 = time.perf_counter()
    figures = naive.score_board(systems, key)
    return time.perf_counter() - t0, figures


def compare(rows, figures: dict[str, dict]) -> list[str]:
    problems: list[str] = []
    board = {r.system: r for r in rows}
    if set(board) != set(figures):
        problems.append(
            f"systems differ: {len(set(board) - set(figures))} only on the board,"
            f" {len(set(figures) - set(board))} only in the naive run"
        )
    for name, expected in figures.items():
        row = board.get(name)
        if row is None:
            continue
        got = {
            "score": row.overall.score,
            "exact_match": row.overall.exact_match,
            "chrf": row.overall.chrf,
            "public_score": row.public.score,
            "private_split_score": row.private.score,
        }
        for figure in FIGURES:
            if round(got[figure], 4) != round(expected[figure], 4):
                problems.append(f"{name} {figure}: board {got[figure]} naive {expected[figure]}")
    return problems


def check_real_records(rows, records, board_systems: list[BoardSystem]) -> list[str]:
    """The unperturbed real records on the board must carry their official figures."""
    board = {r.system: r for r in rows}
    untouched = {s.name for s in board_systems if s.base == s.name and not s.perturbed_rows}
    problems = []
    for folder, _preds, metrics in records:
        row = board.get(folder)
        if row is None or folder not in untouched:
            continue
        for figure, value in (
            ("score", row.overall.score),
            ("exact_match", row.overall.exact_match),
            ("chrf", row.overall.chrf),
            ("public_score", row.public.score),
        ):
            if round(metrics[figure], 4) != value:
                problems.append(f"{folder} {figure}: official {metrics[figure]} board {value}")
    return problems


def profile_ours(competition, limit: int = 30) -> str:
    from puzzles.selectors import leaderboard
    from puzzles.services.scoring import competition_rescore

    forget_scores(competition)
    clear_metric_caches()
    gc.collect()
    profiler = cProfile.Profile()
    profiler.enable()
    competition_rescore(competition=competition, metrics=("iol2026",))
    leaderboard(competition)
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out).strip_dirs()
    stats.sort_stats("tottime").print_stats(limit)
    stats.sort_stats("cumulative").print_stats(limit)
    return out.getvalue()


def tracemalloc_ours(competition) -> float:
    from puzzles.selectors import leaderboard
    from puzzles.services.scoring import competition_rescore

    forget_scores(competition)
    clear_metric_caches()
    gc.collect()
    tracemalloc.start()
    competition_rescore(competition=competition, metrics=("iol2026",))
    leaderboard(competition)
    _current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def peak_rss_mb() -> float:
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / 2**20 if sys.platform == "darwin" else rss / 1024  # bytes on macOS, KiB else


# --- main -------------------------------------------------------------------------------


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--systems", type=int, default=731, help="board size (default 731)")
    parser.add_argument("--seed", type=int, default=2026, help="perturbation seed")
    parser.add_argument("--data", type=Path, default=DATA_DIR, help="IOL-AI results directory")
    parser.add_argument(
        "--database-url",
        default="",
        help="database to use instead of a throwaway SQLite file; a PostgreSQL database"
        " is created here and dropped afterwards",
    )
    parser.add_argument("--drop-existing", action="store_true", help="replace an existing PG db")
    parser.add_argument("--keep-db", action="store_true", help="do not drop the PG db at the end")
    parser.add_argument(
        "--repeat", type=int, default=3, help="interleaved timed runs of each; the best counts"
    )
    parser.add_argument("--profile", action="store_true", help="print a cProfile of our run")
    parser.add_argument("--tracemalloc", action="store_true", help="also trace Python memory")
    parser.add_argument("--json", action="store_true", help="print the results as JSON only")
    parser.add_argument("--strict", action="store_true", help="exit 2 when a target is missed")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not (args.data / "task" / "solution.csv").is_file():
        print(f"error: the IOL-AI data are missing at {args.data}", file=sys.stderr)
        return 3
    say = (lambda *a: None) if args.json else print

    postgres = bool(args.database_url) and is_postgres(args.database_url)
    if postgres:
        pg_create(args.database_url, drop_existing=args.drop_existing)
    tmp = Path(tempfile.mkdtemp(prefix="ioleval-bench-"))
    url = args.database_url or f"sqlite:///{tmp / 'bench.sqlite3'}"
    try:
        return _run(args, url, tmp, say)
    finally:
        from django.db import connections

        if args.database_url and not postgres and not args.keep_db and _STATE["created"]:
            _delete_competition()  # a database we did not create: leave it as it was
        connections.close_all()
        if postgres and not args.keep_db:
            pg_drop(url)
        shutil.rmtree(tmp, ignore_errors=True)


def _delete_competition() -> None:
    try:
        from puzzles.models import Competition

        Competition.objects.filter(slug=SLUG).delete()
    except Exception as exc:  # Django may not be set up if the setup failed
        print(f"warning: could not delete the bench competition ({exc})", file=sys.stderr)


def _run(args, url: str, tmp: Path, say) -> int:
    t_setup = time.perf_counter()
    django_setup(url)
    from django.db import connection

    competition, _summary = import_tasks(args.data, tmp)
    key = naive.read_answer_key(args.data)
    records = naive.read_submissions(args.data)
    board = build_board(records, read_explanations(args.data), key, args.systems, args.seed)
    counts = store_board(competition, board)
    t_first = time.perf_counter()
    from puzzles.services.scoring import competition_rescore

    competition_rescore(competition=competition)  # every metric, as the import does
    first_scoring = time.perf_counter() - t_first
    systems = {s.name: s.preds for s in board}
    counts["items"] = len(board) * sum(len(k.alternatives) for k in key)
    setup = time.perf_counter() - t_setup
    say(
        f"board: {counts['systems']} systems x {counts['tasks']} tasks ="
        f" {counts['outputs']} outputs, {counts['items']} items"
        f" ({counts['extracted_differs']} outputs whose extracted items differ from parsed)"
    )
    say(
        f"database: {connection.vendor} {connection.settings_dict['NAME']};"
        f" setup {setup:.1f} s (first scoring with every metric {first_scoring:.1f} s)"
    )

    ours_runs: list[tuple[float, float]] = []
    naive_runs: list[float] = []
    rows: list = []
    figures: dict = {}
    for _ in range(max(1, args.repeat)):
        rescore_s, board_s, rescored, rows = run_ours(competition)
        ours_runs.append((rescore_s, board_s))
        naive_s, figures = run_naive(systems, key)
        naive_runs.append(naive_s)

    problems = compare(rows, figures)
    real = check_real_records(rows, records, board)
    best_rescore, best_board = min(ours_runs, key=lambda r: r[0] + r[1])
    ours_s = best_rescore + best_board
    naive_s = min(naive_runs)
    ratio = naive_s / ours_s if ours_s else float("inf")
    tracemalloc_mb = tracemalloc_ours(competition) if args.tracemalloc else None
    rss = peak_rss_mb()
    profile = profile_ours(competition) if args.profile else ""

    result = {
        "database": connection.vendor,
        "systems": counts["systems"],
        "tasks": counts["tasks"],
        "outputs": counts["outputs"],
        "items": counts["items"],
        "rescored_outputs": rescored,
        "board_rows": len(rows),
        "ours_rescore_s": round(best_rescore, 3),
        "ours_leaderboard_s": round(best_board, 3),
        "ours_total_s": round(ours_s, 3),
        "naive_s": round(naive_s, 3),
        "ratio": round(ratio, 2),
        "ratio_rescore_only": round(naive_s / best_rescore, 2) if best_rescore else None,
        "ours_runs_s": [round(a + b, 3) for a, b in ours_runs],
        "naive_runs_s": [round(n, 3) for n in naive_runs],
        "peak_rss_mb": round(rss, 1),
        "tracemalloc_peak_mb": None if tracemalloc_mb is None else round(tracemalloc_mb, 1),
        "figures_identical": not problems,
        "mismatches": len(problems),
        "real_records_match_official": not real,
        "setup_s": round(setup, 1),
        "target_ratio_met": ratio >= TARGET_RATIO,
        "target_memory_met": rss < TARGET_MEMORY_MB,
    }
    say(
        f"ours:  rescore {best_rescore:.3f} s + leaderboard {best_board:.3f} s"
        f" = {ours_s:.3f} s ({rescored} outputs rescored, {len(rows)} board rows)"
    )
    say(f"naive: {naive_s:.3f} s (same rule, no cache, no database, same process)")
    say(
        f"ratio naive / ours: {ratio:.2f} (rescore alone: {result['ratio_rescore_only']});"
        f" target >= {TARGET_RATIO:g}: {'met' if ratio >= TARGET_RATIO else 'MISSED'}"
    )
    if args.repeat > 1:
        say(f"runs: ours {result['ours_runs_s']} naive {result['naive_runs_s']}")
    memory = f"peak RSS {rss:.1f} MB"
    if tracemalloc_mb is not None:
        memory += f", tracemalloc peak of our run {tracemalloc_mb:.1f} MB"
    say(
        f"memory: {memory}; target < {TARGET_MEMORY_MB:g} MB:"
        f" {'met' if rss < TARGET_MEMORY_MB else 'MISSED'}"
    )
    say(
        "figures: "
        + ("identical" if not problems else f"{len(problems)} MISMATCHES")
        + f" for {len(figures)} systems ({', '.join(FIGURES)}, 4 decimals);"
        + f" real records vs official: {'identical' if not real else 'MISMATCH'}"
    )
    for line in (problems + real)[:20]:
        say("  " + line)
    if profile:
        say(profile)
    if args.json:
        print(json.dumps(result, indent=2))
    if problems or real:
        return 1
    if args.strict and not (result["target_ratio_met"] and result["target_memory_met"]):
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What the jury benchmarks share: their sizing arguments, the build of the jury they measure,
and running inside a scratch database."""

from __future__ import annotations

import argparse
import random
import sys
import time

from .data import Board, Jury, build_board, build_jury
from .database import SetupError, analyze, scratch_database


def jury_arguments(parser: argparse.ArgumentParser, *, database_url: str) -> None:
    """Add the options every jury benchmark takes: database, sizes (IOL scale by default),
    seed, --keep and --json."""
    add = parser.add_argument
    add("--database-url", default=database_url, help="PostgreSQL database to create")
    add("--papers", type=int, default=300, help="papers per problem (systems)")
    add("--problems", type=int, default=5)
    add("--jurors-per-paper", type=int, default=3)
    add("--criteria", type=int, default=10, help="criteria per rubric")
    add("--seed", type=int, default=2026)
    add("--keep", action="store_true", help="keep the database at the end")
    add("--json", action="store_true", help="print the results as JSON only")


def jury_build(
    args, rng: random.Random, *, slug: str, prefix: str, group_size: int
) -> tuple[Board, Jury, float]:
    """Build the competition and its jury from the arguments, ANALYZE; return them and the
    seconds it took. With rng = random.Random(args.seed), the same --seed gives the same rows
    in every benchmark (and rng goes on, drawn as far as the build drew)."""
    t0 = time.perf_counter()
    board = build_board(
        slug=slug,
        prefix=prefix,
        n_problems=args.problems,
        n_systems=args.papers,
        n_criteria=args.criteria,
        rng=rng,
    )
    jury = build_jury(board, group_size=group_size, per_paper=args.jurors_per_paper, rng=rng)
    analyze()
    return board, jury, round(time.perf_counter() - t0, 1)


def run_in_scratch_database(args, run) -> int:
    """Run run() in a fresh database named by args.database_url (dropped after unless
    --keep); a setup error exits 3."""
    try:
        with scratch_database(args.database_url, keep=args.keep):
            return run()
    except SetupError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3

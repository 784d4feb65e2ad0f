"""Benchmark: juror agreement and observation tags of the result review at IOL scale.

    .venv/bin/python benchmarks/review_scale.py
        [--database-url postgres://postgres@127.0.0.1:5432/ioleval_reviewbench]
        [--papers 300] [--problems 5] [--jurors-per-paper 2] [--criteria 8]
        [--group-size 15] [--contestants 300] [--repeats 3] [--seed 2026] [--blas-threads 1]
        [--keep] [--json]

What the script does:

1. **Database.** Creates the PostgreSQL database named by --database-url (dropping it first),
   migrates, and drops it at the end unless --keep; as benchmarks/jury_scale.py, it only
   talks to 127.0.0.1 (both use the package benchmarks/scale/).
2. **The jury (untimed).** The same builders as jury_scale.py (`build_board`, `build_jury` of
   benchmarks/scale/data.py):
   --problems problems, --papers systems with one paper per problem, --criteria criteria per
   rubric, --jurors-per-paper jurors per paper, a few chair's decisions and observation tags.
   Then every paper is completed and submitted (the review is read once the jury has graded),
   each mark gets the history row the grading page would have written before submission,
   and one discrepant cell in four is settled by a revision after submission (so that the
   marks as first submitted differ from the marks as they stand; `jury_complete` of
   benchmarks/scale/bulk.py). The same --seed gives the same data and figures. ANALYZE.
3. **Measures.** The SQL queries of `problem_agreement` and `tag_counts`, then the wall time
   of `problem_agreement` with 2,000 and with 10,000 bootstrap resamples (whole problems and
   per criterion; also with per-criterion ICC), with 0 resamples (the loading and point
   estimates alone), and of `tag_counts`: --repeats runs each, min and median in ms.
4. **The whole dashboard.** --contestants invented contestants with points on every
   criterion and thresholds are added; then the SQL queries of `review_data` and the time of
   `review_build` (10,000 resamples: the figures, agreement and tags), of `review_charts`,
   of a cold `review_cached` (an empty cache: build and charts) and of a cached one; then
   the page as a browser asks for it (Django's test client, the whole request cycle): the
   page with an empty cache, its chart images, the page again once cached.

Exit status: 0 done; 3 a setup error. The figures of a run are in benchmarks/HISTORY.md.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.scale import report  # noqa: E402  (the repository is on the path from here)
from benchmarks.scale.bulk import jury_complete  # noqa: E402
from benchmarks.scale.cli import run_in_scratch_database  # noqa: E402
from benchmarks.scale.data import build_board, build_jury  # noqa: E402
from benchmarks.scale.database import (  # noqa: E402
    analyze,
    django_setup,
)
from benchmarks.scale.review import agreement, dashboard  # noqa: E402
from benchmarks.scale.timing import load_average  # noqa: E402

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/ioleval_reviewbench"
SLUG = "reviewbench"


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    p.add_argument("--papers", type=int, default=300)
    p.add_argument("--problems", type=int, default=5)
    p.add_argument("--jurors-per-paper", type=int, default=2)
    p.add_argument("--criteria", type=int, default=8)
    p.add_argument("--group-size", type=int, default=15)
    p.add_argument("--contestants", type=int, default=300)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument(
        "--blas-threads",
        type=int,
        default=1,
        help="OPENBLAS_NUM_THREADS (default 1: on two shared cores more threads only slow "
        "the bootstrap down; 0 leaves the environment alone)",
    )
    p.add_argument("--keep", action="store_true", help="keep the database")
    p.add_argument("--json", action="store_true", help="print the results as JSON only")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.blas_threads:  # before numpy is first imported (in django_setup's apps)
        os.environ["OPENBLAS_NUM_THREADS"] = str(args.blas_threads)
    say = report.printer(args.json)

    def measured() -> int:
        result = run(args, say)
        if args.json:
            report.json_print(result)
        return 0

    return run_in_scratch_database(args, measured)


def run(args, say) -> dict:
    result: dict = {"load_average_at_start": load_average()}
    django_setup(args.database_url, "memory://")
    t0 = time.perf_counter()
    rng = random.Random(args.seed)
    board = build_board(
        slug=SLUG,
        prefix="R",
        n_problems=args.problems,
        n_systems=args.papers,
        n_criteria=args.criteria,
        rng=rng,
    )
    build_jury(board, group_size=args.group_size, per_paper=args.jurors_per_paper, rng=rng)
    board.counts.update(jury_complete(board, rng))
    analyze()
    result["build_s"] = round(time.perf_counter() - t0, 1)
    result["counts"] = board.counts
    say(f"load average {result['load_average_at_start']}; build {result['build_s']} s")
    say(report.data_line(board.counts))
    agreement(board.competition, args.repeats, result, say)
    dashboard(board.competition, args, result, say, rng)
    return result


if __name__ == "__main__":
    raise SystemExit(main())

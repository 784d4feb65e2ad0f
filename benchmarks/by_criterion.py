"""Benchmark: the grade-by-criterion page at IOL scale on PostgreSQL: moving to the next paper.

    .venv/bin/python benchmarks/by_criterion.py
        [--database-url postgres://postgres@127.0.0.1:5432/ioleval_bycrit]
        [--papers 300] [--problems 5] [--jurors-per-paper 3] [--criteria 10]
        [--group-size 15] [--rounds 3] [--seed 2026] [--keep] [--json] [--strict]

The target (from the issue): at IOL scale (300 papers x 5 problems, 3 jurors per paper) the
grade-by-criterion page runs a constant number of SQL queries (asserted in
tests/grading/test_query_counts.py) and moving to the next paper takes under 50 ms of server
time.

What it does: creates the database (dropped at the end unless --keep), builds the same jury
as benchmarks/jury_scale.py (`benchmarks/scale/data.py`: --group-size jurors per problem,
so a juror has papers x jurors-per-paper / group-size papers of a problem, 60 at the
defaults, about half of them submitted), then, with Django's test client in-process, as the
juror of problem 1 with the most draft papers: for one assignment criterion (with a task and
items, so the page computes a suggestion), walks every paper of the juror in order --rounds
times, timing each GET of `?paper=<next code>` (the page Enter and Alt+Right open), and
times the paper page (grading:grade) of the same papers once as a reference under the
same load, and the walk's other half, the autosave that accepts the suggestion (POST of the mark
with from_suggestion, HX-Request), on the draft papers. Prints the query count of one
page, server times (min / median / p95 / max in ms) and this process's CPU time.
Exit status: 0; 1 a page not 200 or a save not stored; 2 with --strict when the p95 of
moving to the next paper is 50 ms or more; 3 a setup error.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.scale import report  # noqa: E402
from benchmarks.scale.cli import jury_arguments, jury_build, run_in_scratch_database  # noqa: E402
from benchmarks.scale.database import (  # noqa: E402
    HOST,
    django_setup,
)
from benchmarks.scale.timing import load_average, percentile, summary  # noqa: E402

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/ioleval_bycrit"
SLUG = "bycritbench"
TARGET_MS = 50.0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    jury_arguments(parser, database_url=DEFAULT_DATABASE_URL)
    add = parser.add_argument
    add("--group-size", type=int, default=15, help="jurors per problem group")
    add("--rounds", type=int, default=3, help="walks over the juror's papers")
    add("--strict", action="store_true", help="exit 2 when the target is missed")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    say = report.printer(args.json)
    return run_in_scratch_database(args, lambda: _run(args, say))


def _timed(call) -> tuple[object, float, float]:
    t0, c0 = time.perf_counter(), time.process_time()
    response = call()
    return response, (time.perf_counter() - t0) * 1000, (time.process_time() - c0) * 1000


def _run(args, say) -> int:
    result: dict = {"load_average_at_start": load_average()}
    t0 = time.perf_counter()
    django_setup(args.database_url, "memory://")
    result["migrate_s"] = round(time.perf_counter() - t0, 1)
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from grading.models import Assignment
    from grading.selectors import suggestion_of

    rng = random.Random(args.seed)
    board, jury, result["build_s"] = jury_build(
        args, rng, slug=SLUG, prefix="P", group_size=args.group_size
    )
    say(report.database_line(connection, result))
    say(report.jury_line(board.counts))

    problem = board.problems[0]
    members = {j.pk: j for j in jury.groups[problem.pk]}
    drafts: dict[int, int] = {}
    for juror_id in Assignment.objects.filter(
        paper__problem=problem, submitted_at__isnull=True, juror_id__in=members
    ).values_list("juror_id", flat=True):
        drafts[juror_id] = drafts.get(juror_id, 0) + 1
    juror = members[max(drafts, key=drafts.get)]
    criterion = next(c for c in board.criteria[problem.pk] if c.task_id and c.items)
    assignments = list(
        Assignment.objects.filter(paper__problem=problem, juror=juror)
        .select_related("paper")
        .order_by("paper__code")
    )
    codes = [a.paper.code for a in assignments]
    client = Client(SERVER_NAME=HOST)
    client.force_login(juror)
    base = f"/jury/problems/{problem.pk}/criteria/{criterion.pk}/"
    with CaptureQueriesContext(connection) as captured:
        first = client.get(f"{base}?paper={codes[0]}")
    queries = len(captured.captured_queries)
    checks = [] if first.status_code == 200 else [f"page status {first.status_code}"]

    times, cpu = [], []
    for _ in range(args.rounds):
        for code in codes[1:]:
            response, ms, cpu_ms = _timed(lambda code=code: client.get(f"{base}?paper={code}"))
            times.append(ms)
            cpu.append(cpu_ms)
            if response.status_code != 200:
                checks.append(f"{code}: status {response.status_code}")
    move = {
        **summary(times),
        "queries": queries,
        "python_cpu_median_ms": round(percentile(sorted(cpu), 50), 2),
    }
    # The paper page over the same papers, in the same run: a reference under the same load.
    with CaptureQueriesContext(connection) as captured:
        client.get(f"/jury/papers/{codes[0]}/")
    reference_queries = len(captured.captured_queries)
    reference_times = []
    for code in codes[1:]:
        _, ms, _ = _timed(lambda code=code: client.get(f"/jury/papers/{code}/"))
        reference_times.append(ms)
    reference = {**summary(reference_times), "queries": reference_queries}
    drafts_of = [a.paper.code for a in assignments if not a.is_submitted]
    saves, save_cpu, not_saved, save_queries = [], [], 0, None
    for code in drafts_of:
        suggestion = suggestion_of(juror=juror, code=code, criterion_id=criterion.pk)
        form = {"points": f"{suggestion:f}", "comment": "", "from_suggestion": "1"}
        with CaptureQueriesContext(connection) as captured:
            response, ms, cpu_ms = _timed(
                lambda code=code, form=form: client.post(
                    f"/jury/papers/{code}/marks/{criterion.pk}/",
                    form,
                    headers={"HX-Request": "true"},
                )
            )
        save_queries = len(captured.captured_queries)
        saves.append(ms)
        save_cpu.append(cpu_ms)
        not_saved += response.status_code != 200
    accept = {
        **summary(saves),
        "queries": save_queries,
        "python_cpu_median_ms": round(percentile(sorted(save_cpu), 50), 2),
    }
    if not_saved:
        checks.append(f"{not_saved} accepted suggestions not saved")
    result.update(
        papers_of_juror=len(codes),
        criterion=criterion.code,
        next_paper=move,
        accept_suggestion=accept,
        grading_page_reference=reference,
        target_ms=TARGET_MS,
        target_met=move["p95_ms"] < TARGET_MS,
        checks_failed=checks,
    )
    say(
        f"grade by criterion {criterion.code} of problem {problem.number} as {juror.username}"
        f" ({len(codes)} papers, {len(drafts_of)} drafts): {queries} queries a page"
    )
    say(
        f"next paper (GET ?paper=): server time min {move['min_ms']:.1f} / median"
        f" {move['median_ms']:.1f} / p95 {move['p95_ms']:.1f} / max {move['max_ms']:.1f} ms"
        f" ({move['n']} moves; Python CPU median {move['python_cpu_median_ms']:.1f} ms);"
        f" target p95 < {TARGET_MS:.0f} ms: {'met' if result['target_met'] else 'MISSED'}"
    )
    say(
        f"reference, the paper page of the same papers: min {reference['min_ms']:.1f} / median"
        f" {reference['median_ms']:.1f} / p95 {reference['p95_ms']:.1f} ms ({reference['n']} pages, {reference['queries']} queries)"
    )
    say(
        f"accept the suggestion (autosave with from_suggestion): min {accept['min_ms']:.1f} /"
        f" median {accept['median_ms']:.1f} / p95 {accept['p95_ms']:.1f} ms"
        f" ({accept['n']} saves, {not_saved} not saved, {accept['queries']} queries a save)"
    )
    for check in checks:
        say(f"CHECK FAILED: {check}")
    if args.json:
        report.json_print(result)
    if checks:
        return 1
    return 2 if args.strict and not result["target_met"] else 0


if __name__ == "__main__":
    sys.exit(main())

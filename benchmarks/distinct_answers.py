"""Benchmark: the distinct answers of one item over a juror's 300 papers, on PostgreSQL.

    .venv/bin/python benchmarks/distinct_answers.py
        [--database-url postgres://postgres@127.0.0.1:5432/ioleval_distinct]
        [--papers 300] [--problems 5] [--jurors-per-paper 3] [--criteria 10]
        [--repeats 20] [--seed 2026] [--keep] [--json] [--strict]

The target (from the issue): at IOL scale (300 papers x 5 problems, 3 jurors per paper) the
distinct-answers page runs a constant number of SQL queries (asserted in
tests/grading/test_query_counts.py) and answers for one item over 300 papers in under
200 ms of server time.

What the script does:

1. **Database.** Creates the PostgreSQL database of --database-url afresh (dropping it if it
   exists), sets Django up on it and migrates (`benchmarks/scale/database.py`, as
   jury_scale.py does); drops it at the end unless --keep.
2. **The jury (untimed).** The builders of `benchmarks/scale/data.py`: --problems problems,
   --papers systems with one output per task (answers about 60% right, the rest one of 8
   glosses or an invented word, so an item has some 10 to 60 distinct answers) and a paper
   per problem, rubrics, assignments and marks. The grading group of each problem has
   exactly --jurors-per-paper jurors, so every juror of problem 1 has all its --papers
   papers: the page's worst case. Each of the group's jurors then proposes, through
   `proposal_create`, the most frequent answer the key does not accept (one pending
   proposal per juror, the page marks the answer as pending). ANALYZE.
3. **Timed, in-process (django.test.Client, server time).** As one juror of problem 1: the
   distinct answers of item 1 of task 1 (queries of one request, then --repeats timed
   requests: min, median, p95), and the same of the task's last item. As an organizer: the
   answer-key page with the pending proposals, then accepting the first proposal (once:
   the answer-key amendment, which rescores every output of the task and reads the board
   before and after), then the juror's page again, whose answer must now match.

Exit status: 0 all checks passed; 1 a check failed (a page not 200, the page over 15
queries, the accepted answer not shown as an exact match); 2 the 200 ms target missed
with --strict; 3 a setup error. A run takes about a minute.
"""

from __future__ import annotations

import argparse
import random
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.scale import report  # noqa: E402  (the repository is on the path from here)
from benchmarks.scale.cli import jury_arguments, jury_build, run_in_scratch_database  # noqa: E402
from benchmarks.scale.database import (  # noqa: E402
    HOST,
    analyze,
    django_setup,
)
from benchmarks.scale.pages import measure_get  # noqa: E402
from benchmarks.scale.timing import load_average  # noqa: E402

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/ioleval_distinct"
SLUG = "distinctbench"
MAX_QUERIES = 15
TARGET_MS = 200.0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    jury_arguments(parser, database_url=DEFAULT_DATABASE_URL)
    add = parser.add_argument
    add("--repeats", type=int, default=20, help="timed requests per page")
    add("--strict", action="store_true", help="exit 2 when the target is missed")
    args = parser.parse_args(argv)
    if min(args.papers, args.problems, args.criteria, args.repeats, args.jurors_per_paper) < 1:
        parser.error("sizes must be positive")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    say = report.printer(args.json)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    return run_in_scratch_database(args, lambda: _run(args, say))


def _run(args, say) -> int:
    result: dict = {"load_average_at_start": load_average()}
    t0 = time.perf_counter()
    django_setup(args.database_url, "memory://")
    from django.db import connection

    result["migrate_s"] = round(time.perf_counter() - t0, 1)
    # A group as small as a paper's jurors: each juror of a problem has all its papers.
    rng = random.Random(args.seed)
    board, jury, result["build_s"] = jury_build(
        args, rng, slug=SLUG, prefix="D", group_size=args.jurors_per_paper
    )
    problem = board.problems[0]
    task, proposed = _proposals(problem, jury.groups[problem.pk])
    analyze()
    result["counts"] = board.counts
    say(report.database_line(connection, result))
    say(report.jury_line(board.counts))
    checks: list[str] = []
    result["pages"] = _pages(args, jury, problem, task, proposed, checks, say)
    median = result["pages"]["distinct_first_item"]["median_ms"]
    result["target_ms"] = TARGET_MS
    result["target_met"] = median < TARGET_MS
    say(
        f"target: distinct answers of an item over {args.papers} papers, median {median:.1f} ms"
        f" {'<' if result['target_met'] else '>='} {TARGET_MS:.0f} ms:"
        f" {'met' if result['target_met'] else 'MISSED'}"
    )
    result["load_average_at_end"] = load_average()
    say(f"load average at the end: {result['load_average_at_end']}")
    result["checks_failed"] = checks
    for check in checks:
        say(f"CHECK FAILED: {check}")
    if args.json:
        report.json_print(result)
    if checks:
        return 1
    return 2 if args.strict and not result["target_met"] else 0


def _proposals(problem, jurors: list) -> tuple:
    """Have every juror of the group propose the most frequent answer to item 1 of the
    problem's first task that the key does not accept; return the task and that answer."""
    from collections import Counter

    from grading.services import proposal_create
    from puzzles.metrics import normalize
    from puzzles.models import Output, Task

    task = Task.objects.filter(problem=problem).order_by("number").first()
    key = {normalize(a) for a in task.answer_key[0]}
    answers = Counter(
        normalize(items[0])
        for items in Output.objects.filter(task=task).values_list("parsed_items", flat=True)
    )
    proposed = next(a for a, _ in answers.most_common() if a and a not in key)
    for juror in jurors:
        proposal_create(
            juror=juror, task=task, item_number=1, answer=proposed, reason="a known variant"
        )
    return task, proposed


def _pages(args, jury, problem, task, proposed: str, checks: list[str], say) -> dict:
    from django.test import Client
    from django.urls import reverse

    from grading.access import distinct_item
    from grading.models import AnswerProposal
    from grading.selectors import distinct_page
    from tests.grading.factories import OrganizerFactory

    juror = jury.groups[problem.pk][0]
    client = Client(SERVER_NAME=HOST)
    client.force_login(juror)
    first = reverse("grading:distinct", args=[problem.pk, task.number, 1])
    last = reverse("grading:distinct", args=[problem.pk, task.number, task.n_items])
    pages: dict = {}
    pages["distinct_first_item"], _ = measure_get(client, first, args.repeats)
    pages["distinct_last_item"], _ = measure_get(client, last, args.repeats)
    page = distinct_page(
        distinct_item(juror, problem.pk, task.number, 1), juror
    )  # what the page showed
    if page.papers != args.papers:
        checks.append(f"the juror has {page.papers} papers of problem 1, not {args.papers}")
    organizer = OrganizerFactory(username="bench-organizer")
    staff = Client(SERVER_NAME=HOST)
    staff.force_login(organizer)
    key_path = reverse("puzzles:answer_key", args=[SLUG])
    pages["answer_key"], _ = measure_get(staff, key_path, max(args.repeats // 4, 3))
    proposal = AnswerProposal.objects.filter(task=task, status="pending").first()
    t0 = time.perf_counter()
    response = staff.post(reverse("puzzles:proposal_accept", args=[SLUG, proposal.pk]))
    accept_ms = round((time.perf_counter() - t0) * 1000, 1)
    pages["after_accept"], _ = measure_get(client, first, args.repeats)
    after = {
        a.text: a
        for a in distinct_page(distinct_item(juror, problem.pk, task.number, 1), juror).answers
    }
    if response.status_code != 302 or after[proposed].em != "yes":
        checks.append(f"accepting {proposed!r} did not make it an exact match")
    labels = {
        "distinct_first_item": f"distinct answers, task {task.number} item 1"
        f" ({len(page.answers)} distinct answers over {page.papers} papers, juror)",
        "distinct_last_item": f"distinct answers, task {task.number} item {task.n_items}",
        "answer_key": f"answer key with {len(jury.groups[problem.pk])} pending proposals"
        " (organizer)",
        "after_accept": "distinct answers, item 1 again after the proposal was accepted",
    }
    for name, figures in pages.items():
        say(report.page_line(labels[name], figures))
        if figures["status"] != 200:
            checks.append(f"{name}: status {figures['status']}")
        if name.startswith("distinct") and figures["queries"] > MAX_QUERIES:
            checks.append(f"{name}: {figures['queries']} queries > {MAX_QUERIES}")
    pages["accept_ms"] = accept_ms
    say(
        f"accept a proposal (amend the key, rescore {args.papers} outputs of the task, board"
        f" before and after): {accept_ms:.1f} ms, once"
    )
    return pages


if __name__ == "__main__":
    sys.exit(main())

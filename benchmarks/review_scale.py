"""Benchmark: juror agreement and observation tags of the result review at IOL scale.

    .venv/bin/python benchmarks/review_scale.py
        [--database-url postgres://postgres@127.0.0.1:5432/ioleval_reviewbench]
        [--papers 300] [--problems 5] [--jurors-per-paper 2] [--criteria 8]
        [--group-size 15] [--contestants 300] [--repeats 3] [--seed 2026] [--blas-threads 1]
        [--keep] [--json]

What the script does:

1. **Database.** Creates the PostgreSQL database named by --database-url (dropping it first),
   migrates, and drops it at the end unless --keep; as benchmarks/jury_scale.py, whose
   helpers it uses, it only talks to 127.0.0.1.
2. **The jury (untimed).** The same builders as jury_scale.py (`build_board`, `build_jury`):
   --problems problems, --papers systems with one paper per problem, --criteria criteria per
   rubric, --jurors-per-paper jurors per paper, a few chair's decisions and observation tags.
   Then every paper is completed and submitted (the review is read once the jury has graded),
   each mark gets the history row the grading page would have written before submission,
   and one discrepant cell in four is settled by a revision after submission (so that the
   marks as first submitted differ from the marks as they stand). ANALYZE.
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

Exit status: 0 done; 3 a setup error. The figures of a run are in benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from jury_scale import (  # noqa: E402  (a sibling script, not a package)
    HOST,
    SetupError,
    analyze,
    build_board,
    build_jury,
    django_setup,
    load_average,
    scratch_database,
)

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/ioleval_reviewbench"
SLUG = "reviewbench"


def complete_jury(board, rng) -> dict:
    """Submit every assignment with every criterion marked, write each mark's history as the
    grading page would have before submission, and revise one discrepant cell in four."""
    from django.utils import timezone

    from grading.models import Assignment, Mark

    now = timezone.now()
    Assignment.objects.filter(paper__problem__competition=board.competition).update(
        submitted_at=now
    )
    assignments = list(
        Assignment.objects.filter(paper__problem__competition=board.competition).values_list(
            "pk", "paper__problem_id"
        )
    )
    have = set(
        Mark.objects.filter(assignment__paper__problem__competition=board.competition).values_list(
            "assignment_id", "criterion_id"
        )
    )
    missing = [
        Mark(
            assignment_id=a,
            criterion_id=c.pk,
            points=c.step * rng.randint(0, int(c.maximum / c.step)),
        )
        for a, problem_id in assignments
        for c in board.criteria[problem_id]
        if (a, c.pk) not in have
    ]
    Mark.objects.bulk_create(missing, batch_size=5000)

    marks = list(
        Mark.objects.filter(assignment__paper__problem__competition=board.competition)
        .select_related("assignment")
        .order_by("assignment__paper_id", "criterion_id", "assignment_id")
    )
    History = Mark.history.model
    before = now - timedelta(minutes=30)
    History.objects.bulk_create(
        (
            History(
                id=m.pk,
                assignment_id=m.assignment_id,
                criterion_id=m.criterion_id,
                points=m.points,
                comment=m.comment,
                history_date=before,
                history_type="+",
            )
            for m in marks
        ),
        batch_size=5000,
    )
    # Revisions after discussion: the later juror moves to the earlier juror's mark.
    revised = []
    cells: dict[tuple[int, int], list] = {}
    for m in marks:
        cells.setdefault((m.assignment.paper_id, m.criterion_id), []).append(m)
    for ms in cells.values():
        if len(ms) >= 2 and ms[0].points != ms[1].points and rng.random() < 0.25:
            ms[1].points = ms[0].points
            revised.append(ms[1])
    Mark.objects.bulk_update(revised, ["points"], batch_size=5000)
    History.objects.bulk_create(
        History(
            id=m.pk,
            assignment_id=m.assignment_id,
            criterion_id=m.criterion_id,
            points=m.points,
            comment=m.comment,
            history_date=now + timedelta(minutes=30),
            history_type="~",
            history_change_reason="agreed in discussion",
        )
        for m in revised
    )
    return {
        "marks_added": len(missing),
        "history_rows": len(marks) + len(revised),
        "revised": len(revised),
    }


def add_contestants(competition, n: int, rng) -> None:
    """Give the competition n contestants with points on every criterion, and thresholds."""
    from decimal import Decimal

    from grading.models import Contestant, ContestantPoints
    from grading.selectors import current_rubrics

    problems = list(competition.problems.order_by("number"))
    rubrics = current_rubrics(problems)
    contestants, points = [], []
    for i in range(n):
        contestant = Contestant(competition=competition, code=f"H{i:04d}", total=Decimal(0))
        total = Decimal(0)
        for problem in problems:
            for criterion in rubrics.get(problem.pk, []):
                value = Decimal(rng.randint(0, int(criterion.maximum * 2))) / 2
                total += value
                points.append((contestant, problem, criterion.code, value))
        contestant.total = total
        contestants.append(contestant)
    Contestant.objects.bulk_create(contestants)
    ContestantPoints.objects.bulk_create(
        ContestantPoints(contestant=c, problem=p, criterion_code=code, points=v)
        for c, p, code, v in points
    )
    best = max(c.total for c in contestants)
    competition.gold_threshold = best * Decimal("0.8")
    competition.silver_threshold = best * Decimal("0.65")
    competition.bronze_threshold = best * Decimal("0.5")
    competition.save()


def timed(fn, repeats: int) -> dict:
    """Return min and median wall time and the median CPU time of this process (the machine's
    other load shows in the wall time, less in the CPU time; numpy's threads add to it)."""
    runs, cpu = [], []
    for _ in range(repeats):
        t, c = time.perf_counter(), time.process_time()
        fn()
        runs.append((time.perf_counter() - t) * 1000)
        cpu.append((time.process_time() - c) * 1000)
    return {
        "min_ms": round(min(runs), 1),
        "median_ms": round(statistics.median(runs), 1),
        "cpu_median_ms": round(statistics.median(cpu), 1),
    }


def queries(fn) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        fn()
    return len(captured)


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
    say = (lambda *a: None) if args.json else (lambda *a: print(*a, flush=True))
    try:
        with scratch_database(args.database_url, keep=args.keep):
            result = run(args, say)
    except SetupError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3
    if args.json:
        print(json.dumps(result, indent=2))
    return 0


def run(args, say) -> dict:
    result: dict = {"load_average_at_start": load_average()}
    django_setup(args.database_url, "memory://")
    from grading.review.agreement import problem_agreement
    from grading.review.observations import tag_counts

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
    board.counts.update(complete_jury(board, rng))
    analyze()
    result["build_s"] = round(time.perf_counter() - t0, 1)
    result["counts"] = board.counts
    competition = board.competition
    say(f"load average {result['load_average_at_start']}; build {result['build_s']} s")
    say("data: " + ", ".join(f"{k} {v}" for k, v in board.counts.items()))

    found = problem_agreement(competition, resamples=0)
    result["queries"] = {
        "problem_agreement": queries(lambda: problem_agreement(competition, resamples=0)),
        "tag_counts": queries(lambda: tag_counts(competition)),
    }
    say(
        f"queries: problem_agreement {result['queries']['problem_agreement']},"
        f" tag_counts {result['queries']['tag_counts']}"
    )
    cases = {
        "agreement, 0 resamples (loading + point estimates)": dict(resamples=0),
        "agreement, 2,000 resamples": dict(resamples=2_000),
        "agreement, 10,000 resamples": dict(resamples=10_000),
        "agreement, 10,000 resamples, 10,000 per criterion": dict(
            resamples=10_000, criterion_resamples=10_000
        ),
        "agreement, 2,000 resamples, per-criterion ICC": dict(resamples=2_000, criterion_icc=True),
        "agreement, 10,000 resamples, per-criterion ICC": dict(
            resamples=10_000, criterion_icc=True
        ),
    }
    result["times"] = {}
    for label, kwargs in cases.items():
        result["times"][label] = timed(
            lambda kw=kwargs: problem_agreement(competition, **kw), args.repeats
        )
        say(f"{label}: {result['times'][label]}")
    result["times"]["tag_counts"] = timed(lambda: tag_counts(competition), args.repeats)
    say(f"tag_counts: {result['times']['tag_counts']}")
    result["figures"] = [
        {
            k: v
            for k, v in p.as_json().items()
            if k in ("problem", "alpha", "icc", "discrepancy_rate", "compared", "revised")
        }
        for p in found
    ]
    for f in result["figures"]:
        say(
            f"problem {f['problem']}: "
            + ", ".join(f"{k} {v}" for k, v in f.items() if k != "problem")
        )
    dashboard(competition, args, result, say, rng)
    return result


def dashboard(competition, args, result: dict, say, rng) -> None:
    """Time the whole review: figures, agreement, tags, charts, cold and cached."""
    from django.core.cache import cache

    from grading.review.selectors import review_data
    from grading.review.services import review_build, review_cached, review_charts

    add_contestants(competition, args.contestants, rng)
    analyze()
    result["queries"]["review_data"] = queries(lambda: review_data(competition))
    review = review_build(competition=competition, resamples=10_000)
    say(
        f"dashboard: {len(review.systems)} systems, {len(review.contestant_totals)} contestants,"
        f" review_data {result['queries']['review_data']} queries"
    )

    def cold():
        cache.clear()
        review_cached(competition=competition, resamples=10_000)

    cases = {
        "review_build, 10,000 resamples": lambda: review_build(
            competition=competition, resamples=10_000
        ),
        "review_charts": lambda: review_charts(review),
        "review_cached, cold (build and charts)": cold,
        "review_cached, cached": lambda: review_cached(competition=competition, resamples=10_000),
    }
    for label, fn in cases.items():
        result["times"][label] = timed(fn, args.repeats)
        say(f"{label}: {result['times'][label]}")
    for label, figures in page_requests(competition, args.repeats).items():
        result["times"][label] = figures
        say(f"{label}: {figures}")
    cold = result["times"]["GET review page, cold"]["median_ms"]
    cached = result["times"]["GET review page, cached"]["median_ms"]
    result["targets"] = {"cold_under_1s": cold < 1000, "cached_under_100ms": cached < 100}
    say(
        f"issue 8 targets (medians of the page's server time): cold {cold:,.0f} ms (under "
        f"1,000 ms: {'met' if cold < 1000 else 'not met'}), cached {cached:,.0f} ms (under "
        f"100 ms: {'met' if cached < 100 else 'not met'})"
    )


def page_requests(competition, repeats: int) -> dict[str, dict]:
    """Time the dashboard as a browser asks for it, through Django's whole request cycle:
    the page with an empty cache, then its five chart images (the first draws all five),
    then the page again (cached)."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.core.cache import cache
    from django.test import Client
    from django.urls import reverse

    from grading.review.services import CHARTS
    from ioleval.roles import ORGANIZER

    # An organizer of our own: one who grades none of the papers (the page waits for those).
    organizer, _ = get_user_model().objects.get_or_create(username="bench-organizer")
    organizer.groups.add(Group.objects.get_or_create(name=ORGANIZER)[0])
    client = Client(HTTP_HOST=HOST)  # the host django_setup allows
    client.force_login(organizer)
    page = reverse("grading:review", args=[competition.slug])
    charts = [reverse("grading:review_chart", args=[competition.slug, n]) for n in CHARTS]
    steps = {
        "GET review page, cold": [],
        "GET first chart (draws all five)": [],
        "GET the other four charts": [],
        "GET review page, cached": [],
    }
    cpu = {label: [] for label in steps}

    def step(label, urls):
        t, c = time.perf_counter(), time.process_time()
        for url in urls:
            response = client.get(url)
            assert response.status_code == 200, (url, response.status_code)
        steps[label].append((time.perf_counter() - t) * 1000)
        cpu[label].append((time.process_time() - c) * 1000)

    for _ in range(repeats):
        cache.clear()
        step("GET review page, cold", [page])
        step("GET first chart (draws all five)", charts[:1])
        step("GET the other four charts", charts[1:])
        step("GET review page, cached", [page])
    return {
        label: {
            "min_ms": round(min(runs), 1),
            "median_ms": round(statistics.median(runs), 1),
            "cpu_median_ms": round(statistics.median(cpu[label]), 1),
        }
        for label, runs in steps.items()
    }


if __name__ == "__main__":
    raise SystemExit(main())

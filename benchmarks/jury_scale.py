"""Benchmark: the jury at IOL scale on PostgreSQL: page queries and times, autosave, PDFs.

    .venv/bin/python benchmarks/jury_scale.py
        [--database-url postgres://postgres@127.0.0.1:5432/ioleval_jurybench]
        [--papers 300] [--problems 5] [--jurors-per-paper 3] [--criteria 10]
        [--group-size 15] [--concurrent 20] [--requests 400] [--think-ms 1000]
        [--repeats 15] [--sheet-repeats 7] [--gunicorn-workers 4] [--conn-max-age N]
        [--pdf | --no-pdf] [--pdf-papers 30] [--broker-url redis://127.0.0.1:6379/14]
        [--seed 2026] [--profile] [--keep] [--json] [--strict]

The target (from the issue): at IOL scale (300 papers per problem, 5 problems, 3 jurors per
paper, 10 criteria per rubric) the comparison sheet and the grading page each run a
constant number of SQL queries, at most 15, and the autosave of a mark answers with a p95
of at most 50 ms with 20 concurrent jurors on PostgreSQL, on a 2-core machine.

What the script does:

1. **Database.** Creates the PostgreSQL database named by --database-url with psycopg
   (dropping it first if it exists), sets Django up on it (`ioleval.settings.local`,
   DEBUG off, ALLOWED_HOSTS 127.0.0.1), runs `migrate`, and drops the database at the end
   unless --keep. It only ever talks to 127.0.0.1.
2. **The jury (untimed).** `benchmarks/scale/data.py` builds, through the test factories and
   the app's services (and `scale/bulk.py` for the rows too many for per-row services),
   one competition with --problems problems (1 to 3 tasks each, 3 to 6 items per task, a
   page of problem data), --papers systems with one output per task (answers, a markdown
   explanation, exact-match flags) and one paper per problem, a rubric of --criteria
   criteria per problem (maxima 1 to 5, steps 0.25 to 1), --group-size jurors per problem
   group (password `jurybench-password`), --jurors-per-paper assignments per paper spread
   evenly over the group, about half of them submitted with every criterion marked and the
   others drafted in part, marks of one paper's jurors mostly agreeing; a few threads,
   chair's decisions and observation tags; a chair with no assignment. The same --seed
   gives the same data. Then ANALYZE, as autovacuum would.
3. **Pages in-process (django.test.Client).** For the comparison sheet of problem 1 (as the
   chair), a juror's grading page of a draft paper and the juror's home: the SQL query
   count of one request (CaptureQueriesContext), then --sheet-repeats / --repeats timed
   requests (min, median, p95 in ms, and this process's CPU time). The same for the
   autosave (POST of a mark with HX-Request): the queries when it creates the mark and when
   it updates it, and its server time without any concurrency. For the chair: the sheet
   sorted by the sum of differences, the decision panel of the first open discrepancy and
   the next discrepancy after it (htmx GETs), and a decision from the sheet (htmx POST).
4. **Autosave over HTTP.** Starts `gunicorn ioleval.wsgi --workers 4` on a free port of
   127.0.0.1 (stopped at the end, also on error), logs --concurrent jurors in through
   POST /login/ (CSRF token from the form), opens each juror's grading page (csrftoken
   cookie), warms every worker up, then runs --concurrent threads, one per juror, that
   POST --requests autosaves in total to their own draft papers (points valid for the
   criterion's step, HX-Request: true, X-CSRFToken) with http.client. Two phases:
   *burst*, every juror saving again as soon as the previous save answered (a closed loop
   with no think time: the offered load is whatever the server can take, so this measures
   capacity), and *paced*, each juror pausing --think-ms x U(0.5, 1.5) between saves (htmx
   saves on change and 800 ms after the last keystroke: one save a second per juror is a
   busy juror; --think-ms 0 skips the phase). Reported per phase: the client-side latency
   p50/p95/max, throughput, the non-200 (or unsaved) responses, which must be 0, the server
   time of the same requests from gunicorn's access log (%(D)s; it leaves out the wait
   for a free worker), and the CPU time per request of the gunicorn workers and of the
   client threads (PostgreSQL's share is not included). --conn-max-age N adds
   `?conn_max_age=N` to DATABASE_URL, to compare with persistent connections.
5. **PDF (if grading.pdf and grading.tasks.render_papers_task exist; --pdf insists, --no-pdf
   skips).** Builds a second small competition of --pdf-papers papers in 6 problems and one
   warm-up problem, then renders the papers in-process (`papers_write`, one file per
   paper), and through real Celery workers (`celery -A ioleval worker --pool=prefork
   --concurrency=1 --prefetch-multiplier=1`, broker --broker-url, a private queue) with
   one and then two worker processes: one `render_papers_task` per problem, timed from the
   first enqueue to the last result. Pages are counted with pypdf. Each worker renders a
   warm-up paper first, untimed, so that imports and font loading are not counted.

Exit status: 0 all checks passed; 1 a check failed (a page not 200, the sheet or the
grading page over 15 queries, an autosave that was not a 200 "saved"); 2 a target missed
with --strict (a query count, or the paced autosave p95 over 50 ms); 3 a setup
error (database, server, worker, missing module with --pdf). --json prints the results as
JSON only. --profile adds the SQL of both autosaves and cProfiles of 200 in-process
autosaves and of one sheet. A run takes 2 to 3 minutes.

Reading the figures. The machine has two vCPUs shared by gunicorn's workers, PostgreSQL,
the client threads and whatever else runs (the load average at the start is printed; runs
vary by a factor of 2 when other processes are busy). In the burst phase 20 requests are
always in flight, so latency = 20 / throughput (Little's law): on two cores no Django view
gets a 50 ms p95 there; the paced phase is the one that models 20 jurors. See
benchmarks/HISTORY.md for the figures of a run and where the autosave's time goes.
"""

from __future__ import annotations

import argparse
import random
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.scale import report  # noqa: E402  (the repository is on the path from here)
from benchmarks.scale.autosave import juror_plans, measure_http  # noqa: E402
from benchmarks.scale.cli import jury_arguments, jury_build  # noqa: E402
from benchmarks.scale.database import (  # noqa: E402
    HOST,
    SetupError,
    django_setup,
    scratch_database,
)
from benchmarks.scale.pages import (  # noqa: E402
    measure_autosave_inprocess,
    measure_decide_inprocess,
    measure_get,
    profile_inprocess,
)
from benchmarks.scale.pdf import measure_pdf, pdf_missing  # noqa: E402
from benchmarks.scale.timing import load_average  # noqa: E402

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/ioleval_jurybench"
DEFAULT_BROKER_URL = "redis://127.0.0.1:6379/14"
SLUG = "jurybench"
MAX_QUERIES = 15
TARGET_P95_MS = 50.0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    jury_arguments(parser, database_url=DEFAULT_DATABASE_URL)
    add = parser.add_argument
    add("--group-size", type=int, default=15, help="jurors per problem group")
    add("--concurrent", type=int, default=20, help="concurrent jurors autosaving over HTTP")
    add("--requests", type=int, default=400, help="autosaves per phase, over all jurors")
    add("--think-ms", type=float, default=1000, help="pause between a juror's saves (paced)")
    add("--repeats", type=int, default=15, help="timed requests per in-process page")
    add("--sheet-repeats", type=int, default=7, help="timed requests of the comparison sheet")
    add(
        "--conn-max-age",
        type=int,
        default=None,
        help="add ?conn_max_age=N to DATABASE_URL (persistent connections; default: as the"
        " settings say, i.e. a new connection per request)",
    )
    add("--gunicorn-workers", type=int, default=4)
    pdf = parser.add_mutually_exclusive_group()
    pdf.add_argument("--pdf", dest="pdf", action="store_true", default=None, help="require PDF")
    pdf.add_argument("--no-pdf", dest="pdf", action="store_false", help="skip the PDF part")
    add("--pdf-papers", type=int, default=30, help="papers rendered per PDF run")
    add("--broker-url", default=DEFAULT_BROKER_URL, help="Celery broker for the PDF workers")
    add("--profile", action="store_true", help="print one autosave's SQL and cProfiles")
    add("--strict", action="store_true", help="exit 2 when a target is missed")
    args = parser.parse_args(argv)
    if args.group_size < args.jurors_per_paper:
        parser.error("--group-size must be at least --jurors-per-paper")
    if min(args.papers, args.problems, args.criteria, args.concurrent, args.requests) < 1:
        parser.error("sizes must be positive")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    say = report.printer(args.json)
    # SIGTERM unwinds like Ctrl-C, so that gunicorn, the workers and the database are cleaned up.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    tmp = Path(tempfile.mkdtemp(prefix="ioleval-jurybench-"))
    try:
        with scratch_database(args.database_url, keep=args.keep):
            return _run(args, tmp, say)
    except SetupError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _run(args, tmp: Path, say) -> int:
    result: dict = {"load_average_at_start": load_average(), "conn_max_age": args.conn_max_age}
    t0 = time.perf_counter()
    url = args.database_url
    if args.conn_max_age is not None:
        url += ("&" if urlsplit(url).query else "?") + f"conn_max_age={args.conn_max_age}"
    django_setup(url, args.broker_url)
    from django.db import connection

    result["migrate_s"] = round(time.perf_counter() - t0, 1)
    rng = random.Random(args.seed)
    board, jury, result["build_s"] = jury_build(
        args, rng, slug=SLUG, prefix="P", group_size=args.group_size
    )
    result["counts"] = board.counts
    say(report.database_line(connection, result))
    say(report.jury_line(board.counts))

    checks: list[str] = []
    pages_in_process(args, jury, rng, result, checks, say)
    http = measure_http(jury, args, tmp, say)
    result["autosave_http"] = http
    for name, phase in http["phases"].items():
        say(report.http_phase_line(name, phase))
        for example in phase["failure_examples"]:
            say(f"  failure: {example}")
        if phase["not_saved"]:
            checks.append(f"autosave {name}: {phase['not_saved']} requests not saved")
    result["targets"] = targets(result, args, say)

    missing_pdf = pdf_missing() if args.pdf is not False else "--no-pdf"
    if missing_pdf is None:
        result["pdf"] = measure_pdf(args, tmp, say)
    elif args.pdf:
        raise SetupError(f"--pdf: {missing_pdf}")
    else:
        result["pdf"] = {"skipped": missing_pdf}
        say(f"pdf: skipped: {missing_pdf}")

    result["checks_failed"] = checks
    for check in checks:
        say(f"CHECK FAILED: {check}")
    if args.json:
        report.json_print(result)
    if checks:
        return 1
    if args.strict and not all(v for k, v in result["targets"].items() if k.endswith("_met")):
        return 2
    return 0


def pages_in_process(args, jury, rng, result: dict, checks: list[str], say) -> None:
    """Measure the sheet, a grading page, the juror's home and the autosave in-process."""
    from django.test import Client

    board = jury.board
    problem = board.problems[0]
    plan = juror_plans(jury, 1)[0]  # a juror of problem 1 with draft papers
    juror = next(j for j in jury.groups[problem.pk] if j.username == plan.username)
    chair_client = Client(SERVER_NAME=HOST)
    chair_client.force_login(jury.chair)
    juror_client = Client(SERVER_NAME=HOST)
    juror_client.force_login(juror)
    sheet_path = f"/c/{SLUG}/jury/problems/{problem.number}/sheet/"
    pages: dict = {}
    pages["sheet"], content = measure_get(chair_client, sheet_path, args.sheet_repeats)
    missing = [p.code for p in board.papers[problem.pk] if p.code.encode() not in content]
    if missing:
        checks.append(f"the sheet lacks {len(missing)} papers, e.g. {missing[:3]}")
    pages["sheet_sorted"], _ = measure_get(
        chair_client, f"{sheet_path}?sort=differences", args.sheet_repeats
    )
    decide_path = chair_decide_paths(jury, problem, chair_client, args, pages)
    pages["grading_page"], content = measure_get(
        juror_client, f"/jury/papers/{plan.codes[0]}/", args.repeats
    )
    forms = content.count(b'class="criterion"')
    if forms != args.criteria:
        checks.append(f"the grading page shows {forms} criteria, not {args.criteria}")
    pages["juror_home"], content = measure_get(juror_client, "/jury/", args.repeats)
    autosave = measure_autosave_inprocess(
        juror_client, plan.codes[0], plan.criteria, max(args.repeats, 50), rng
    )
    labels = {
        "sheet": f"comparison sheet (problem {problem.number}, {args.papers} papers, chair)",
        "sheet_sorted": "comparison sheet sorted by the sum of differences",
        "decide_panel": "a discrepant cell opened for a decision (htmx, chair)",
        "next_discrepancy": "next discrepancy (htmx, chair)",
        "grading_page": "grading page (juror, draft paper)",
        "juror_home": f"juror home ({len(plan.codes)} drafts of the juror's papers)",
    }
    for key, figures in pages.items():
        say(report.page_line(labels[key], figures))
        if figures["status"] != 200:
            checks.append(f"{key}: status {figures['status']}")
        if key in ("sheet", "grading_page") and figures["queries"] > MAX_QUERIES:
            checks.append(f"{key}: {figures['queries']} queries > {MAX_QUERIES}")
    decide = measure_decide_inprocess(chair_client, decide_path, args.sheet_repeats)
    say(
        f"decide from the sheet (htmx POST, the row re-rendered): {decide['queries']} queries;"
        f" server time min {decide['min_ms']:.1f} / median {decide['median_ms']:.1f} / p95"
        f" {decide['p95_ms']:.1f} ms ({decide['n']} runs; Python CPU median"
        f" {decide['python_cpu_median_ms']:.1f} ms)"
    )
    if decide["status"] != 200 or decide["failed"]:
        checks.append(
            f"decide from the sheet: status {decide['status']}, {decide['failed']} failed"
        )
    result["decide_in_process"] = decide
    say(report.autosave_inprocess_line(autosave))
    if autosave["status"] != 200 or autosave["failed"]:
        checks.append(
            f"in-process autosave: status {autosave['status']}, {autosave['failed']} failed"
        )
    result["pages"] = pages
    result["autosave_in_process"] = {k: v for k, v in autosave.items() if k != "sql"}
    if args.profile:
        for line in report.autosave_sql_lines(autosave["sql"]):
            say(line)
        say(
            profile_inprocess(
                juror_client, plan.codes[0], plan.criteria, chair_client, sheet_path, rng
            )
        )


def chair_decide_paths(jury, problem, chair_client, args, pages: dict) -> str:
    """Time the chair's panel of the first open discrepancy and the next discrepancy after
    it (htmx GETs); return the path that decides that cell."""
    from django.test import Client

    from grading.selectors import SheetFilters, next_discrepancy

    found = next_discrepancy(problem, SheetFilters())
    if found is None:
        raise SetupError("the benchmark jury has no discrepancy on problem 1")
    code, criterion_id = found
    base = f"/c/{SLUG}/jury/problems/{problem.number}/sheet"
    hx = Client(SERVER_NAME=HOST, headers={"HX-Request": "true"})
    hx.force_login(jury.chair)
    pages["decide_panel"], _ = measure_get(hx, f"{base}/{code}/{criterion_id}/", args.repeats)
    pages["next_discrepancy"], _ = measure_get(
        hx, f"{base}/next/?after={code}:{criterion_id}", args.repeats
    )
    return f"{base}/{code}/{criterion_id}/"


def targets(result: dict, args, say) -> dict:
    """Say whether the query counts and the paced autosave's p95 meet the issue's targets."""
    pages, phases = result["pages"], result["autosave_http"]["phases"]
    found = {
        "queries_max": MAX_QUERIES,
        "sheet_queries_met": pages["sheet"]["queries"] <= MAX_QUERIES,
        "grading_page_queries_met": pages["grading_page"]["queries"] <= MAX_QUERIES,
        "autosave_p95_ms": TARGET_P95_MS,
    }
    # 20 jurors are the paced phase; the burst keeps 20 saves always in flight, so its
    # latency is 20 / throughput (Little's law) and says how much headroom there is.
    if "paced" in phases:
        paced_p95 = phases["paced"]["latency"]["p95_ms"]
        found["autosave_paced_p95_met"] = paced_p95 <= TARGET_P95_MS
        autosave = (
            f"{'met' if paced_p95 <= TARGET_P95_MS else 'MISSED'} (paced p95 {paced_p95:.1f} ms)"
        )
    else:
        autosave = "not measured (--think-ms 0)"
    say(
        report.targets_line(
            found, concurrent=args.concurrent, autosave=autosave, burst=phases["burst"]
        )
    )
    return found


if __name__ == "__main__":
    sys.exit(main())

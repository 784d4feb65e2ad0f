"""Benchmark: every analytics page of a competition at the size of the 2026 challenge.

    .venv/bin/python benchmarks/analytics_scale.py
        [--database-url postgres://postgres@127.0.0.1:5432/ioleval_analyticsbench]
        [--runs 731] [--systems 46] [--small-runs 100] [--small-systems 10]
        [--problems 5] [--tasks 14] [--probe-items 20] [--repeats 7] [--target-ms 300]
        [--seed 2026] [--keep] [--json]

What the script does:

1. **Database.** Creates the PostgreSQL database named by --database-url (dropping it first),
   migrates, and drops it at the end unless --keep; it only talks to 127.0.0.1 (the package
   benchmarks/scale/, as review_scale.py).
2. **Two competitions (untimed).** `build_analytics` of benchmarks/scale/analytics.py, once
   at full size (--runs runs of --systems teams) and once small (--small-runs of
   --small-systems), both with --problems problems and --tasks tasks: every system answers
   every task in one of nine shapes (clean, labelled, markdown, chatter, empty, ...; a third
   as free model text), outputs prepared and rescored by the services; runs through the runs
   importer (about one in seven failed, public and private scores, one selected per team,
   0-3 techniques each, ablation runs: two conditions x three seeds for four teams) with an
   answer per task (RunOutput); about --probe-items probe results per model. ANALYZE.
3. **Pages.** Logged in as an organizer through Django's test client (the whole request
   cycle), each route of ROUTES is asked once cold and --repeats times warm on the full
   competition and once on the small one: SQL queries (cold, warm, small), cold time, warm
   median and max in ms, and whether the warm median is under --target-ms. A name that does
   not reverse (a page not merged yet) is printed as skipped; an analytics URL name the list
   does not hold is printed as not measured.

4. **The review PDF's analytics part.** `analytics_report_html` built cold, warm and on the
   small competition (time, SQL queries), and rendered alone by WeasyPrint (time, pages).

Exit status: 0 done; 1 a route's (or the PDF part's) query count differs between the two
sizes (or a page did not answer 200); 3 a setup error. The figures of a run are in benchmarks/HISTORY.md.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.scale import report  # noqa: E402  (the repository is on the path from here)
from benchmarks.scale.analytics import build_analytics  # noqa: E402
from benchmarks.scale.cli import run_in_scratch_database  # noqa: E402
from benchmarks.scale.database import (  # noqa: E402
    HOST,
    analyze,
    django_setup,
)
from benchmarks.scale.timing import load_average  # noqa: E402

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/ioleval_analyticsbench"
NAMESPACE = "puzzles"
# The routes measured, by URL name, in issue 12's order; add a page's names here. Each URL
# parameter is filled from PARAMETERS by its name; QUERIES adds a query string.
ROUTES = (
    "analytics_runs",
    "analytics_runs_chart",
    "analytics_runs_export",
    "analytics_tiers",
    "analytics_tiers_chart",
    "analytics_tiers_export",
    "analytics_formats",
    "analytics_formats_chart",
    "analytics_formats_export",
    "analytics_formats_cell",
    "analytics_oracle",
    "analytics_oracle_chart",
    "analytics_oracle_export",
    "analytics_techniques",
    "analytics_techniques_chart",
    "analytics_techniques_export",
    "analytics_ablations",
    "analytics_ablations_chart",
    "analytics_ablations_export",
    "analytics_probes",
    "analytics_probes_chart",
    "analytics_probes_export",
)
NOT_PAGES = ("analytics_oracle_save", "analytics_techniques_tag")  # POST only
ORACLE_MEMBERS = 3


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    p.add_argument("--runs", type=int, default=731)
    p.add_argument("--systems", type=int, default=46, help="teams with outputs and runs")
    p.add_argument("--small-runs", type=int, default=100)
    p.add_argument("--small-systems", type=int, default=10)
    p.add_argument("--problems", type=int, default=5)
    p.add_argument("--tasks", type=int, default=14)
    p.add_argument("--probe-items", type=int, default=20, help="probe results per model")
    p.add_argument("--repeats", type=int, default=7, help="warm requests per route")
    p.add_argument("--target-ms", type=float, default=300.0)
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--keep", action="store_true", help="keep the database")
    p.add_argument("--json", action="store_true", help="print the results as JSON only")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    say = report.printer(args.json)

    def measured() -> int:
        result = run(args, say)
        if args.json:
            report.json_print(result)
        return 0 if result["ok"] else 1

    return run_in_scratch_database(args, measured)


def run(args, say) -> dict:
    result: dict = {"load_average_at_start": load_average()}
    t0 = time.perf_counter()
    django_setup(args.database_url, "memory://")
    result["migrate_s"] = round(time.perf_counter() - t0, 1)
    t0 = time.perf_counter()
    rng = random.Random(args.seed)
    sizes = {}
    for label, n_runs, n_systems in (
        ("full", args.runs, args.systems),
        ("small", args.small_runs, args.small_systems),
    ):
        sizes[label] = build_analytics(
            slug=f"analytics-{label}",
            n_problems=args.problems,
            n_tasks=args.tasks,
            n_systems=n_systems,
            n_runs=n_runs,
            probe_items=args.probe_items,
            rng=rng,
        )
    analyze()
    result["build_s"] = round(time.perf_counter() - t0, 1)
    result["counts"] = {label: a.counts for label, a in sizes.items()}
    from django.db import connection

    say(report.database_line(connection, result))
    for label, a in sizes.items():
        say(f"{label}: " + ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in a.counts.items()))
    result["routes"] = measure(sizes, args, say)
    result["pdf_part"] = measure_pdf_part(sizes, args, say)
    result["ok"] = all(r.get("ok", True) for r in result["routes"]) and result["pdf_part"]["ok"]
    return result


def _client():
    from django.test import Client

    from tests.grading.factories import OrganizerFactory

    organizer = OrganizerFactory(username="analytics-bench-organizer")
    client = Client(SERVER_NAME=HOST)  # django_setup allows only this host
    client.force_login(organizer)
    return client


def _parameters(analytics) -> dict:
    """The URL parameters of a competition's routes, by name."""
    from puzzles.models import Output, System

    first = (
        Output.objects.filter(system__competition=analytics.competition, raw_text__contains="**")
        .values_list("system_id", flat=True)
        .first()
    )
    return {
        "slug": analytics.competition.slug,
        "fmt": "csv",
        "system_id": first or System.objects.filter(competition=analytics.competition)[0].pk,
        "family": "markdown",
    }


def _query_string(name: str, analytics) -> str:
    if name.startswith("analytics_oracle"):
        members = [s.name for s in analytics.systems[:ORACLE_MEMBERS]]
        from urllib.parse import urlencode

        return "?" + urlencode([("members", m) for m in members])
    return ""


def _patterns() -> dict:
    """Return {URL name: the names of its parameters} of the analytics URLs."""
    from puzzles.analytics.urls import urlpatterns

    return {p.name: list(p.pattern.converters) for p in urlpatterns if p.name}


def _url(name: str, parameters: list[str], values: dict, analytics) -> str | None:
    from django.urls import NoReverseMatch, reverse

    if any(p not in values for p in parameters):
        return None
    try:
        url = reverse(f"{NAMESPACE}:{name}", kwargs={p: values[p] for p in parameters})
    except NoReverseMatch:
        return None
    return url + _query_string(name, analytics)


def _get(client, url: str) -> tuple[int, float, int]:
    """Return (status, ms, SQL queries) of one request."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        t0 = time.perf_counter()
        response = client.get(url)
        ms = (time.perf_counter() - t0) * 1000
    return response.status_code, ms, len(captured)


def measure(sizes: dict, args, say) -> list[dict]:
    client = _client()
    patterns = _patterns()
    values = {label: _parameters(a) for label, a in sizes.items()}
    rows: list[dict] = []
    say(
        f"{'route':34} {'queries cold/warm/small':>24} {'cold ms':>9} {'median ms':>10}"
        f" {'max ms':>8}  under {args.target_ms:.0f} ms"
    )
    for name in ROUTES:
        if name not in patterns:
            say(f"{name:34} skipped: no such URL name (not merged yet?)")
            rows.append({"route": name, "skipped": "no such URL name"})
            continue
        full_url = _url(name, patterns[name], values["full"], sizes["full"])
        small_url = _url(name, patterns[name], values["small"], sizes["small"])
        if full_url is None or small_url is None:
            say(f"{name:34} skipped: parameters {patterns[name]} not known to the benchmark")
            rows.append({"route": name, "skipped": f"parameters {patterns[name]}"})
            continue
        status, cold_ms, cold_q = _get(client, full_url)
        warm = [_get(client, full_url) for _ in range(args.repeats)]
        small = _get(client, small_url)
        statuses = {status, small[0], *(w[0] for w in warm)}
        times = [w[1] for w in warm]
        warm_q = {w[2] for w in warm}
        row = {
            "route": name,
            "url": full_url,
            "status": sorted(statuses),
            "queries_cold": cold_q,
            "queries_warm": sorted(warm_q),
            "queries_small": small[2],
            "cold_ms": round(cold_ms, 1),
            "median_ms": round(statistics.median(times), 1),
            "max_ms": round(max(times), 1),
        }
        row["constant_queries"] = warm_q == {small[2]}
        row["under_target"] = row["median_ms"] < args.target_ms
        row["ok"] = row["constant_queries"] and statuses == {200}
        rows.append(row)
        warm_text = "/".join(str(q) for q in sorted(warm_q))
        say(
            f"{name:34} {f'{cold_q}/{warm_text}/{small[2]}':>24} {row['cold_ms']:>9}"
            f" {row['median_ms']:>10} {row['max_ms']:>8}  "
            f"{'yes' if row['under_target'] else 'NO'}"
            + ("" if row["constant_queries"] else "  QUERIES DIFFER BETWEEN SIZES")
            + ("" if statuses == {200} else f"  STATUS {sorted(statuses)}")
        )
    unlisted = sorted(set(patterns) - set(ROUTES) - set(NOT_PAGES))
    if unlisted:
        say("analytics URL names not measured (add them to ROUTES): " + ", ".join(unlisted))
    measured = [r for r in rows if "skipped" not in r]
    say(
        f"query counts equal at both sizes ({sizes['small'].counts['runs']} and "
        f"{sizes['full'].counts['runs']} runs): "
        + ("yes, every route" if all(r["constant_queries"] for r in measured) else "NO")
    )
    over = [r["route"] for r in measured if not r["under_target"]]
    say(
        f"warm median under {args.target_ms:.0f} ms: "
        + ("yes, every route" if not over else "NO for " + ", ".join(over))
    )
    return rows


def measure_pdf_part(sizes: dict, args, say) -> dict:
    """The review PDF's analytics part (puzzles.analytics.report_pdf): its HTML, built once
    cold and --repeats times warm on the full competition and once on the small one, with
    its SQL queries; then the whole part rendered by WeasyPrint once, with its page count."""
    import io

    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from pypdf import PdfReader

    from grading.pdf import render_pdf
    from puzzles.analytics.report_pdf import analytics_report_html

    def built(competition) -> tuple[str, float, int]:
        with CaptureQueriesContext(connection) as captured:
            t0 = time.perf_counter()
            html = analytics_report_html(competition)
            ms = (time.perf_counter() - t0) * 1000
        return html, ms, len(captured)

    full, small = sizes["full"].competition, sizes["small"].competition
    html, cold_ms, cold_q = built(full)
    warm = [built(full) for _ in range(args.repeats)]
    small_q = built(small)[2]
    t0 = time.perf_counter()
    pdf = render_pdf(f"<html><body>{html}</body></html>")
    render_s = time.perf_counter() - t0
    row = {
        "queries_cold": cold_q,
        "queries_warm": sorted({w[2] for w in warm}),
        "queries_small": small_q,
        "cold_ms": round(cold_ms, 1),
        "median_ms": round(statistics.median(w[1] for w in warm), 1),
        "html_kb": round(len(html.encode()) / 1024, 1),
        "render_s": round(render_s, 2),
        "pages": len(PdfReader(io.BytesIO(pdf)).pages),
    }
    row["ok"] = bool(html) and row["queries_warm"] == [small_q]
    say(
        f"review PDF's analytics part: HTML {row['html_kb']} KB, queries "
        f"{cold_q}/{'/'.join(map(str, row['queries_warm']))}/{small_q} (cold/warm/small), "
        f"built in {row['cold_ms']} ms cold, {row['median_ms']} ms warm median; rendered "
        f"alone by WeasyPrint in {row['render_s']} s, {row['pages']} pages"
        + ("" if row["ok"] else "  QUERIES DIFFER BETWEEN SIZES OR NO PART")
    )
    return row


if __name__ == "__main__":
    sys.exit(main())

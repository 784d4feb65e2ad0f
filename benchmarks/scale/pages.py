"""In-process requests through Django's test client: page queries and times, the autosave."""

from __future__ import annotations

import cProfile
import io
import pstats
import time

from .data import points_drawn
from .timing import percentile, summary


def measure_get(client, path: str, repeats: int) -> tuple[dict, bytes]:
    """Count the queries of one GET, then time `repeats` more."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        response = client.get(path)
    # Read it now: the next request's request_started signal empties the query log.
    queries = len(captured.captured_queries)
    times, cpu = [], []
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        again = client.get(path)
        times.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
        if again.status_code != response.status_code:
            raise RuntimeError(f"{path}: status {again.status_code} after {response.status_code}")
    figures = {
        "path": path,
        "status": response.status_code,
        "queries": queries,
        "bytes": len(response.content),
        **summary(times),
        "python_cpu_median_ms": round(percentile(sorted(cpu), 50), 2),
    }
    return figures, response.content


def autosave_form(rng, criterion) -> dict[str, str]:
    points = points_drawn(rng, criterion.maximum, criterion.step)
    return {
        "points": format(points.normalize(), "f"),
        "comment": rng.choice(("", "", "", "form right, rule missing")),
    }


def measure_autosave_inprocess(client, code: str, criteria: list, repeats: int, rng) -> dict:
    """Queries of a first autosave of a criterion (the mark is created) and of a second one
    (it is updated), then `repeats` timed autosaves (POST with HX-Request)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from grading.models import Mark

    Mark.objects.filter(assignment__paper__code=code, criterion=criteria[0]).delete()
    url = f"/jury/papers/{code}/marks/{criteria[0].pk}/"
    sql: dict[str, list[str]] = {}
    statuses = []
    for case in ("create", "update"):
        with CaptureQueriesContext(connection) as captured:
            response = client.post(
                url, autosave_form(rng, criteria[0]), headers={"HX-Request": "true"}
            )
        # Read it now: the next request's request_started signal empties the query log.
        sql[case] = [q["sql"] for q in captured.captured_queries]
        statuses.append(response.status_code)
    times, cpu, bad = [], [], 0
    for i in range(repeats):
        criterion = criteria[i % len(criteria)]
        url = f"/jury/papers/{code}/marks/{criterion.pk}/"
        form = autosave_form(rng, criterion)
        t0, c0 = time.perf_counter(), time.process_time()
        again = client.post(url, form, headers={"HX-Request": "true"})
        times.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
        bad += again.status_code != 200 or b"saved" not in again.content
    return {
        "path": f"/jury/papers/{code}/marks/<criterion>/",
        "status": max(statuses),
        "queries_create": len(sql["create"]),
        "queries_update": len(sql["update"]),
        "sql": sql,
        "failed": bad,
        **summary(times),
        "python_cpu_median_ms": round(percentile(sorted(cpu), 50), 2),
    }


def profile_inprocess(
    client, code: str, criteria: list, sheet_client, sheet_path: str, rng, n: int = 200
) -> str:
    """Return cProfiles of n in-process autosaves and of one comparison sheet."""
    profiler = cProfile.Profile()
    profiler.enable()
    for i in range(n):
        criterion = criteria[i % len(criteria)]
        client.post(
            f"/jury/papers/{code}/marks/{criterion.pk}/",
            autosave_form(rng, criterion),
            headers={"HX-Request": "true"},
        )
    profiler.disable()
    out = io.StringIO()
    out.write(f"--- cProfile of {n} in-process autosaves ---\n")
    stats = pstats.Stats(profiler, stream=out).strip_dirs()
    stats.sort_stats("cumulative").print_stats(30)
    stats.sort_stats("tottime").print_stats(20)
    profiler = cProfile.Profile()
    profiler.enable()
    sheet_client.get(sheet_path)
    profiler.disable()
    out.write("--- cProfile of one comparison sheet ---\n")
    stats = pstats.Stats(profiler, stream=out).strip_dirs()
    stats.sort_stats("cumulative").print_stats(25)
    stats.sort_stats("tottime").print_stats(15)
    return out.getvalue()


def measure_decide_inprocess(client, decide_path: str, repeats: int) -> dict:
    """Queries of one decision from the sheet (POST with HX-Request: the service's write and
    the re-rendered row), then `repeats` timed decisions of the same cell (each one a new
    decision, as a chair changing their mind)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    form = {"points": "0", "reason": "benchmark"}
    with CaptureQueriesContext(connection) as captured:
        response = client.post(decide_path, form, headers={"HX-Request": "true"})
    queries = len(captured.captured_queries)
    times, cpu, bad = [], [], 0
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        again = client.post(decide_path, form, headers={"HX-Request": "true"})
        times.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
        bad += again.status_code != 200 or b"hx-swap-oob" not in again.content
    return {
        "path": decide_path,
        "status": response.status_code,
        "queries": queries,
        "bytes": len(response.content),
        "failed": bad,
        **summary(times),
        "python_cpu_median_ms": round(percentile(sorted(cpu), 50), 2),
    }

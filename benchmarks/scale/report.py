"""The lines the scale benchmarks print, and their JSON output."""

from __future__ import annotations

import json


def printer(json_only: bool):
    """Return say(*parts): print a line at once, or nothing when only JSON is printed."""
    if json_only:
        return lambda *a: None
    return lambda *a: print(*a, flush=True)


def json_print(result: dict) -> None:
    print(json.dumps(result, indent=2))


def database_line(connection, result: dict) -> str:
    return (
        f"database: {connection.vendor} {connection.settings_dict['NAME']}"
        f" (CONN_MAX_AGE {connection.settings_dict['CONN_MAX_AGE']}); load average"
        f" {result['load_average_at_start']}; migrate {result['migrate_s']} s,"
        f" build {result['build_s']} s"
    )


def jury_line(c: dict) -> str:
    return (
        f"jury: {c['problems']} problems, {c['tasks']} tasks, {c['systems']} systems,"
        f" {c['outputs']} outputs, {c['papers']} papers, {c['criteria']} criteria,"
        f" {c['jurors']} jurors, {c['assignments']} assignments ({c['submitted']} submitted),"
        f" {c['marks']} marks, {c['comments']} comments, {c['decisions']} decisions"
    )


def page_line(label: str, figures: dict) -> str:
    return (
        f"page: {label}: {figures['queries']} queries, status {figures['status']},"
        f" {figures['bytes'] // 1024} KiB; server time min {figures['min_ms']:.1f}"
        f" / median {figures['median_ms']:.1f} / p95 {figures['p95_ms']:.1f} ms"
        f" ({figures['n']} runs; Python CPU median {figures['python_cpu_median_ms']:.1f} ms)"
    )


def autosave_inprocess_line(a: dict) -> str:
    return (
        f"autosave in-process (no concurrency): {a['queries_create']} queries to create"
        f" a mark, {a['queries_update']} to update one; server time"
        f" min {a['min_ms']:.1f} / median {a['median_ms']:.1f}"
        f" / p95 {a['p95_ms']:.1f} ms ({a['n']} saves, {a['failed']} failed;"
        f" Python CPU median {a['python_cpu_median_ms']:.1f} ms)"
    )


def autosave_sql_lines(sql: dict[str, list[str]]) -> list[str]:
    lines = []
    for case, statements in sql.items():
        lines.append(f"--- SQL of an autosave that has to {case} the mark ---")
        lines += [f"{i:2d}. {s[:160]}" for i, s in enumerate(statements, 1)]
    return lines


def http_phase_line(name: str, phase: dict) -> str:
    lat, srv = phase["latency"], phase["server"]
    pace = (
        "no think time" if not phase["think_ms"] else f"think {phase['think_ms']} ms x U(0.5,1.5)"
    )
    return (
        f"autosave over HTTP, {name} ({phase['jurors']} jurors, {pace}):"
        f" {phase['requests']} requests in {phase['wall_s']:.2f} s ="
        f" {phase['throughput_rps']:.1f} req/s; latency p50 {lat['median_ms']:.1f}"
        f" / p95 {lat['p95_ms']:.1f} / max {lat['max_ms']:.1f} ms;"
        f" server time p50 {srv['median_ms']:.1f} / p95 {srv['p95_ms']:.1f} ms;"
        f" CPU per request: gunicorn workers {phase['workers_cpu_ms_per_request']} ms,"
        f" client {phase['client_cpu_ms_per_request']} ms;"
        f" non-200 {phase['non_200']}, not saved {phase['not_saved']};"
        f" load average after {phase['load_average_after']}"
    )


def targets_line(targets: dict, *, concurrent: int, autosave: str, burst: dict) -> str:
    def met(key: str) -> str:
        return "met" if targets[key] else "MISSED"

    limit = targets["queries_max"]
    return (
        f"targets: sheet <= {limit} queries: {met('sheet_queries_met')};"
        f" grading page <= {limit} queries: {met('grading_page_queries_met')};"
        f" autosave p95 <= {targets['autosave_p95_ms']:g} ms with {concurrent} jurors:"
        f" {autosave};"
        f" capacity {burst['throughput_rps']} req/s (burst p95 {burst['latency']['p95_ms']:.1f} ms)"
    )


def pdf_line(what: str, f: dict) -> str:
    return (
        f"pdf: {what}: {f['papers']} papers, {f['pages']} pages in {f['wall_s']:.2f} s ="
        f" {f['pages_per_s']:.2f} pages/s ({f['papers_per_s']:.2f} papers/s);"
        f" load average after {f['load_average_after']}"
    )


def data_line(counts: dict) -> str:
    return "data: " + ", ".join(f"{k} {v}" for k, v in counts.items())


def agreement_line(f: dict) -> str:
    """One problem's agreement figures: alpha, ICC, discrepancies, compared, revised."""
    return f"problem {f['problem']}: " + ", ".join(
        f"{k} {v}" for k, v in f.items() if k != "problem"
    )


def review_targets_line(cold: float, cached: float) -> str:
    return (
        f"issue 8 targets (medians of the page's server time): uncached, the slowest of first"
        f" view, computed and after a change {cold:,.0f} ms (under "
        f"1,000 ms: {'met' if cold < 1000 else 'not met'}), cached {cached:,.0f} ms (under "
        f"100 ms: {'met' if cached < 100 else 'not met'})"
    )

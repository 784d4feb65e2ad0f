"""Concurrent jurors autosaving marks over HTTP to gunicorn: burst and paced phases."""

from __future__ import annotations

import http.client
import os
import random
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from .data import PASSWORD, Jury
from .database import HOST, SetupError
from .pages import autosave_form
from .server import Browser, Gunicorn, tail
from .timing import load_average, summary


@dataclass
class JurorPlan:
    username: str
    codes: list[str]  # the juror's draft papers
    criteria: list  # the problem's criteria
    browser: Browser | None = None


def juror_plans(jury: Jury, n: int) -> list[JurorPlan]:
    """Pick n jurors round-robin over the problem groups, each with their draft papers."""
    from grading.models import Assignment

    drafts: dict[int, list[str]] = {}
    for juror_id, code in (
        Assignment.objects.filter(submitted_at__isnull=True, paper__problem__in=jury.board.problems)
        .order_by("paper__code")
        .values_list("juror_id", "paper__code")
    ):
        drafts.setdefault(juror_id, []).append(code)
    problems = jury.board.problems
    plans = []
    for k in range(n):
        problem = problems[k % len(problems)]
        members = [j for j in jury.groups[problem.pk] if j.pk in drafts]
        if k // len(problems) >= len(members):
            raise SetupError(
                f"--concurrent {n} needs more jurors with a draft paper per problem group"
                f" than {len(members)}: raise --papers or --group-size"
            )
        juror = members[k // len(problems)]
        plans.append(JurorPlan(juror.username, drafts[juror.pk], jury.board.criteria[problem.pk]))
    return plans


def http_login(plan: JurorPlan, port: int) -> None:
    """Log the juror in through the login form and open a grading page (csrftoken cookie)."""
    browser = Browser(port)
    status, body = browser.send("GET", "/login/")
    found = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', body)
    if status != 200 or not found:
        raise SetupError(f"GET /login/ gave {status} without a CSRF token")
    status, _ = browser.send(
        "POST",
        "/login/",
        form={
            "username": plan.username,
            "password": PASSWORD,
            "csrfmiddlewaretoken": found[1].decode(),
        },
    )
    if status != 302 or "sessionid" not in browser.cookies:
        raise SetupError(f"login of {plan.username} failed (status {status})")
    status, _ = browser.send("GET", f"/jury/papers/{plan.codes[0]}/")
    if status != 200 or "csrftoken" not in browser.cookies:
        raise SetupError(f"grading page of {plan.username} gave {status}")
    plan.browser = browser


@dataclass
class Outcome:
    latency_ms: float
    status: int
    saved: bool
    detail: str = ""


def autosave_loop(
    plan: JurorPlan, n: int, think_s: float, seed: int, barrier, outcomes: list
) -> None:
    rng = random.Random(seed)
    browser = plan.browser
    barrier.wait()
    for i in range(n):
        code = plan.codes[i % len(plan.codes)]
        criterion = rng.choice(plan.criteria)
        form = autosave_form(rng, criterion)
        headers = {
            "HX-Request": "true",
            "HX-Current-URL": f"http://{HOST}:{browser.port}/jury/papers/{code}/",
            "X-CSRFToken": browser.cookies.get("csrftoken", ""),
        }
        t0 = time.perf_counter()
        try:
            status, body = browser.send(
                "POST", f"/jury/papers/{code}/marks/{criterion.pk}/", form=form, headers=headers
            )
            detail = "" if status == 200 else body[:200].decode(errors="replace")
        except (OSError, http.client.HTTPException) as exc:
            status, body, detail = 0, b"", repr(exc)
        latency = (time.perf_counter() - t0) * 1000
        outcomes.append(Outcome(latency, status, status == 200 and b"saved" in body, detail))
        if think_s:
            time.sleep(think_s * rng.uniform(0.5, 1.5))


def run_phase(
    plans: list[JurorPlan], total: int, think_s: float, seed: int, server: Gunicorn
) -> dict:
    """Run `total` autosaves over the jurors' threads; return latencies and server times."""
    per = [total // len(plans) + (i < total % len(plans)) for i in range(len(plans))]
    outcomes: list[Outcome] = []
    barrier = threading.Barrier(len(plans) + 1)
    offset = server.access_size()
    threads = [
        threading.Thread(
            target=autosave_loop,
            args=(plan, per[i], think_s, seed + i, barrier, outcomes),
            daemon=True,
        )
        for i, plan in enumerate(plans)
    ]
    for thread in threads:
        thread.start()
    workers_cpu = children_cpu_s(server.process.pid)
    barrier.wait()
    t0, c0 = time.perf_counter(), time.process_time()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - t0
    client_cpu = time.process_time() - c0
    time.sleep(0.3)  # let the workers write their last access-log lines
    if workers_cpu is not None:
        workers_cpu = children_cpu_s(server.process.pid) - workers_cpu
    latencies = [o.latency_ms for o in outcomes]
    failures = [o for o in outcomes if not o.saved]
    return {
        "requests": len(outcomes),
        "jurors": len(plans),
        "think_ms": round(think_s * 1000),
        "load_average_after": load_average(),
        "wall_s": round(wall, 3),
        "throughput_rps": round(len(outcomes) / wall, 1) if wall else None,
        "non_200": sum(o.status != 200 for o in outcomes),
        "not_saved": len(failures),
        "failure_examples": [f"{o.status} {o.detail[:120]}" for o in failures[:3]],
        "latency": summary(latencies),
        "server": summary(server.server_times_ms(offset)),
        # CPU time per request of the gunicorn workers (Python) and of this script's
        # client threads; PostgreSQL's share is not included.
        "workers_cpu_ms_per_request": (
            round(workers_cpu * 1000 / len(outcomes), 2) if workers_cpu is not None else None
        ),
        "client_cpu_ms_per_request": round(client_cpu * 1000 / len(outcomes), 2),
    }


def children_cpu_s(parent: int) -> float | None:
    """Return the user+system CPU seconds of the live children of a process (Linux /proc)."""
    try:
        ticks = os.sysconf("SC_CLK_TCK")
        entries = list(os.scandir("/proc"))
    except (OSError, ValueError, AttributeError):
        return None
    total = 0
    for entry in entries:
        if not entry.name.isdigit():
            continue
        try:
            fields = Path(entry.path, "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == parent:  # ppid; utime and stime follow at 11 and 12
            total += int(fields[11]) + int(fields[12])
    return total / ticks


def measure_http(jury: Jury, args, tmp: Path, say) -> dict:
    """Start gunicorn, log the jurors in, run the burst and paced autosave phases."""
    plans = juror_plans(jury, args.concurrent)
    server = Gunicorn(args.gunicorn_workers, tmp)
    try:
        server.wait_ready()
        errors: list[BaseException] = []

        def login(plan: JurorPlan) -> None:
            try:
                http_login(plan, server.port)
            except BaseException as exc:  # reported below, in the main thread
                errors.append(exc)

        threads = [threading.Thread(target=login, args=(p,)) for p in plans]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if errors:
            raise SetupError(f"login failed: {errors[0]}\n{tail(server.log)}")
        # Warm every worker up (imports, template compilation), untimed.
        warm = run_phase(plans, 3 * len(plans), 0, args.seed, server)
        if warm["not_saved"]:
            raise SetupError(f"warm-up autosaves failed: {warm['failure_examples']}")
        say(f"autosave: gunicorn --workers {args.gunicorn_workers} on {HOST}:{server.port}")
        phases = {"burst": run_phase(plans, args.requests, 0, args.seed + 1000, server)}
        if args.think_ms > 0:
            phases["paced"] = run_phase(
                plans, args.requests, args.think_ms / 1000, args.seed + 2000, server
            )
        return {"gunicorn_workers": args.gunicorn_workers, "phases": phases}
    finally:
        for plan in plans:
            if plan.browser:
                plan.browser.close()
        server.stop()

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
2. **The jury (untimed).** Bulk-creates one competition with --problems problems (1 to 3
   tasks each, 3 to 6 items per task, a page of problem data), --papers systems with one
   output per task (answers, a markdown explanation, exact-match flags) and one paper per
   problem, a rubric of --criteria criteria per problem (maxima 1 to 5, steps 0.25 to 1),
   --group-size jurors per problem group (password `jurybench-password`), --jurors-per-paper
   assignments per paper spread evenly over the group, about half of them submitted with
   every criterion marked and the others drafted in part, marks of one paper's jurors
   mostly agreeing; a few threads, chair's decisions and observation tags; a chair with no
   assignment. Then ANALYZE, as autovacuum would.
3. **Pages in-process (django.test.Client).** For the comparison sheet of problem 1 (as the
   chair), a juror's grading page of a draft paper and the juror's home: the SQL query
   count of one request (CaptureQueriesContext), then --sheet-repeats / --repeats timed
   requests (min, median, p95 in ms, and this process's CPU time). The same for the
   autosave (POST of a mark with HX-Request): the queries when it creates the mark and when
   it updates it, and its server time without any concurrency.
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
benchmarks/README.md for the figures of a run and where the autosave's time goes.
"""

from __future__ import annotations

import argparse
import cProfile
import http.client
import io
import json
import math
import os
import pstats
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode, urlsplit, urlunsplit

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/ioleval_jurybench"
DEFAULT_BROKER_URL = "redis://127.0.0.1:6379/14"
HOST = "127.0.0.1"
SLUG = "jurybench"
PDF_SLUG = "jurybench-pdf"
PASSWORD = "jurybench-password"  # the bench jurors' password, in a throwaway database
MAX_QUERIES = 15
TARGET_P95_MS = 50.0
PDF_CHUNKS = 6  # problems of the PDF competition: one render task each
BIN = Path(sys.executable).parent


class SetupError(RuntimeError):
    """The benchmark could not be set up (database, server, worker, missing module)."""


# --- figures ---------------------------------------------------------------------------------


def percentile(ordered: list[float], q: float) -> float:
    """Return the q-th percentile of sorted values (linear interpolation)."""
    if not ordered:
        return float("nan")
    k = (len(ordered) - 1) * q / 100
    lo, hi = math.floor(k), math.ceil(k)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def summary(values_ms: list[float]) -> dict:
    ordered = sorted(values_ms)
    return {
        "n": len(ordered),
        "min_ms": round(ordered[0], 2) if ordered else None,
        "median_ms": round(percentile(ordered, 50), 2) if ordered else None,
        "p95_ms": round(percentile(ordered, 95), 2) if ordered else None,
        "max_ms": round(ordered[-1], 2) if ordered else None,
        "mean_ms": round(sum(ordered) / len(ordered), 2) if ordered else None,
    }


def load_average() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


# --- the database ------------------------------------------------------------------------------


def _pg_admin(url: str) -> tuple[str, str]:
    """Return (maintenance-database URL, database name) for a PostgreSQL URL."""
    parts = urlsplit(url)
    if parts.scheme not in ("postgres", "postgresql", "pgsql"):
        raise SetupError(f"--database-url must be a PostgreSQL URL, not {parts.scheme!r}")
    if parts.hostname not in ("127.0.0.1", "localhost", "::1"):
        raise SetupError("--database-url must point to a local server (127.0.0.1)")
    name = parts.path.lstrip("/")
    if not name:
        raise SetupError("--database-url must name a database, e.g. .../ioleval_jurybench")
    return urlunsplit(("postgresql", parts.netloc, "/postgres", "", "")), name


def pg_recreate(url: str) -> None:
    import psycopg
    from psycopg import sql

    admin, name = _pg_admin(url)
    try:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    except psycopg.Error as exc:
        raise SetupError(f"cannot create database {name!r}: {exc}") from exc


def pg_drop(url: str) -> None:
    import psycopg
    from psycopg import sql

    admin, name = _pg_admin(url)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )


@contextmanager
def scratch_database(url: str, *, keep: bool):
    """Create the benchmark's database afresh; at the end close Django's connections and drop
    it (unless keep), also when the run fails."""
    created = False
    try:
        pg_recreate(url)
        created = True
        yield
    finally:
        if "django" in sys.modules:
            from django.db import connections

            connections.close_all()
        if created and not keep:
            pg_drop(url)


def django_setup(database_url: str, broker_url: str) -> None:
    """Configure the environment (inherited by gunicorn and Celery) and set Django up."""
    os.environ["DJANGO_SETTINGS_MODULE"] = "ioleval.settings.local"
    os.environ["DATABASE_URL"] = database_url
    os.environ["DJANGO_DEBUG"] = "false"  # no query log; the cached template loader
    os.environ["DJANGO_ALLOWED_HOSTS"] = HOST
    os.environ["CELERY_BROKER_URL"] = broker_url
    os.environ.setdefault("DJANGO_LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)


# --- building the jury -----------------------------------------------------------------------

SYLLABLES = ("ka", "ti", "mu", "ne", "so", "ra", "lu", "we", "pi", "do", "ŋa", "ʔe", "xo", "ʃi")
GLOSSES = ("water", "house", "to see", "red", "the child", "my mother", "two", "he sleeps")
# (maximum, step): every points value k * step for k in 0..maximum/step is valid.
CRITERION_SHAPES = (
    (Decimal(2), Decimal("0.5")),
    (Decimal(3), Decimal(1)),
    (Decimal(1), Decimal("0.5")),
    (Decimal(4), Decimal("0.5")),
    (Decimal(2), Decimal("0.25")),
    (Decimal(5), Decimal(1)),
)
EXPLANATIONS = (
    "**Rule.** The suffix *-{a}* marks the plural, and *{b}* comes first in the phrase.\n\n"
    "- {c} is the verb root\n- the object follows the verb\n",
    "The word order is SOV. I matched *{a}* with *{b}* by the repeated syllable; "
    "`{c}` appears in every sentence with a past meaning.",
    "Counting in base 5: *{a}* = 5, *{b}* = 1, so {c} is 5 x 3 + 1.",
)


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))


def _code(n: int) -> str:
    """Return four characters of the paper-code alphabet, different for every n."""
    from grading.services.papers import CODE_ALPHABET

    chars = []
    for _ in range(4):
        n, rest = divmod(n, len(CODE_ALPHABET))
        chars.append(CODE_ALPHABET[rest])
    return "".join(reversed(chars))


def _points(rng: random.Random, maximum: Decimal, step: Decimal) -> Decimal:
    return step * rng.randint(0, int(maximum / step))


@dataclass
class Board:
    competition: object
    problems: list
    criteria: dict[int, list]  # problem id -> criteria in order
    papers: dict[int, list]  # problem id -> papers in code order
    counts: dict = field(default_factory=dict)


def build_board(
    *, slug: str, prefix: str, n_problems: int, n_systems: int, n_criteria: int, rng
) -> Board:
    """Bulk-create a competition: problems, tasks, rubrics, systems, outputs, papers."""
    from grading.models import Criterion, Paper, Rubric
    from puzzles.models import Competition, Output, Problem, System, Task

    competition = Competition.objects.create(slug=slug, name=f"IOL jury benchmark ({slug})")
    problems = Problem.objects.bulk_create(
        Problem(
            competition=competition,
            number=n,
            title=f"{_word(rng).title()} numerals",
            language=_word(rng).title(),
            context="\n".join(
                f"{i}. {_word(rng)} {_word(rng)} — {rng.choice(GLOSSES)}" for i in range(1, 25)
            ),
        )
        for n in range(1, n_problems + 1)
    )
    tasks = []
    for problem in problems:
        for number in range(1, 1 + 1 + (problem.number - 1) % 3):
            n_items = rng.randint(3, 6)
            tasks.append(
                Task(
                    problem=problem,
                    external_id=f"{slug}-{problem.number}-{number}",
                    number=number,
                    query="Translate into English:\n"
                    + "\n".join(f"{i}. {_word(rng)} {_word(rng)}" for i in range(1, n_items + 1)),
                    task_type=Task.TaskType.TRANSLATION,
                    answer_key=[[rng.choice(GLOSSES)] for _ in range(n_items)],
                )
            )
    tasks = Task.objects.bulk_create(tasks)
    tasks_of: dict[int, list] = {p.pk: [t for t in tasks if t.problem_id == p.pk] for p in problems}
    rubrics = Rubric.objects.bulk_create(Rubric(problem=p, version=1) for p in problems)
    criteria = []
    for problem, rubric in zip(problems, rubrics, strict=True):
        own = tasks_of[problem.pk]
        for order in range(1, n_criteria + 1):
            maximum, step = CRITERION_SHAPES[(order + problem.number) % len(CRITERION_SHAPES)]
            task = own[order % len(own)]
            criteria.append(
                Criterion(
                    rubric=rubric,
                    order=order,
                    code=f"{problem.number}.{order}",
                    title=f"Item {order % task.n_items + 1} of task {task.number}",
                    description="Full marks for the form and the rule; half for the form.",
                    kind=Criterion.Kind.THEORY
                    if order == n_criteria
                    else Criterion.Kind.ASSIGNMENT,
                    maximum=maximum,
                    step=step,
                    task=task,
                    items=[order % task.n_items + 1],
                )
            )
    criteria = Criterion.objects.bulk_create(criteria)
    systems = System.objects.bulk_create(
        (
            System(
                competition=competition,
                name=f"{slug}-system-{i:04d}",
                team=f"team {i % 97}",
                tier=rng.choice(System.Tier.values),
            )
            for i in range(n_systems)
        ),
        batch_size=1000,
    )
    outputs = []
    for system in systems:
        for task in tasks:
            answers, flags = [], []
            for key in task.answer_key:
                right = rng.random() < 0.6
                answers.append(key[0] if right else rng.choice(GLOSSES + (_word(rng),)))
                flags.append(int(answers[-1] == key[0]))
            explanation = (
                ""
                if rng.random() < 0.15
                else rng.choice(EXPLANATIONS).format(a=_word(rng), b=_word(rng), c=_word(rng))
            )
            outputs.append(
                Output(
                    system=system,
                    task=task,
                    raw_text=json.dumps(answers, ensure_ascii=False),
                    parsed_items=answers,
                    extracted_items=answers,
                    explanation=explanation,
                    scores={
                        "iol2026": {
                            "parsed": {
                                "em": sum(flags) / len(flags),
                                "chrf": rng.random(),
                                "item_em": flags,
                            }
                        }
                    },
                )
            )
    Output.objects.bulk_create(outputs, batch_size=1000)
    papers = Paper.objects.bulk_create(
        (
            Paper(system=s, problem=p, code=f"{prefix}{p.number}-{_code(i)}")
            for p in problems
            for i, s in enumerate(systems)
        ),
        batch_size=1000,
    )
    board = Board(
        competition=competition,
        problems=list(problems),
        criteria={
            p.pk: [c for c in criteria if c.rubric_id == r.pk]
            for p, r in zip(problems, rubrics, strict=True)
        },
        papers={
            p.pk: sorted((x for x in papers if x.problem_id == p.pk), key=lambda x: x.code)
            for p in problems
        },
    )
    board.counts = {
        "problems": len(problems),
        "tasks": len(tasks),
        "criteria": len(criteria),
        "systems": len(systems),
        "outputs": len(outputs),
        "papers": len(papers),
    }
    return board


@dataclass
class Jury:
    board: Board
    chair: object
    groups: dict[int, list]  # problem id -> jurors of its group


def build_jury(board: Board, *, group_size: int, per_paper: int, rng) -> Jury:
    """Bulk-create jurors, assignments, marks, threads, decisions and tags for the board."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from django.contrib.auth.models import Group
    from django.utils import timezone

    from grading.models import (
        Assignment,
        DiscussionComment,
        Mark,
        ObservationTag,
        PaperTag,
        ProblemJuror,
        ProblemJury,
        Resolution,
    )
    from grading.services.marks import tags_ensure_defaults
    from ioleval.roles import CHAIR, JUROR

    User = get_user_model()
    hashed = make_password(PASSWORD)  # hashed once: the bench jurors all share it
    juror_group = Group.objects.get_or_create(name=JUROR)[0]
    chair_group = Group.objects.get_or_create(name=CHAIR)[0]
    jurors = User.objects.bulk_create(
        User(username=f"bench-p{p.number}-j{k:02d}", password=hashed)
        for p in board.problems
        for k in range(group_size)
    )
    chair = User.objects.create(username="bench-chair", password=hashed)
    Through = User.groups.through
    Through.objects.bulk_create(
        [Through(user_id=u.pk, group_id=juror_group.pk) for u in jurors]
        + [Through(user_id=chair.pk, group_id=chair_group.pk)]
    )
    groups = {
        p.pk: jurors[i * group_size : (i + 1) * group_size] for i, p in enumerate(board.problems)
    }
    ProblemJuror.objects.bulk_create(
        ProblemJuror(problem_id=pid, juror=j) for pid, members in groups.items() for j in members
    )
    ProblemJury.objects.bulk_create(
        ProblemJury(problem=p, tolerance=Decimal("0.5")) for p in board.problems
    )

    now = timezone.now()
    assignments = []
    started: set[int] = set()  # jurors given a paper: each keeps their first one a draft
    for problem in board.problems:
        members = groups[problem.pk]
        for i, paper in enumerate(board.papers[problem.pk]):
            for k in range(per_paper):
                juror = members[(i * per_paper + k) % group_size]
                submitted = juror.pk in started and rng.random() < 0.5
                started.add(juror.pk)
                assignments.append(
                    Assignment(paper=paper, juror=juror, submitted_at=now if submitted else None)
                )
    assignments = Assignment.objects.bulk_create(assignments, batch_size=2000)

    marks = []
    by_paper: dict[int, list] = {}
    for a in assignments:
        by_paper.setdefault(a.paper_id, []).append(a)
    for problem in board.problems:
        criteria = board.criteria[problem.pk]
        for paper in board.papers[problem.pk]:
            # The jurors of a paper mostly agree: one value per criterion, a step off now and then.
            agreed = {c.pk: _points(rng, c.maximum, c.step) for c in criteria}
            for a in by_paper[paper.pk]:
                chosen = (
                    criteria
                    if a.submitted_at
                    else rng.sample(criteria, rng.randint(0, len(criteria) - 1))
                )
                for c in chosen:
                    points = agreed[c.pk]
                    if rng.random() < 0.15:
                        points = min(
                            c.maximum, max(Decimal(0), points + rng.choice((-1, 1)) * c.step)
                        )
                    marks.append(
                        Mark(
                            assignment=a,
                            criterion=c,
                            points=points,
                            comment="" if rng.random() < 0.8 else "partly right",
                        )
                    )
    Mark.objects.bulk_create(marks, batch_size=5000)

    comments, decisions = [], []
    for problem in board.problems:
        criteria = board.criteria[problem.pk]
        for i, paper in enumerate(board.papers[problem.pk]):
            if i % 10 == 0:
                comments.append(
                    DiscussionComment(
                        paper=paper,
                        criterion=criteria[0],
                        author=by_paper[paper.pk][0].juror,
                        text="I read item 2 differently: the suffix is a plural.",
                    )
                )
            if i % 20 == 0:
                decisions.append(
                    Resolution(
                        paper=paper,
                        criterion=criteria[1],
                        points=Decimal(0),
                        kind=Resolution.Kind.CHAIR,
                        reason="agreed in discussion",
                        decided_by=chair,
                    )
                )
    DiscussionComment.objects.bulk_create(comments)
    Resolution.objects.bulk_create(decisions)
    tags_ensure_defaults(competition=board.competition)
    tags = list(ObservationTag.objects.filter(competition=board.competition))
    paper_tags = [
        PaperTag(assignment=a, tag=tags[i % len(tags)])
        for i, a in enumerate(assignments)
        if i % 5 == 0
    ]
    PaperTag.objects.bulk_create(paper_tags)
    board.counts.update(
        {
            "jurors": len(jurors),
            "assignments": len(assignments),
            "submitted": sum(a.submitted_at is not None for a in assignments),
            "marks": len(marks),
            "comments": len(comments),
            "decisions": len(decisions),
            "paper_tags": len(paper_tags),
        }
    )
    return Jury(board=board, chair=chair, groups=groups)


def analyze() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


# --- pages in-process --------------------------------------------------------------------------


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


def _autosave_form(rng, criterion) -> dict[str, str]:
    points = _points(rng, criterion.maximum, criterion.step)
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
                url, _autosave_form(rng, criteria[0]), headers={"HX-Request": "true"}
            )
        # Read it now: the next request's request_started signal empties the query log.
        sql[case] = [q["sql"] for q in captured.captured_queries]
        statuses.append(response.status_code)
    times, cpu, bad = [], [], 0
    for i in range(repeats):
        criterion = criteria[i % len(criteria)]
        url = f"/jury/papers/{code}/marks/{criterion.pk}/"
        form = _autosave_form(rng, criterion)
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
            _autosave_form(rng, criterion),
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


# --- autosave over HTTP ------------------------------------------------------------------------


class Browser:
    """One juror's HTTP client: a connection to 127.0.0.1 and a cookie jar."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.conn = http.client.HTTPConnection(HOST, port, timeout=60)
        self.cookies: dict[str, str] = {}

    def send(
        self, method: str, path: str, *, form: dict | None = None, headers: dict | None = None
    ) -> tuple[int, bytes]:
        sent = {}
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if form is not None:
            body = urlencode(form)
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        sent.update(headers or {})
        try:
            self.conn.request(method, path, body=body, headers=sent)
            response = self.conn.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException):
            self.conn.close()
            raise
        for header in response.headers.get_all("Set-Cookie") or []:
            cookie = SimpleCookie()
            cookie.load(header)
            for name, morsel in cookie.items():
                if morsel["max-age"] == "0" or not morsel.value:
                    self.cookies.pop(name, None)
                else:
                    self.cookies[name] = morsel.value
        if response.will_close:
            self.conn.close()
        return response.status, data

    def close(self) -> None:
        self.conn.close()


@dataclass
class JurorPlan:
    username: str
    codes: list[str]  # the juror's draft papers
    criteria: list  # the problem's criteria
    browser: Browser | None = None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def _executable(name: str) -> list[str]:
    found = BIN / name
    return [str(found)] if found.exists() else [sys.executable, "-m", name]


class Gunicorn:
    """gunicorn ioleval.wsgi on a free port of 127.0.0.1, stopped by stop() whatever happens."""

    def __init__(self, workers: int, tmp: Path) -> None:
        self.port = free_port()
        self.log = tmp / "gunicorn.log"
        self.access = tmp / "gunicorn-access.log"
        cmd = _executable("gunicorn") + [
            "ioleval.wsgi",
            "--workers",
            str(workers),
            "--bind",
            f"{HOST}:{self.port}",
            "--access-logfile",
            str(self.access),
            "--access-logformat",
            "%(m)s %(U)s %(s)s %(D)s",
            "--log-level",
            "warning",
            "--timeout",
            "60",
        ]
        env = dict(os.environ)  # DJANGO_SETTINGS_MODULE, DATABASE_URL, DEBUG, ALLOWED_HOSTS
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                cmd, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT
            )

    def wait_ready(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SetupError(
                    f"gunicorn exited with {self.process.returncode}:\n{tail(self.log)}"
                )
            try:
                status, _ = Browser(self.port).send("GET", "/login/")
                if status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise SetupError(f"gunicorn did not answer within {timeout:.0f} s:\n{tail(self.log)}")

    def access_size(self) -> int:
        return self.access.stat().st_size if self.access.exists() else 0

    def server_times_ms(self, offset: int, marker: str = "/marks/") -> list[float]:
        """Return the server time (ms) of the POSTs logged after `offset` whose URL has marker."""
        with open(self.access, "rb") as f:
            f.seek(offset)
            text = f.read().decode(errors="replace")
        times = []
        for line in text.splitlines():
            parts = line.split()
            if len(parts) == 4 and parts[0] == "POST" and marker in parts[1]:
                times.append(int(parts[3]) / 1000)
        return times

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()  # SIGTERM: graceful shutdown of the master and workers
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


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
        form = _autosave_form(rng, criterion)
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


# --- PDF ---------------------------------------------------------------------------------------


def pdf_missing() -> str | None:
    """Return why the PDF part cannot run, or None."""
    import importlib

    try:
        pdf = importlib.import_module("grading.pdf")
    except ImportError as exc:
        return f"grading.pdf cannot be imported ({exc})"
    if not any(hasattr(pdf, name) for name in ("papers_write", "paper_pdf")):
        return "grading.pdf has neither papers_write(papers, out_dir) nor paper_pdf(paper)"
    try:
        tasks = importlib.import_module("grading.tasks")
    except ImportError as exc:
        return f"grading.tasks cannot be imported ({exc})"
    if not hasattr(tasks, "render_papers_task"):
        return "grading.tasks has no render_papers_task(competition_id, out_dir, problem_number)"
    return None


def count_pages(paths: list[Path]) -> int:
    try:
        from pypdf import PdfReader
    except ImportError:
        PdfReader = None
    pages = 0
    for path in paths:
        if PdfReader is not None:
            pages += len(PdfReader(path).pages)
        else:
            pages += len(re.findall(rb"/Type\s*/Page(?![s\w])", path.read_bytes()))
    return pages


def render_in_process(papers: list, out: Path) -> int:
    from grading import pdf

    if hasattr(pdf, "papers_write"):
        return len(pdf.papers_write(papers, out))
    out.mkdir(parents=True, exist_ok=True)
    for paper in papers:
        (out / f"{paper.code}.pdf").write_bytes(pdf.paper_pdf(paper))
    return len(papers)


class CeleryWorker:
    """celery -A ioleval worker --pool=prefork --concurrency=1 on a private queue."""

    def __init__(self, name: str, queues: list[str], tmp: Path) -> None:
        self.log = tmp / f"celery-{name}.log"
        cmd = _executable("celery") + [
            "-A",
            "ioleval",
            "worker",
            "--pool=prefork",
            "--concurrency=1",
            "--prefetch-multiplier=1",
            "-Q",
            ",".join(queues),
            "-n",
            f"{name}@%h",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "--loglevel=warning",
        ]
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                cmd, cwd=REPO, env=dict(os.environ), stdout=log, stderr=subprocess.STDOUT
            )

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()  # SIGTERM: warm shutdown
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


def _celery_batch(competition_id: int, numbers: list[int], queue: str, out: Path) -> float:
    from grading.tasks import render_papers_task

    t0 = time.perf_counter()
    results = [
        render_papers_task.apply_async(args=[competition_id, str(out), n], queue=queue)
        for n in numbers
    ]
    try:
        for result in results:
            result.get(timeout=600)
        return time.perf_counter() - t0
    finally:
        for result in results:
            result.forget()


def measure_pdf(args, tmp: Path, say) -> dict:
    from ioleval.celery import app as celery_app

    if celery_app.conf.task_always_eager:
        raise SetupError("Celery is eager: CELERY_BROKER_URL did not reach the settings")
    rng = random.Random(args.seed + 7)
    per_problem = max(1, math.ceil(args.pdf_papers / PDF_CHUNKS))
    board = build_board(
        slug=PDF_SLUG,
        prefix="X",
        n_problems=PDF_CHUNKS + 1,  # the last one holds the warm-up paper
        n_systems=per_problem,
        n_criteria=args.criteria,
        rng=rng,
    )
    numbers = [p.number for p in board.problems[:PDF_CHUNKS]]
    warm_number = board.problems[-1].number
    papers = [x for p in board.problems[:PDF_CHUNKS] for x in board.papers[p.pk]]
    warm_paper = board.papers[board.problems[-1].pk][0]
    figures: dict = {"papers": len(papers), "tasks": len(numbers)}

    render_in_process([warm_paper], tmp / "pdf-warm")
    t0 = time.perf_counter()
    render_in_process(papers, tmp / "pdf-inprocess")
    wall = time.perf_counter() - t0
    pages = count_pages(sorted((tmp / "pdf-inprocess").glob("*.pdf")))
    figures["in_process"] = _pdf_figures(len(papers), pages, wall)
    say(_pdf_line("in-process (papers_write)", figures["in_process"]))

    queue = f"jurybench-{uuid.uuid4().hex[:8]}"
    workers: list[CeleryWorker] = []
    try:
        for count in (1, 2):
            name = f"jurybench{count}-{uuid.uuid4().hex[:6]}"
            own = f"{queue}-{count}"
            workers.append(CeleryWorker(name, [queue, own], tmp))
            from grading.tasks import render_papers_task

            warm = render_papers_task.apply_async(
                args=[board.competition.pk, str(tmp / f"pdf-warm-{count}"), warm_number],
                queue=own,
            )
            try:
                warm.get(timeout=180)
            except Exception as exc:
                raise SetupError(
                    f"Celery worker {name} did not render the warm-up paper ({exc!r}):\n"
                    f"{tail(workers[-1].log)}"
                ) from exc
            finally:
                warm.forget()
            out = tmp / f"pdf-celery-{count}"
            wall = _celery_batch(board.competition.pk, numbers, queue, out)
            pages = count_pages(sorted(out.glob("*.pdf")))
            written = len(list(out.glob("*.pdf")))
            if written != len(papers):
                raise RuntimeError(f"{count} worker(s) wrote {written} of {len(papers)} PDFs")
            key = f"celery_{count}_worker" + ("s" if count > 1 else "")
            figures[key] = _pdf_figures(len(papers), pages, wall)
            say(_pdf_line(f"Celery, {count} worker process(es)", figures[key]))
    finally:
        for worker in workers:
            worker.stop()
        _forget_queues(args.broker_url, [queue] + [f"{queue}-{n}" for n in (1, 2)])
    return figures


def _pdf_figures(papers: int, pages: int, wall: float) -> dict:
    return {
        "papers": papers,
        "pages": pages,
        "wall_s": round(wall, 2),
        "pages_per_s": round(pages / wall, 2) if wall else None,
        "papers_per_s": round(papers / wall, 2) if wall else None,
        "load_average_after": load_average(),
    }


def _pdf_line(what: str, f: dict) -> str:
    return (
        f"pdf: {what}: {f['papers']} papers, {f['pages']} pages in {f['wall_s']:.2f} s ="
        f" {f['pages_per_s']:.2f} pages/s ({f['papers_per_s']:.2f} papers/s);"
        f" load average after {f['load_average_after']}"
    )


def _forget_queues(broker_url: str, queues: list[str]) -> None:
    """Remove the private queues' keys from the broker database (best effort)."""
    try:
        import redis

        client = redis.Redis.from_url(broker_url)
        client.delete(
            *queues,
            *(f"_kombu.binding.{q}" for q in queues),
            *(f"_kombu.binding_permanent.{q}" for q in queues),
        )
    except Exception:  # a leftover key in the bench's redis database is harmless
        pass


# --- main --------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add = parser.add_argument
    add("--database-url", default=DEFAULT_DATABASE_URL, help="PostgreSQL database to create")
    add("--papers", type=int, default=300, help="papers per problem (systems)")
    add("--problems", type=int, default=5)
    add("--jurors-per-paper", type=int, default=3)
    add("--criteria", type=int, default=10, help="criteria per rubric")
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
    add("--seed", type=int, default=2026)
    add("--profile", action="store_true", help="print one autosave's SQL and cProfiles")
    add("--keep", action="store_true", help="keep the database at the end")
    add("--json", action="store_true", help="print the results as JSON only")
    add("--strict", action="store_true", help="exit 2 when a target is missed")
    args = parser.parse_args(argv)
    if args.group_size < args.jurors_per_paper:
        parser.error("--group-size must be at least --jurors-per-paper")
    if min(args.papers, args.problems, args.criteria, args.concurrent, args.requests) < 1:
        parser.error("sizes must be positive")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    say = (lambda *a: None) if args.json else (lambda *a: print(*a, flush=True))
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
    from django.test import Client

    result["migrate_s"] = round(time.perf_counter() - t0, 1)
    t1 = time.perf_counter()
    rng = random.Random(args.seed)
    board = build_board(
        slug=SLUG,
        prefix="P",
        n_problems=args.problems,
        n_systems=args.papers,
        n_criteria=args.criteria,
        rng=rng,
    )
    jury = build_jury(board, group_size=args.group_size, per_paper=args.jurors_per_paper, rng=rng)
    analyze()
    result["build_s"] = round(time.perf_counter() - t1, 1)
    result["counts"] = board.counts
    c = board.counts
    say(
        f"database: {connection.vendor} {connection.settings_dict['NAME']}"
        f" (CONN_MAX_AGE {connection.settings_dict['CONN_MAX_AGE']}); load average"
        f" {result['load_average_at_start']}; migrate {result['migrate_s']} s,"
        f" build {result['build_s']} s"
    )
    say(
        f"jury: {c['problems']} problems, {c['tasks']} tasks, {c['systems']} systems,"
        f" {c['outputs']} outputs, {c['papers']} papers, {c['criteria']} criteria,"
        f" {c['jurors']} jurors, {c['assignments']} assignments ({c['submitted']} submitted),"
        f" {c['marks']} marks, {c['comments']} comments, {c['decisions']} decisions"
    )

    problem = board.problems[0]
    plan = juror_plans(jury, 1)[0]  # a juror of problem 1 with draft papers
    juror = next(j for j in jury.groups[problem.pk] if j.username == plan.username)
    checks: list[str] = []
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
        "grading_page": "grading page (juror, draft paper)",
        "juror_home": f"juror home ({len(plan.codes)} drafts of the juror's papers)",
    }
    for key, figures in pages.items():
        say(
            f"page: {labels[key]}: {figures['queries']} queries, status {figures['status']},"
            f" {figures['bytes'] // 1024} KiB; server time min {figures['min_ms']:.1f}"
            f" / median {figures['median_ms']:.1f} / p95 {figures['p95_ms']:.1f} ms"
            f" ({figures['n']} runs; Python CPU median {figures['python_cpu_median_ms']:.1f} ms)"
        )
        if figures["status"] != 200:
            checks.append(f"{key}: status {figures['status']}")
        if key in ("sheet", "grading_page") and figures["queries"] > MAX_QUERIES:
            checks.append(f"{key}: {figures['queries']} queries > {MAX_QUERIES}")
    say(
        f"autosave in-process (no concurrency): {autosave['queries_create']} queries to create"
        f" a mark, {autosave['queries_update']} to update one; server time"
        f" min {autosave['min_ms']:.1f} / median {autosave['median_ms']:.1f}"
        f" / p95 {autosave['p95_ms']:.1f} ms ({autosave['n']} saves, {autosave['failed']} failed;"
        f" Python CPU median {autosave['python_cpu_median_ms']:.1f} ms)"
    )
    if autosave["status"] != 200 or autosave["failed"]:
        checks.append(
            f"in-process autosave: status {autosave['status']}, {autosave['failed']} failed"
        )
    result["pages"] = pages
    result["autosave_in_process"] = {k: v for k, v in autosave.items() if k != "sql"}
    if args.profile:
        for case, statements in autosave["sql"].items():
            say(f"--- SQL of an autosave that has to {case} the mark ---")
            for i, sql in enumerate(statements, 1):
                say(f"{i:2d}. {sql[:160]}")
        say(
            profile_inprocess(
                juror_client, plan.codes[0], plan.criteria, chair_client, sheet_path, rng
            )
        )

    http = measure_http(jury, args, tmp, say)
    result["autosave_http"] = http
    for name, phase in http["phases"].items():
        lat, srv = phase["latency"], phase["server"]
        pace = (
            "no think time"
            if not phase["think_ms"]
            else f"think {phase['think_ms']} ms x U(0.5,1.5)"
        )
        say(
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
        for example in phase["failure_examples"]:
            say(f"  failure: {example}")
        if phase["not_saved"]:
            checks.append(f"autosave {name}: {phase['not_saved']} requests not saved")
    burst = http["phases"]["burst"]
    result["targets"] = {
        "queries_max": MAX_QUERIES,
        "sheet_queries_met": pages["sheet"]["queries"] <= MAX_QUERIES,
        "grading_page_queries_met": pages["grading_page"]["queries"] <= MAX_QUERIES,
        "autosave_p95_ms": TARGET_P95_MS,
    }
    # 20 jurors are the paced phase; the burst keeps 20 saves always in flight, so its
    # latency is 20 / throughput (Little's law) and says how much headroom there is.
    if "paced" in http["phases"]:
        paced_p95 = http["phases"]["paced"]["latency"]["p95_ms"]
        result["targets"]["autosave_paced_p95_met"] = paced_p95 <= TARGET_P95_MS
        autosave = (
            f"{'met' if paced_p95 <= TARGET_P95_MS else 'MISSED'} (paced p95 {paced_p95:.1f} ms)"
        )
    else:
        autosave = "not measured (--think-ms 0)"
    say(
        f"targets: sheet <= {MAX_QUERIES} queries:"
        f" {'met' if result['targets']['sheet_queries_met'] else 'MISSED'};"
        f" grading page <= {MAX_QUERIES} queries:"
        f" {'met' if result['targets']['grading_page_queries_met'] else 'MISSED'};"
        f" autosave p95 <= {TARGET_P95_MS:g} ms with {args.concurrent} jurors: {autosave};"
        f" capacity {burst['throughput_rps']} req/s (burst p95 {burst['latency']['p95_ms']:.1f} ms)"
    )

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
        print(json.dumps(result, indent=2))
    if checks:
        return 1
    if args.strict and not all(v for k, v in result["targets"].items() if k.endswith("_met")):
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark: how long a large marks CSV takes to import in one request (issue 19).

    .venv/bin/python benchmarks/marks_import.py
        [--database-url postgres://postgres@127.0.0.1:5432/ioleval_marksbench]
        [--systems 49] [--problems 5] [--criteria 7] [--jurors 6] [--keep]

Builds (untimed, with benchmarks/scale/data.py) a competition of --systems papers per
problem with --criteria criteria each, writes a marks CSV of every paper, criterion and
one of --jurors jurors (49 x 5 x 7 x 6 = 10,290 rows by default: the size the issue's red
team uploaded), then times the import twice on a scratch PostgreSQL database on 127.0.0.1:
`grading.services.marks_import` as `manage.py import_marks` runs it, and the upload page's
POST through django.test.Client (which IOLEVAL_WEB_IMPORT_MAX_ROWS now refuses at this size,
naming the command). Figures: benchmarks/HISTORY.md.
"""

from __future__ import annotations

import argparse
import cProfile
import csv
import html
import io
import pstats
import random
import re
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def marks_csv(board, jurors: int, rng: random.Random) -> str:
    """Return a marks CSV: every paper and criterion, marked by each of `jurors` jurors."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["system", "problem", "criterion", "juror", "points", "comment"])
    for problem in board.problems:
        for paper in board.papers[problem.pk]:
            for criterion in board.criteria[problem.pk]:
                for j in range(1, jurors + 1):
                    points = (
                        rng.randint(0, int(criterion.maximum / criterion.step)) * criterion.step
                    )
                    writer.writerow(
                        [paper.system.name, problem.number, criterion.code, f"bench{j}", points, ""]
                    )
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--database-url", default="postgres://postgres@127.0.0.1:5432/ioleval_marksbench"
    )
    parser.add_argument("--systems", type=int, default=49)
    parser.add_argument("--problems", type=int, default=5)
    parser.add_argument("--criteria", type=int, default=7)
    parser.add_argument("--jurors", type=int, default=6)
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--profile", action="store_true", help="cProfile the command's import")
    args = parser.parse_args(argv)

    from benchmarks.scale.database import django_setup, scratch_database

    with scratch_database(args.database_url, keep=args.keep):
        django_setup(args.database_url, "")
        from django.conf import settings
        from django.contrib.auth import get_user_model
        from django.db import transaction
        from django.test import Client
        from django.urls import reverse

        from benchmarks.scale.data import build_board
        from grading.models import Mark
        from grading.services import marks_import
        from ioleval.roles import ORGANIZER

        rng = random.Random(2026)
        board = build_board(
            slug="marksbench",
            prefix="M",
            n_problems=args.problems,
            n_systems=args.systems,
            n_criteria=args.criteria,
            rng=rng,
        )
        text = marks_csv(board, args.jurors, rng)
        rows = text.count("\n") - 1
        print(f"{rows} rows, {len(text.encode()) / 1024:.0f} KiB")

        started = time.perf_counter()
        profile = cProfile.Profile() if args.profile else None
        with transaction.atomic():
            if profile:
                profile.enable()
            result = marks_import(
                competition=board.competition, stream=io.StringIO(text), file="marks.csv"
            )
            if profile:
                profile.disable()
            transaction.set_rollback(True)  # the page's import below starts from the same state
        if profile:
            pstats.Stats(profile).sort_stats("cumulative").print_stats(25)
        print(
            f"marks_import (import_marks): {time.perf_counter() - started:.1f} s; {result.lines()[0]}"
        )

        organizer = get_user_model().objects.create_user("bench-organizer")
        from django.contrib.auth.models import Group

        organizer.groups.add(Group.objects.get_or_create(name=ORGANIZER)[0])
        client = Client(HTTP_HOST="127.0.0.1")
        client.force_login(organizer)
        upload = io.BytesIO(text.encode())
        upload.name = "marks.csv"
        started = time.perf_counter()
        response = client.post(
            reverse("grading:marks_upload", args=["marksbench"]), {"file": upload}, follow=True
        )
        elapsed = time.perf_counter() - started
        shown = [  # the page's messages, as a person reads them
            " ".join(html.unescape(re.sub(r"<[^>]+>", " ", m)).split())
            for m in re.findall(r'<ul class="messages">(.*?)</ul>', response.content.decode(), re.S)
        ]
        print(
            f"upload page: {elapsed:.1f} s, {Mark.objects.count()} marks written; "
            f"limit {getattr(settings, 'IOLEVAL_WEB_IMPORT_MAX_ROWS', None)} rows; message: {shown}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

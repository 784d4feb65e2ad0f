"""Reading parity: ioleval's import and score of perturbed submissions against the competition's.

    .venv/bin/python benchmarks/reading_parity.py [--count 400] [--seed 2026]
        [--database-url postgres://postgres@127.0.0.1:5432/ioleval_readbench] [--json]

What it does (see benchmarks/README.md):

1. Sets Django up on a throwaway SQLite file (or creates, and drops at the end, the
   PostgreSQL database of --database-url) and imports the 14 IOL-AI tasks and answer key
   through a layout that links task/ only.
2. Builds --count perturbed submission CSVs from the 46 archived records with
   tests/puzzles/reading_reference.py (the builders the tests use).
3. Imports each with `import_outputs` as an organizer would. A file with an id mistake must
   be refused with the competition's behaviour in the message, at the right line; the file
   the message leads to is then imported instead.
4. Reads the board and compares score, exact_match, chrf, public_score,
   private_split_score and the three format rates of each submission with a pure-pandas
   reading of the original file by the competition's rule, to 4 decimals.

Prints the number of submissions that agree on every figure; exit status 0 when all agree,
1 otherwise, 3 on a setup error.
"""

from __future__ import annotations

import argparse
import io
import json
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA_DIR = REPO.parent / "shared" / "data" / "iolai-2026"
SLUG = "reading-parity"

sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from score_board import django_setup, is_postgres, pg_create, pg_drop  # noqa: E402

from tests.puzzles import reading_reference as ref  # noqa: E402


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=400)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--database-url", default="")
    parser.add_argument("--data", type=Path, default=DATA_DIR)
    parser.add_argument("--json", action="store_true", help="print the result as JSON only")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not (args.data / "task" / "solution.csv").is_file():
        print(f"error: the IOL-AI data are missing at {args.data}", file=sys.stderr)
        return 3
    postgres = bool(args.database_url) and is_postgres(args.database_url)
    if args.database_url and not postgres:
        print("error: --database-url must be a PostgreSQL URL", file=sys.stderr)
        return 3
    if postgres:
        pg_create(args.database_url, drop_existing=False)
    tmp = Path(tempfile.mkdtemp(prefix="ioleval-reading-"))
    url = args.database_url or f"sqlite:///{tmp / 'reading.sqlite3'}"
    try:
        return _run(args, url, tmp)
    finally:
        from django.db import connections

        connections.close_all()
        if postgres:
            pg_drop(url)
        shutil.rmtree(tmp, ignore_errors=True)


def _run(args: argparse.Namespace, url: str, tmp: Path) -> int:
    django_setup(url)
    from django.core.management import call_command
    from django.db import connection

    layout = tmp / "layout"
    layout.mkdir()
    (layout / "task").symlink_to(args.data / "task", target_is_directory=True)
    call_command("import_iolai", str(layout), "--slug", SLUG, stdout=io.StringIO())

    key = ref.answer_key(args.data)
    variants = ref.submission_variants(args.data, key, args.count, seed=args.seed)
    files = tmp / "files"
    files.mkdir()
    started = time.perf_counter()
    outcome = ref.import_and_compare(SLUG, variants, key, files)
    elapsed = time.perf_counter() - started

    agree = [name for name, problems in outcome.items() if not problems]
    refused = Counter(
        p.removeprefix("refused-") for v in variants for p in v.perturbations if "refused-" in p
    )
    covered = Counter(p.split("+")[0] for v in variants for p in v.perturbations)
    result = {
        "database": connection.vendor,
        "submissions": len(variants),
        "agree": len(agree),
        "refused_as_expected": sum(1 for v in variants if v.refused_with and not outcome[v.name]),
        "refused": dict(refused),
        "figures": list(ref.FIGURES),
        "seconds": round(elapsed, 1),
        "perturbations": dict(covered.most_common()),
        "disagreements": {name: problems for name, problems in outcome.items() if problems},
    }
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        print(
            f"{result['submissions']} perturbed submissions from the 46 archived records"
            f" (seed {args.seed}), {connection.vendor}, {elapsed:.1f} s"
        )
        print(
            f"refused with the competition's behaviour in the message, then imported as the"
            f" message says: {result['refused_as_expected']} of {sum(refused.values())}"
            f" ({', '.join(f'{k} {n}' for k, n in sorted(refused.items()))})"
        )
        print(
            f"agree with the pure-pandas reading on all {len(ref.FIGURES)} figures:"
            f" {len(agree)}/{len(variants)}"
        )
        for name, problems in list(result["disagreements"].items())[:20]:
            print(f"  {name}: {'; '.join(problems)[:300]}")
    return 0 if len(agree) == len(variants) else 1


if __name__ == "__main__":
    sys.exit(main())

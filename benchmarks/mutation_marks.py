"""Benchmark: how many mutants of the marks services the marks tests kill.

    .venv/bin/python benchmarks/mutation_marks.py                  # fresh run, then figures
    .venv/bin/python benchmarks/mutation_marks.py --list-survivors # ... and each survivor's diff
    .venv/bin/python benchmarks/mutation_marks.py --no-run --list-survivors  # last run only

1. **Workspace.** mutmut reads its settings from ./pyproject.toml only, and the repository's
   pyproject.toml holds those of the extraction (benchmarks/mutation_extraction.py). So this
   script copies grading/, ioleval/, puzzles/, templates/, static/ and tests/ into
   `build/mutation-marks/` (deleted first; --reuse keeps mutmut's verdicts, so only mutants of
   functions or settings that changed run again, and new tests' coverage is collected; old
   survivors are not retried: --retest does that) and writes there a pyproject.toml
   whose `[tool.mutmut]` table is `benchmarks/mutation_marks.toml`: only
   `grading/services/marks.py` is mutated, and only `tests/grading/test_mark*.py` run.
2. **Run.** `mutmut run --max-children 2` in the workspace (on SQLite, the test settings'
   default; tests that need PostgreSQL are not selected). The wall time is reported.
3. **Figures.** As benchmarks/mutation_extraction.py: every mutant's status from
   `mutmut results --all true`, the counts per status, the kill rate, and the kill rate over
   the mutants not judged equivalent, listed with a reason each in
   `benchmarks/mutation_marks_equivalent.txt` (a listed name that is unknown or killed is
   reported, not subtracted: mutmut numbers a function's mutants in order).
4. **Survivors.** With --list-survivors, every survivor's diff (`mutmut show NAME`).

With --retest the last run's verdicts are kept, the copy is refreshed, and only the
survivors and timeouts run again (mutmut collects the new tests' coverage first).

Exit status: 0 figures printed, 3 mutmut failed (its output says why).
"""

from __future__ import annotations

import argparse
import hashlib
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from mutation_extraction import (
    REPORTED,
    equivalent_names,
    function_of,
    mutmut_command,
    number_of,
    percent,
    print_per_function,
)
from mutation_extraction import statuses as extraction_statuses

REPO = Path(__file__).resolve().parent.parent
WORKSPACE = REPO / "build" / "mutation-marks"
MUTANTS = WORKSPACE / "mutants"
RUN_STATE = WORKSPACE / "benchmark-run.txt"  # what the last run measured, for --no-run
CONFIG = REPO / "benchmarks" / "mutation_marks.toml"
EQUIVALENT = REPO / "benchmarks" / "mutation_marks_equivalent.txt"
COPIED = ("grading", "ioleval", "puzzles", "templates", "static", "tests")
MUTATED = "grading/services/marks.py"
TESTS = "tests/grading/test_mark*.py"
MUTMUT_TABLE = re.compile(r"^\[tool\.mutmut\]\n.*?(?=^\[|\Z)", re.M | re.S)


def workspace_make(*, reuse: bool) -> None:
    """Copy the app and its tests into WORKSPACE with the marks' mutmut settings; with reuse,
    keep mutmut's verdicts (mutants/) and only refresh the copy."""
    if WORKSPACE.exists() and not reuse:
        shutil.rmtree(WORKSPACE)
    WORKSPACE.mkdir(parents=True, exist_ok=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in COPIED:
        shutil.rmtree(WORKSPACE / name, ignore_errors=True)
        shutil.copytree(REPO / name, WORKSPACE / name, ignore=ignore)
    table = CONFIG.read_text(encoding="utf-8")
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    if not MUTMUT_TABLE.search(pyproject):
        sys.exit("pyproject.toml has no [tool.mutmut] table to replace")
    (WORKSPACE / "pyproject.toml").write_text(MUTMUT_TABLE.sub(lambda _: table + "\n", pyproject))


def mutmut(*args: str, capture: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(
        [mutmut_command(), *args], cwd=WORKSPACE, text=True, capture_output=capture
    )


def statuses() -> dict[str, str]:
    """Every mutant's status, by name, in this script's workspace."""
    return extraction_statuses(mutmut)


def code_state() -> str:
    """Say which code is measured: the commit, uncommitted files and a hash of what is run."""
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, text=True, capture_output=True
    ).stdout.strip()
    files = [REPO / MUTATED, *sorted(REPO.glob(TESTS))]
    changed = subprocess.run(
        ["git", "status", "--porcelain", "--", *(str(p.relative_to(REPO)) for p in files)],
        cwd=REPO,
        text=True,
        capture_output=True,
    ).stdout.splitlines()
    digest = hashlib.sha256()
    for path in files:
        digest.update(str(path.relative_to(REPO)).encode() + b"\0" + path.read_bytes())
    return (
        f"HEAD {head or '?'}, {len(changed)} uncommitted of {MUTATED} and {TESTS}; "
        f"sha256 {digest.hexdigest()[:12]} of {len(files)} files "
        f"({', '.join(p.name for p in files)})"
    )


def report(by_name: dict[str, str], listed: dict[str, str], equivalent_file: Path) -> list[str]:
    """Print the figures; return the survivors, sorted by function and number."""
    counts = Counter(by_name.values())
    total = len(by_name)
    equivalent = [n for n in listed if by_name.get(n) == "survived"]
    for name in listed:
        if name not in by_name:
            print(f"warning: {equivalent_file.name}: {name} is not a mutant of this run")
        elif by_name[name] != "survived":
            print(f"warning: {equivalent_file.name}: {name} is listed but {by_name[name]}")
    print(f"\n{'mutants':<22}{total:>6}")
    for status in (*REPORTED, *sorted(set(counts) - set(REPORTED))):
        print(f"{status:<22}{counts[status]:>6}")
    print(f"{'kill rate':<22}{percent(counts['killed'], total):>6}  ({counts['killed']} / {total})")
    relevant = total - len(equivalent)
    print(
        f"{'kill rate, non-equiv.':<22}{percent(counts['killed'], relevant):>6}  "
        f"({counts['killed']} / {relevant}; {len(equivalent)} equivalent survivors in "
        f"{equivalent_file.name})"
    )
    print_per_function(by_name)
    return sorted(
        (n for n, s in by_name.items() if s == "survived"),
        key=lambda n: (function_of(n), number_of(n)),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-children", type=int, default=2, help="mutmut workers (default 2)")
    parser.add_argument("--no-run", action="store_true", help="report the last run only")
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="keep the workspace's code, tests and verdicts (the settings are rewritten)",
    )
    parser.add_argument(
        "--retest",
        action="store_true",
        help="copy tests/ into the last run's workspace and run its survivors and timeouts again",
    )
    parser.add_argument("--list-survivors", action="store_true", help="print each survivor's diff")
    parser.add_argument(
        "--equivalent", type=Path, default=EQUIVALENT, help="names judged equivalent"
    )
    args = parser.parse_args()

    if not args.no_run:
        names: list[str] = []
        if args.retest:
            if not MUTANTS.exists():
                print("no workspace to retest: run without --retest first")
                return 3
            names = [n for n, s in statuses().items() if s in ("survived", "timeout")]
            shutil.rmtree(WORKSPACE / "tests")
            shutil.copytree(
                REPO / "tests", WORKSPACE / "tests", ignore=shutil.ignore_patterns("__pycache__")
            )
            print(f"retesting {len(names)} survivors and timeouts with the tests of now")
        workspace_make(reuse=args.reuse or args.retest)
        state = code_state()
        print(f"code: {state}")
        start = time.perf_counter()
        done = mutmut("run", "--max-children", str(args.max_children), *names, capture=False)
        wall = time.perf_counter() - start
        print(f"\nmutmut run --max-children {args.max_children}: {wall:.0f} s wall")
        if done.returncode:
            print(f"mutmut run failed (exit {done.returncode})")
            return 3
        RUN_STATE.write_text(
            f"{state}\nrun at {time.strftime('%Y-%m-%d %H:%M %Z')}, {wall:.0f} s\n"
        )
    elif not MUTANTS.exists():
        print(f"no {MUTANTS.relative_to(REPO)}: run without --no-run first")
        return 3
    else:
        run_state = RUN_STATE.read_text().splitlines() if RUN_STATE.exists() else ["unknown"]
        print(f"code of the last run: {'; '.join(run_state)}")
        print(f"code now: {code_state()}")

    by_name = statuses()
    if not by_name:
        print("mutmut reports no mutants")
        return 3
    listed = equivalent_names(args.equivalent)
    survivors = report(by_name, listed, args.equivalent)
    if args.list_survivors:
        print(f"\nSurvivors ({len(survivors)}), by function")
        current = None
        for name in survivors:
            if function_of(name) != current:
                current = function_of(name)
                print(f"\n=== {current}")
            shown = mutmut("show", name)
            note = f"  [equivalent: {listed[name] or 'no reason given'}]" if name in listed else ""
            print(f"\n{shown.stdout.rstrip()}{note}" if shown.returncode == 0 else shown.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

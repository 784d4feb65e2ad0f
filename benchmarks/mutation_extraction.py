"""Benchmark: how many mutants of the answer extraction the extraction tests kill.

    .venv/bin/python benchmarks/mutation_extraction.py                  # fresh run, then figures
    .venv/bin/python benchmarks/mutation_extraction.py --list-survivors # ... and each survivor's diff
    .venv/bin/python benchmarks/mutation_extraction.py --no-run --list-survivors  # last run only

1. **Run.** Deletes `mutants/` (unless --reuse) and runs `mutmut run --max-children 2` from
   the repository root with the `[tool.mutmut]` settings of pyproject.toml: only
   `puzzles/extraction/` is mutated, and only `tests/puzzles/test_extraction*.py` are run,
   inside the copy mutmut makes in `mutants/`. The wall time of the run is reported.
2. **Figures.** Reads every mutant's status with `mutmut results --all true` and prints the
   total, killed, survived, timed out, suspicious and no-tests counts (and any other status
   mutmut reports); the kill rate killed / total; the share detected, killed or timed out /
   total (what mutmut's badge counts); and the kill rate over the mutants not judged
   equivalent, killed / (total - equivalent survivors). The equivalent mutants are listed in
   `benchmarks/mutation_equivalent.txt` (one name a line, `# reason` comments allowed; the
   file may be absent). A listed name that is unknown or was killed is reported, not
   subtracted: mutmut numbers the mutants of a function in order, so after the function
   changes a name may point at another mutant.
3. **Survivors.** With --list-survivors, every surviving mutant, grouped by function, with
   its diff (`mutmut show NAME`).

mutmut 3 mutates code inside functions only: the regular expressions of `patterns.py`, built
at import, are never mutated. With --reuse mutmut keeps the verdicts of functions whose code
did not change, also when the tests did: survivors are not retried after new tests, so the
default is a fresh run.

It records what it measured in `mutants/benchmark-run.txt` for --no-run.

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
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MUTANTS = REPO / "mutants"
RUN_STATE = MUTANTS / "benchmark-run.txt"  # what the last run measured, for --no-run
EQUIVALENT = REPO / "benchmarks" / "mutation_equivalent.txt"
# The statuses the brief of this benchmark asks for, in mutmut's words; others are printed too.
REPORTED = ("killed", "survived", "timeout", "suspicious", "no tests")
NAME = re.compile(
    r"^(?P<module>.+)\.x(?:_(?P<function>\w+)|ǁ(?P<cls>\w+)ǁ(?P<method>\w+))__mutmut_(?P<n>\d+)$"
)


def mutmut_command() -> str:
    here = Path(sys.executable).parent / "mutmut"
    found = str(here) if here.exists() else shutil.which("mutmut")
    if not found:
        sys.exit("mutmut is not installed: .venv/bin/pip install -e '.[dev]'")
    return found


def mutmut(*args: str, capture: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run([mutmut_command(), *args], cwd=REPO, text=True, capture_output=capture)


def statuses(run=None) -> dict[str, str]:
    """Return every mutant's status, by name, as `mutmut results --all true` prints it
    (`run`: the function that runs mutmut where the mutants are; this script's by default)."""
    done = (run or mutmut)("results", "--all", "true")
    if done.returncode:
        print(done.stdout, done.stderr, sep="\n")
        sys.exit(3)
    result = {}
    for line in done.stdout.splitlines():
        name, sep, status = line.strip().rpartition(": ")
        if sep and NAME.match(name):
            result[name] = status
    return result


def function_of(name: str) -> str:
    m = NAME.match(name)
    function = m["function"] or f"{m['cls']}.{m['method']}"
    return f"{m['module']}.{function}"


def number_of(name: str) -> int:
    return int(NAME.match(name)["n"])


def equivalent_names(path: Path) -> dict[str, str]:
    """Return the names listed in `path` with their reason (the text after `#`)."""
    if not path.exists():
        return {}
    names = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        name, _, reason = line.partition("#")
        if name.strip():
            names[name.strip()] = reason.strip()
    return names


def code_state() -> str:
    """Say which code is measured: the commit, uncommitted files and a hash of what is run."""
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, text=True, capture_output=True
    ).stdout.strip()
    changed = subprocess.run(
        ["git", "status", "--porcelain", "--", "puzzles/extraction", "tests/puzzles"],
        cwd=REPO,
        text=True,
        capture_output=True,
    ).stdout.splitlines()
    files = sorted(REPO.glob("puzzles/extraction/**/*.py")) + sorted(
        REPO.glob("tests/puzzles/test_extraction*.py")
    )
    digest = hashlib.sha256()
    for path in files:
        digest.update(str(path.relative_to(REPO)).encode() + b"\0" + path.read_bytes())
    return (
        f"HEAD {head or '?'}, {len(changed)} uncommitted file(s) under puzzles/extraction/ and "
        f"tests/puzzles/; sha256 {digest.hexdigest()[:12]} of {len(files)} files "
        f"({', '.join(p.name for p in files)})"
    )


def print_per_function(by_name: dict[str, str]) -> None:
    """Print each mutated function's mutants: killed, survived, other."""
    per_function: dict[str, Counter] = defaultdict(Counter)
    for name, status in by_name.items():
        per_function[function_of(name)][status] += 1
    print(f"\n{'function':<52}{'mutants':>8}{'killed':>8}{'survived':>9}{'other':>7}")
    for function, c in sorted(per_function.items()):
        total_f = sum(c.values())
        other = total_f - c["killed"] - c["survived"]
        print(f"{function:<52}{total_f:>8}{c['killed']:>8}{c['survived']:>9}{other:>7}")


def percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "n/a"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-children", type=int, default=2, help="mutmut workers (default 2)")
    parser.add_argument("--no-run", action="store_true", help="report the last run only")
    parser.add_argument("--reuse", action="store_true", help="keep mutants/ and mutmut's cache")
    parser.add_argument("--list-survivors", action="store_true", help="print each survivor's diff")
    parser.add_argument(
        "--equivalent", type=Path, default=EQUIVALENT, help="names judged equivalent"
    )
    args = parser.parse_args()

    if not args.no_run:
        if not args.reuse and MUTANTS.exists():
            shutil.rmtree(MUTANTS)
        state = code_state()
        print(f"code: {state}")
        start = time.perf_counter()
        done = mutmut("run", "--max-children", str(args.max_children), capture=False)
        wall = time.perf_counter() - start
        print(
            f"\nmutmut run --max-children {args.max_children}: {wall:.0f} s wall ({wall / 60:.1f} min)"
        )
        if done.returncode:
            print(f"mutmut run failed (exit {done.returncode})")
            return 3
        RUN_STATE.write_text(
            f"{state}\nrun at {time.strftime('%Y-%m-%d %H:%M %Z')}, {wall:.0f} s\n"
        )
    elif not MUTANTS.exists():
        print("no mutants/ directory: run without --no-run first")
        return 3
    else:
        run_state = RUN_STATE.read_text().splitlines() if RUN_STATE.exists() else ["unknown"]
        print(f"code of the last run: {'; '.join(run_state)}")
        print(f"code now: {code_state()}")

    by_name = statuses()
    if not by_name:
        print("mutmut reports no mutants")
        return 3
    counts = Counter(by_name.values())
    total = len(by_name)
    survivors = sorted(
        (n for n, s in by_name.items() if s == "survived"),
        key=lambda n: (function_of(n), number_of(n)),
    )

    listed = equivalent_names(args.equivalent)
    equivalent = [n for n in listed if by_name.get(n) == "survived"]
    for name in listed:
        if name not in by_name:
            print(f"warning: {args.equivalent.name}: {name} is not a mutant of this run")
        elif by_name[name] != "survived":
            print(
                f"warning: {args.equivalent.name}: {name} is listed as equivalent but {by_name[name]}"
            )

    print(f"\n{'mutants':<22}{total:>6}")
    for status in REPORTED:
        print(f"{status:<22}{counts[status]:>6}")
    for status in sorted(set(counts) - set(REPORTED)):
        print(f"{status:<22}{counts[status]:>6}")
    print(f"{'kill rate':<22}{percent(counts['killed'], total):>6}  ({counts['killed']} / {total})")
    detected = counts["killed"] + counts["timeout"]
    print(
        f"{'detected':<22}{percent(detected, total):>6}  ({detected} / {total}: killed or timed out)"
    )
    relevant = total - len(equivalent)
    print(
        f"{'kill rate, non-equiv.':<22}{percent(counts['killed'], relevant):>6}  "
        f"({counts['killed']} / {relevant}; {len(equivalent)} equivalent survivors in "
        f"{args.equivalent.relative_to(REPO) if args.equivalent.is_relative_to(REPO) else args.equivalent})"
    )

    print_per_function(by_name)

    if args.list_survivors:
        print(f"\nSurvivors ({len(survivors)}), by function")
        current = None
        for name in survivors:
            if function_of(name) != current:
                current = function_of(name)
                print(f"\n=== {current}")
            shown = mutmut("show", name)
            note = (
                f"  [equivalent: {listed[name] or 'no reason given'}]" if name in equivalent else ""
            )
            print(
                f"\n{shown.stdout.rstrip()}{note}"
                if shown.returncode == 0
                else f"\n{name}: {shown.stderr}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark: how many mutants of a part of the app its tests kill, in a copy of the tree.

    .venv/bin/python benchmarks/mutation.py --config benchmarks/mutation_stats.toml
    .venv/bin/python benchmarks/mutation.py --config benchmarks/mutation_stats.toml \\
        --mutants 'puzzles.analytics.stats.*' --list-survivors   # one package, and its survivors
    .venv/bin/python benchmarks/mutation.py --config benchmarks/mutation_stats.toml --no-run

The config (`benchmarks/mutation_NAME.toml`) holds a `[benchmark]` table, read by this
script, and a `[tool.mutmut]` table, mutmut's own settings (which code is mutated, which
tests run).

1. **Workspace.** mutmut reads its settings from ./pyproject.toml only, and the repository's
   pyproject.toml holds those of the extraction (benchmarks/mutation_extraction.py). So this
   script copies the folders the config's `copy` lists (the app, its templates and tests)
   into `build/mutation-NAME/` (deleted first; --reuse keeps mutmut's verdicts, so only
   mutants of functions or settings that changed run again, and new tests' coverage is
   collected; old survivors are not retried: --retest does that) and writes there a
   pyproject.toml whose `[tool.mutmut]` table is the config's.
2. **Run.** `mutmut run --max-children 2` in the workspace (on SQLite, the test settings'
   default; tests that need PostgreSQL are not selected), for every mutant or, with
   --mutants PATTERN (mutmut's names, `*` allowed, e.g. `puzzles.analytics.stats.*`), for
   those only. The wall time and the machine's load (the 1-minute load average, sampled every
   15 s: mean and maximum) are reported and kept for --no-run.
3. **Figures.** As benchmarks/mutation_extraction.py: every mutant's status from
   `mutmut results --all true`, the counts per status, the kill rate, and the kill rate over
   the mutants not judged equivalent, listed with a reason each in
   `benchmarks/mutation_NAME_equivalent.txt` (a listed name that is unknown or killed is
   reported, not subtracted: mutmut numbers a function's mutants in order), and the rate
   counting the equivalents tagged [numeric] or [contract] (weaker judgements, the file says
   which) as survivors. Timeouts count as not killed; mutants not checked (outside --mutants)
   are left out. The same figures are printed per package (each entry of the config's
   `only_mutate`), then per function.
4. **Survivors.** With --list-survivors, every survivor's diff (`mutmut show NAME`).

With --retest the last run's verdicts are kept, the copy is refreshed, and only the
survivors and timeouts (of --mutants, if given) run again; mutmut collects the new tests'
coverage first.

--reuse and --retest are for new tests only. mutmut records which tests reach which function
once per test name and, reusing a workspace, collects coverage only for tests it has not seen:
after the code under test changes (a merge), the old tests' records are stale, survivors show
up that those tests kill, and only a fresh run measures the new code.

Exit status: 0 figures printed, 3 mutmut failed (its output says why).
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import tomllib
from collections import Counter
from dataclasses import dataclass
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
MUTMUT_TABLE = re.compile(r"^\[tool\.mutmut\]\n.*?(?=^\[|\Z)", re.M | re.S)


@dataclass(frozen=True)
class Benchmark:
    """One config: where its workspace is, what it copies, mutates, hashes and excuses."""

    config: Path
    name: str
    workspace: Path
    equivalent: Path
    copy: tuple[str, ...]
    measured: tuple[str, ...]
    packages: tuple[str, ...]
    mutmut_table: str

    @property
    def mutants(self) -> Path:
        return self.workspace / "mutants"

    @property
    def run_state(self) -> Path:
        return self.workspace / "benchmark-run.txt"


def benchmark_load(config: Path) -> Benchmark:
    """Read a config: `mutation_NAME.toml` works in build/mutation-NAME/ and reads its
    equivalent mutants from mutation_NAME_equivalent.txt beside it."""
    text = config.read_text(encoding="utf-8")
    data = tomllib.loads(text)
    table = MUTMUT_TABLE.search(text)
    if table is None or "benchmark" not in data:
        sys.exit(f"{config}: needs a [benchmark] and a [tool.mutmut] table")
    name = config.stem.removeprefix("mutation_")
    only_mutate = data["tool"]["mutmut"].get("only_mutate", [])
    return Benchmark(
        config=config,
        name=name,
        workspace=REPO / "build" / f"mutation-{name.replace('_', '-')}",
        equivalent=config.with_name(f"{config.stem}_equivalent.txt"),
        copy=tuple(data["benchmark"]["copy"]),
        measured=tuple(data["benchmark"]["measured"]),
        packages=tuple(package_of(p) for p in only_mutate),
        mutmut_table=table.group(0).rstrip() + "\n",
    )


def package_of(pattern: str) -> str:
    """Return the module prefix of an only_mutate pattern: grading/review/stats/* is
    grading.review.stats, ioleval/inference.py is ioleval.inference."""
    return pattern.removesuffix("*").removesuffix("/").removesuffix(".py").replace("/", ".")


def workspace_make(bench: Benchmark, *, reuse: bool) -> None:
    """Copy the app and its tests into the workspace with the config's mutmut settings; with
    reuse, keep mutmut's verdicts (mutants/) and only refresh the copy."""
    if bench.workspace.exists() and not reuse:
        shutil.rmtree(bench.workspace)
    bench.workspace.mkdir(parents=True, exist_ok=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in bench.copy:
        shutil.rmtree(bench.workspace / name, ignore_errors=True)
        shutil.copytree(REPO / name, bench.workspace / name, ignore=ignore)
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    if not MUTMUT_TABLE.search(pyproject):
        sys.exit("pyproject.toml has no [tool.mutmut] table to replace")
    (bench.workspace / "pyproject.toml").write_text(
        MUTMUT_TABLE.sub(lambda _: bench.mutmut_table + "\n", pyproject)
    )


def mutmut_in(bench: Benchmark):
    def run(*args: str, capture: bool = True) -> subprocess.CompletedProcess:
        return subprocess.run(
            [mutmut_command(), *args], cwd=bench.workspace, text=True, capture_output=capture
        )

    return run


def code_state(bench: Benchmark) -> str:
    """Say which code is measured: the commit, uncommitted files and a hash of what is run."""
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, text=True, capture_output=True
    ).stdout.strip()
    files = sorted({p for pattern in bench.measured for p in REPO.glob(pattern) if p.is_file()})
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
        f"HEAD {head or '?'}, {len(changed)} uncommitted of {', '.join(bench.measured)}; "
        f"sha256 {digest.hexdigest()[:12]} of {len(files)} files"
    )


class LoadSampler:
    """Sample the 1-minute load average every `every` seconds while a run lasts."""

    def __init__(self, every: float = 15.0) -> None:
        self.every = every
        self.samples: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while True:
            self.samples.append(os.getloadavg()[0])
            if self._stop.wait(self.every):
                return

    def __enter__(self) -> LoadSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def summary(self) -> str:
        if not self.samples:
            return "load not sampled"
        mean = sum(self.samples) / len(self.samples)
        return (
            f"load average (1 min) mean {mean:.2f}, max {max(self.samples):.2f} "
            f"over {len(self.samples)} samples on {os.cpu_count()} CPUs"
        )


TAGS = ("[numeric]", "[contract]")  # weaker judgements, counted apart (see the equivalents file)


def figures(by_name: dict[str, str], listed: dict[str, str]) -> tuple[Counter, int, int, int]:
    """Return the counts per status, the mutants checked (not "not checked"), and the
    equivalent survivors among by_name: all of them, and those judged with a tag."""
    counts = Counter(by_name.values())
    checked = len(by_name) - counts["not checked"]
    survivors = [n for n in listed if by_name.get(n) == "survived"]
    tagged = sum(1 for n in survivors if listed[n].startswith(TAGS))
    return counts, checked, len(survivors), tagged


def report(bench: Benchmark, by_name: dict[str, str], listed: dict[str, str]) -> list[str]:
    """Print the figures, in all and per package; return the survivors, sorted by function
    and number."""
    for name in listed:
        if name not in by_name:
            print(f"warning: {bench.equivalent.name}: {name} is not a mutant of this run")
        elif by_name[name] not in ("survived", "not checked"):
            print(f"warning: {bench.equivalent.name}: {name} is listed but {by_name[name]}")
    counts, total, equivalent, tagged = figures(by_name, listed)
    print(f"\n{'mutants checked':<22}{total:>6}")
    for status in (*REPORTED, *sorted(set(counts) - set(REPORTED))):
        print(f"{status:<22}{counts[status]:>6}")
    print(f"{'kill rate':<22}{percent(counts['killed'], total):>6}  ({counts['killed']} / {total})")
    relevant = total - equivalent
    print(
        f"{'kill rate, non-equiv.':<22}{percent(counts['killed'], relevant):>6}  "
        f"({counts['killed']} / {relevant}; {equivalent} equivalent survivors in "
        f"{bench.equivalent.name}, {tagged} of them tagged {' or '.join(TAGS)})"
    )
    print(
        f"{'  untagged only':<22}{percent(counts['killed'], relevant + tagged):>6}  "
        f"({counts['killed']} / {relevant + tagged}: the tagged ones counted as survivors)"
    )
    if len(bench.packages) > 1:
        columns = (
            "mutants", "killed", "survived", "timeout", "other", "equiv.", "tagged", "rate",
            "non-eq.", "untagged",
        )  # fmt: skip
        print(f"\n{'package':<28}" + "".join(f"{c:>9}" for c in columns))
        for package in bench.packages:
            mine = {n: s for n, s in by_name.items() if n.startswith(package + ".")}
            c, checked, e, g = figures(mine, listed)
            other = checked - c["killed"] - c["survived"] - c["timeout"]
            row = (
                checked,
                c["killed"],
                c["survived"],
                c["timeout"],
                other,
                e,
                g,
                percent(c["killed"], checked),
                percent(c["killed"], checked - e),
                percent(c["killed"], checked - e + g),
            )
            print(f"{package:<28}" + "".join(f"{v:>9}" for v in row))
    print_per_function(by_name)
    return sorted(
        (n for n, s in by_name.items() if s == "survived"),
        key=lambda n: (function_of(n), number_of(n)),
    )


def main(argv: list[str] | None = None, *, config: Path | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--config",
        type=Path,
        default=config,
        required=config is None,
        help="benchmarks/mutation_NAME.toml: [benchmark] and [tool.mutmut] tables",
    )
    parser.add_argument("--max-children", type=int, default=2, help="mutmut workers (default 2)")
    parser.add_argument(
        "--mutants",
        action="append",
        default=[],
        metavar="PATTERN",
        help="run only the mutants whose name matches (repeatable; e.g. 'ioleval.inference.*')",
    )
    parser.add_argument("--no-run", action="store_true", help="report the last run only")
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="keep the workspace's code, tests and verdicts (the settings are rewritten)",
    )
    parser.add_argument(
        "--retest",
        action="store_true",
        help="refresh the copy of the last run's workspace and run its survivors and timeouts again",
    )
    parser.add_argument("--list-survivors", action="store_true", help="print each survivor's diff")
    parser.add_argument("--equivalent", type=Path, help="names judged equivalent")
    args = parser.parse_args(argv)
    bench = benchmark_load(args.config.resolve())
    equivalent_file = args.equivalent or bench.equivalent
    mutmut = mutmut_in(bench)

    def statuses() -> dict[str, str]:
        return extraction_statuses(mutmut)

    if not args.no_run:
        names = list(args.mutants)
        if args.retest:
            if not bench.mutants.exists():
                print("no workspace to retest: run without --retest first")
                return 3
            names = [
                n
                for n, s in statuses().items()
                if s in ("survived", "timeout")
                and (not args.mutants or any(fnmatch.fnmatch(n, p) for p in args.mutants))
            ]
            if not names:
                print("no survivors or timeouts to retest")
                return 0
            print(f"retesting {len(names)} survivors and timeouts with the code and tests of now")
        workspace_make(bench, reuse=args.reuse or args.retest)
        state = code_state(bench)
        print(f"code: {state}")
        start = time.perf_counter()
        with LoadSampler() as load:
            done = mutmut("run", "--max-children", str(args.max_children), *names, capture=False)
        wall = time.perf_counter() - start
        what = " ".join(args.mutants) if args.mutants else "all mutants"
        print(
            f"\nmutmut run --max-children {args.max_children} ({what}"
            f"{', retest' if args.retest else ''}): {wall:.0f} s wall; {load.summary()}"
        )
        if done.returncode:
            print(f"mutmut run failed (exit {done.returncode})")
            return 3
        with bench.run_state.open("a") as log:
            log.write(
                f"{time.strftime('%Y-%m-%d %H:%M %Z')}: {what}"
                f"{' (retest)' if args.retest else ''}, {wall:.0f} s, {load.summary()}; {state}\n"
            )
    elif not bench.mutants.exists():
        print(f"no {bench.mutants.relative_to(REPO)}: run without --no-run first")
        return 3
    else:
        runs = bench.run_state.read_text().splitlines() if bench.run_state.exists() else []
        print("runs in this workspace:" if runs else "runs in this workspace: unknown")
        for line in runs:
            print(f"  {line}")
        print(f"code now: {code_state(bench)}")

    by_name = statuses()
    if not by_name:
        print("mutmut reports no mutants")
        return 3
    listed = equivalent_names(equivalent_file)
    survivors = report(bench, by_name, listed)
    if args.list_survivors:
        print(f"\nSurvivors ({len(survivors)}), by function")
        current = None
        for name in survivors:
            if args.mutants and not any(fnmatch.fnmatch(name, p) for p in args.mutants):
                continue
            if function_of(name) != current:
                current = function_of(name)
                print(f"\n=== {current}")
            shown = mutmut("show", name)
            note = f"  [equivalent: {listed[name] or 'no reason given'}]" if name in listed else ""
            print(f"\n{shown.stdout.rstrip()}{note}" if shown.returncode == 0 else shown.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

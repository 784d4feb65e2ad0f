"""Benchmark: how many mutants of the marks services the marks tests kill.

    .venv/bin/python benchmarks/mutation_marks.py                  # fresh run, then figures
    .venv/bin/python benchmarks/mutation_marks.py --list-survivors # ... and each survivor's diff
    .venv/bin/python benchmarks/mutation_marks.py --no-run --list-survivors  # last run only

benchmarks/mutation.py with benchmarks/mutation_marks.toml (its docstring says each step):
only `grading/services/marks.py` and `grading/services/drafts.py` (the autosave's reads) are
mutated, only `tests/grading/test_mark*.py` run, in
`build/mutation-marks/`; the equivalent mutants are in mutation_marks_equivalent.txt.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mutation import main

if __name__ == "__main__":
    sys.exit(main(config=Path(__file__).with_name("mutation_marks.toml")))

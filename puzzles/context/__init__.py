"""The context lab: which context examples of a Rosetta Stone puzzle its questions depend on.

Two rooms: `lab/`, the puzzles and their analysis (damage scores, deletion variants, the
solvers' prompts; `lab.analysis` is pure, no Django), and `results/`, what solvers and judges
did with the variants (imports, Table 1 and 2; `results.outcomes` is pure). The tables are
in `models.py`, imported by `puzzles.models`. Nothing here imports `grading`.
"""

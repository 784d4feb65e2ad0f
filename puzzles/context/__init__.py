"""The context lab: which context examples of a Rosetta Stone puzzle its questions depend on.

`analysis` is pure (no Django); `services` and `selectors` read and write the models in
`puzzles.models`. Nothing here imports `grading`.
"""

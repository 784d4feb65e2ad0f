"""The context lab's puzzles and their analysis: imports (JSON, or a problem of a
competition), damage scores, deletion variants and the prompts that show them, the pages
and their exports.

Import from the modules: `puzzles.context.models` imports `lab.analysis`, and the pure
modules (analysis, variants, prompts) load without Django, so this package imports nothing.
"""

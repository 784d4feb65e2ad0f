"""What solvers and judges did with the context lab's variants: their imports, the
paper's Table 1 and 2 and ours, the pages and exports.

Import from the modules: the pure one (outcomes) loads without Django, so this package
imports nothing.
"""

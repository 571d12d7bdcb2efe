"""``kubectl testbench lsp``: the validator in the editor, a thin face over the same engine.

Diagnostics come from ``validate.engine``, quick fixes from the fixes it offers, "fix all" from ``fix``,
hover text from ``explain``, completions from the generated CRD schema and metric table. Nothing here
decides what is valid. Only the ``server`` module imports pygls; ``kubectl testbench lsp`` is the only
command that imports this package.
"""

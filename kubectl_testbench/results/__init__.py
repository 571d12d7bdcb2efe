"""Reading ``evaluated_experiment.json``: parse, summarise, gate, export and compare evaluation runs.

The evaluate phase of a Testbench workflow writes one such file per execution. Everything here is a pure
library (no printing, no exiting) so the ``results`` and ``compare`` commands stay thin.
"""

"""Everything that writes a committed artefact: the CRD and ``schemas/``, ``_generated/`` (the packaged CRD,
celpy's parser tables, the CEL rules' outcomes, the RenderDefaults schema, the metric table),
``docs/rules.md`` and ``kustomize/base``.

Build-time code only: ``python -m kubectl_testbench.generate --write`` runs it, ``--check`` (and the drift
tests) compare. The runtime reads what it wrote and imports nothing from here
(``tests/architecture/test_imports.py`` holds it to that).
"""

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
"""The source checkout: the committed artefacts outside the package (``schemas/``, ``docs/``, ``kustomize/``)."""

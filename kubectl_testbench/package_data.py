"""Where the package keeps the data generated from its own code: ``_generated/``, committed and shipped.

``python -m kubectl_testbench.generate --write`` writes it; the readers (the packaged CRD, the CEL tables,
the metric table, the RenderDefaults schema) find it here, so no module's depth in the package decides
where it reads from.
"""

from __future__ import annotations

from pathlib import Path

GENERATED_DIR = Path(__file__).resolve().parent / "_generated"

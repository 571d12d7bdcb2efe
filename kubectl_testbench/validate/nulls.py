"""Null ObjectMeta fields: the API server drops them, so in a file under Git they only add noise.

``kubectl create --dry-run=client -o yaml`` writes ``creationTimestamp: null``; generators write
``labels: null``. This is style, not an error (the API server accepts and drops them), so the finding is
information, with a fix that removes the entry.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kubectl_testbench.load.positions import Path
from kubectl_testbench.rules.metadata import METADATA_NULL_FIELD
from kubectl_testbench.validate.diagnostics import Fix, FixKind


def null_metadata_fields(doc: dict[str, Any]) -> Iterator[tuple[str, Path, str, str, Fix]]:
    """``(rule, path, message, hint, fix)`` for every top-level metadata field whose value is null."""
    meta = doc.get("metadata")
    if not isinstance(meta, dict):
        return
    for key, value in meta.items():
        if value is None:
            at: Path = ("metadata", key)
            yield (METADATA_NULL_FIELD.id, at, f"metadata.{key} is null: the API server drops it",
                   "remove the line (kubectl create --dry-run writes creationTimestamp: null)",
                   Fix(FixKind.DELETE, at, None, f"remove metadata.{key}"))

"""Resource limits for reading untrusted input; every one has a CLI flag that raises it."""

from __future__ import annotations

from dataclasses import dataclass

MiB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds that keep hostile files from exhausting time or memory."""

    max_file_bytes: int = 16 * MiB
    """Largest input file (``--max-file-size``). An Experiment above ~3 MiB cannot be applied anyway."""
    max_depth: int = 256
    """Deepest nesting of mappings/sequences; libyaml's scanner is quadratic in depth."""
    alias_budget: int = 100_000
    """Nodes that alias expansion may add beyond 10x the document's own size (billion-laughs guard)."""
    max_nodes: int = 1_000_000
    """Nodes (scalars, mappings, sequences) in one document (``--max-nodes``). A 10,000-step inline dataset
    has about 400,000; each node costs ~150 bytes, so this bounds memory per document at ~150 MiB."""
    nodes_per_document: int = 100
    """What each document of a file costs against ``max_nodes`` at least: a stream of a million empty or tiny
    documents (``---`` lines) is bounded like one large document, by the same flag."""
    max_findings: int = 200
    """Findings reported per document; the rest are counted (a document with 100,000 unknown fields must
    not take minutes to report)."""


    @property
    def max_documents(self) -> int:
        """Documents one file may hold: 10,000 at the default ``--max-nodes``."""
        return max(1, self.max_nodes // self.nodes_per_document)


DEFAULT_LIMITS = Limits()

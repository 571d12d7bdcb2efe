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


DEFAULT_LIMITS = Limits()

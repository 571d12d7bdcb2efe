"""A rendered object as the pipeline hands it on, and the one stream they make on stdout.

Below both the pipeline that produces them and the sinks that take them (:mod:`kubectl_testbench.render.sinks`),
so neither imports the other's module for the type.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass(slots=True)
class Rendered:
    """One generated object: where it sorts, its file name, its text (and data for JSON lists)."""

    key: tuple[int, str, str, str]
    filename: str
    text: str
    data: dict[str, Any] | None
    origin: str
    manifest: bool = False
    """Read from a rendered file (passed through), not generated from an Experiment."""


def stream(objects: list[Rendered], fmt: str) -> str:
    """All objects as one stream: ``---``-separated YAML, or a ``v1 List`` in JSON."""
    if fmt == "json":
        return json.dumps({"apiVersion": "v1", "kind": "List", "items": [o.data for o in objects]}, indent=4,
                          ensure_ascii=False) + "\n"
    return "---\n".join(o.text for o in objects)

"""A rendered object as the pipeline hands it on, and the one stream they make on stdout.

Below both the pipeline that produces them and the sinks that take them (:mod:`kubectl_testbench.render.sinks`),
so neither imports the other's module for the type.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from kubectl_testbench.emit.order import file_name, sort_key
from kubectl_testbench.emit.yamlout import dump


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


def rendered(obj: dict[str, Any], fmt: str, origin: str, manifest: bool = False, keep_data: bool = False) -> Rendered:
    """``obj`` written in ``fmt`` (``yaml`` or ``json``); its data is kept for JSON (and with ``keep_data``)."""
    text = json.dumps(obj, indent=4, ensure_ascii=False) + "\n" if fmt == "json" else dump(obj)
    return Rendered(sort_key(obj), file_name(obj, fmt), text, obj if fmt == "json" or keep_data else None, origin,
                    manifest)


def stream(objects: list[Rendered], fmt: str) -> str:
    """All objects as one stream: ``---``-separated YAML, or a ``v1 List`` in JSON."""
    if fmt == "json":
        return json.dumps({"apiVersion": "v1", "kind": "List", "items": [o.data for o in objects]}, indent=4,
                          ensure_ascii=False) + "\n"
    return "---\n".join(o.text for o in objects)

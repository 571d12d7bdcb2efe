"""The generated CRD the validator enforces, loaded from the package (no pydantic at validation time)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from kubectl_testbench.model.constants import VERSION
from kubectl_testbench.validate.schema import SchemaValidator

GENERATED = Path(__file__).resolve().parent.parent / "_generated" / "experiment-crd.json"


@cache
def experiment_crd() -> dict[str, Any]:
    """The committed CRD generated from the models (a drift test keeps it equal to the models)."""
    with GENERATED.open(encoding="utf-8") as handle:
        data: dict[str, Any] = json.load(handle)
    return data


def open_api_schema(version: str = VERSION) -> dict[str, Any]:
    for v in experiment_crd()["spec"]["versions"]:
        if v["name"] == version:
            schema: dict[str, Any] = v["schema"]["openAPIV3Schema"]
            return schema
    raise KeyError(version)


@cache
def experiment_validator() -> SchemaValidator:
    """Compiled once per process; ``metadata`` is ObjectMeta, checked by the metadata rules instead."""
    return SchemaValidator(open_api_schema(), skip_root_fields=("metadata",))


def served_versions() -> tuple[str, ...]:
    return tuple(v["name"] for v in experiment_crd()["spec"]["versions"] if v.get("served"))


_METADATA_STRINGS = frozenset(("name", "generateName", "namespace", "selfLink", "uid", "resourceVersion",
                               "creationTimestamp", "deletionTimestamp"))


def schema_type_at(path: tuple[str | int, ...]) -> str | None:
    """The OpenAPI type the CRD declares at a document path (None where it declares none: free-form fields)."""
    if path[:1] == ("metadata",):
        if len(path) == 2 and path[1] in _METADATA_STRINGS:
            return "string"
        if len(path) == 3 and path[1] in ("labels", "annotations"):
            return "string"
        return None
    node: dict[str, Any] | None = open_api_schema()
    for seg in path:
        if node is None:
            return None
        if isinstance(seg, int):
            node = node.get("items")
        else:
            props = node.get("properties")
            extra = node.get("additionalProperties")
            node = props.get(seg) if props and seg in props else (extra if isinstance(extra, dict) else None)
    if node is None or (node.get("x-kubernetes-preserve-unknown-fields") and "type" not in node):
        return None
    kind = node.get("type")
    return kind if isinstance(kind, str) else None

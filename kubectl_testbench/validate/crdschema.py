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

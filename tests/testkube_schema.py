"""Checking manifests against the real Testkube CRD schemas, with two engines (shared by several tests)."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
import yaml

from kubectl_testbench.validate.schema import SchemaValidator
from tests.conftest import TESTKUBE_CRDS

CRD_FILES = {
    "TestWorkflow": "testworkflows.testkube.io_testworkflows.yaml",
    "TestTrigger": "tests.testkube.io_testtriggers.yaml",
}


@cache
def _schema(kind: str) -> dict[str, Any]:
    path = TESTKUBE_CRDS / CRD_FILES[kind]
    crd = yaml.safe_load(path.read_text())
    [version] = [v for v in crd["spec"]["versions"] if v.get("storage")]
    schema: dict[str, Any] = version["schema"]["openAPIV3Schema"]
    return schema


def problems(obj: dict[str, Any]) -> list[str]:
    """Findings of our structural validator and of jsonschema for one manifest."""
    if obj["kind"] not in CRD_FILES:
        return []
    schema = _schema(obj["kind"])
    ours, _ = SchemaValidator(schema, skip_root_fields=("metadata",)).validate(yaml.safe_load(yaml.safe_dump(obj)))
    out = [f"ours: {e.rule} {e.path} {e.message}" for e in ours]
    jsonschema = pytest.importorskip("jsonschema")
    out += [f"jsonschema: {list(e.absolute_path)} {e.message}"
            for e in jsonschema.Draft4Validator(_json_schema(schema)).iter_errors(obj)]
    return out


def _json_schema(node: Any) -> Any:
    """The CRD schema as plain JSON Schema: OpenAPI's int-or-string as anyOf, unknown keys closed."""
    if isinstance(node, dict):
        out = {k: _json_schema(v) for k, v in node.items() if not k.startswith("x-kubernetes-")}
        if node.get("x-kubernetes-int-or-string"):
            out.pop("type", None)
            out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
        if "properties" in node and not node.get("x-kubernetes-preserve-unknown-fields"):
            out.setdefault("additionalProperties", False)
        return out
    if isinstance(node, list):
        return [_json_schema(v) for v in node]
    return node



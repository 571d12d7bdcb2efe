"""Every rendered manifest validates against the real Testkube 2.12.2 CRD schemas (two engines)."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import hypothesis.strategies as st
import pytest
import yaml
from hypothesis import given, settings

from kubectl_testbench.render.compile import render_experiment
from kubectl_testbench.render.settings import Flags
from kubectl_testbench.validate.engine import Options, validate_text
from kubectl_testbench.validate.schema import SchemaValidator
from tests.conftest import EXAMPLES, TESTKUBE_CRDS, require_reference
from tests.strategies import experiments

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


def _examples() -> list[dict[str, Any]]:
    out = []
    for path in sorted(EXAMPLES.rglob("*.yaml")):
        result = validate_text(path.read_text(), str(path), Options(keep_experiments=True))
        out += [e.data for e in result.experiments]
    return out


def test_examples_render_to_schema_valid_manifests() -> None:
    require_reference(TESTKUBE_CRDS)
    rendered = [o for exp in _examples() for o in render_experiment(exp, Flags(argocd_sync_waves=True))]
    assert {o["kind"] for o in rendered} >= {"ConfigMap", "TestWorkflow", "TestTrigger"}
    for obj in rendered:
        assert problems(obj) == [], obj["metadata"]["name"]


def test_the_schema_check_catches_a_wrong_manifest() -> None:
    require_reference(TESTKUBE_CRDS)
    bad = {"apiVersion": "tests.testkube.io/v1", "kind": "TestTrigger", "metadata": {"name": "x"},
           "spec": {"action": "run", "event": "modified", "execution": "testworkflow",
                    "testSelector": {"name": "w"}, "concurrencyPolicy": "Allow"}}
    found = problems(bad)
    assert any("ours: schema/enum" in p for p in found) and any(p.startswith("jsonschema") for p in found)


@settings(max_examples=60, deadline=None)
@given(exp=experiments())
def test_generated_experiments_render_to_schema_valid_manifests(exp: dict[str, Any]) -> None:
    require_reference(TESTKUBE_CRDS)
    from kubectl_testbench.emit.yamlout import dump

    # our writer, not yaml.safe_dump: PyYAML writes the string "n" unquoted, which Kubernetes reads as false
    result = validate_text(dump(exp), "gen.yaml", Options(keep_experiments=True))
    assert [d.message for d in result.diagnostics if d.severity.value == "error"] == []
    for obj in render_experiment(result.experiments[0].data, Flags()):
        assert problems(obj) == []


def test_required_reference_files_exist_when_reference_is_present() -> None:
    require_reference(TESTKUBE_CRDS)
    for name in CRD_FILES.values():
        assert (TESTKUBE_CRDS / name).exists()
    assert isinstance(st, object) and Path(TESTKUBE_CRDS).is_dir()

"""The CRD and JSON Schema generated from the models: committed copies, upstream parity, structural rules."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubectl_testbench.crd.document import crd_document
from kubectl_testbench.generate.committed import expected_files
from kubectl_testbench.generate.crd import CRD_FILE
from tests.conftest import EXAMPLES, ROOT, UPSTREAM, require_reference

FIX = "python -m kubectl_testbench.generate --write"


FROM_THE_MODELS = ("crd", "defaults", "rules")  # (kustomize/base: tests/install/test_kustomize.py)


@pytest.mark.parametrize("path", sorted(expected_files(FROM_THE_MODELS)), ids=lambda p: str(p.relative_to(ROOT)))
def test_committed_artifacts_match_the_models(path: Path) -> None:
    expected = expected_files(FROM_THE_MODELS)[path]
    assert path.exists(), f"{path} is missing; run: {FIX}"
    assert path.read_text(encoding="utf-8") == expected, f"{path} drifted from the models; run: {FIX}"


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k != "description"}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def _diff(ours: Any, theirs: Any, path: str = "") -> list[str]:
    if isinstance(ours, dict) and isinstance(theirs, dict):
        out = []
        for key in sorted(set(ours) | set(theirs)):
            if key not in ours:
                out.append(f"{path}.{key}: only upstream")
            elif key not in theirs:
                out.append(f"{path}.{key}: only ours")
            else:
                out += _diff(ours[key], theirs[key], f"{path}.{key}")
        return out
    if isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
        return [d for i, (a, b) in enumerate(zip(ours, theirs, strict=True)) for d in _diff(a, b, f"{path}[{i}]")]
    return [] if ours == theirs else [f"{path}: ours={ours!r} upstream={theirs!r}"]


def test_generated_crd_is_equivalent_to_upstream_field_by_field() -> None:
    upstream_file = require_reference(UPSTREAM / CRD_FILE)
    upstream = yaml.safe_load(upstream_file.read_text())
    ours = crd_document()
    assert _diff(_strip(ours["spec"]), _strip(upstream["spec"])) == []
    assert ours["metadata"]["name"] == upstream["metadata"]["name"]


def test_crd_schema_is_structural() -> None:
    """Kubernetes structural-schema rules: a type on every node except where preserve-unknown-fields or
    int-or-string stand in, no $ref, no additionalProperties beside properties, and value validations
    only (no types) inside anyOf/allOf/oneOf/not."""
    schema = crd_document()["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    problems: list[str] = []

    def walk(node: dict[str, Any], path: str, in_junctor: bool) -> None:
        forbidden = {"$ref", "definitions", "dependencies", "patternProperties", "additionalItems", "id", "$schema"}
        problems.extend(f"{path}: {k}" for k in forbidden & set(node))
        if not in_junctor and "type" not in node and not (
            node.get("x-kubernetes-preserve-unknown-fields") or node.get("x-kubernetes-int-or-string")):
            problems.append(f"{path}: no type")
        if "properties" in node and "additionalProperties" in node:
            problems.append(f"{path}: properties and additionalProperties")
        if node.get("x-kubernetes-int-or-string") and node.get("anyOf") not in (
                None, [{"type": "integer"}, {"type": "string"}]):
            problems.append(f"{path}: int-or-string anyOf")
        for key, child in (node.get("properties") or {}).items():
            walk(child, f"{path}.{key}", False)
        if isinstance(node.get("items"), dict):
            walk(node["items"], f"{path}[]", False)
        for junctor in ("anyOf", "allOf", "oneOf"):
            for i, child in enumerate(node.get(junctor, ())):
                if not node.get("x-kubernetes-int-or-string") and "type" in child:
                    problems.append(f"{path}.{junctor}[{i}]: type inside a junctor")
                walk(child, f"{path}.{junctor}[{i}]", True)

    walk(schema, "", False)
    assert problems == []
    spec = schema["properties"]["spec"]["properties"]
    step = spec["dataset"]["properties"]["inline"]["properties"]["scenarios"]["items"]["properties"]["steps"]["items"]
    assert step["properties"]["customValues"] == {"description": "Custom key-value pairs (e.g., retrieved_contexts)",
                                                  "x-kubernetes-preserve-unknown-fields": True}


def test_crd_has_short_name_status_subresource_and_columns() -> None:
    crd = crd_document()
    version = crd["spec"]["versions"][0]
    assert crd["spec"]["names"]["shortNames"] == ["exp"]
    assert version["subresources"] == {"status": {}}
    assert [c["name"] for c in version["additionalPrinterColumns"]] == ["Agent", "Status", "Age"]


def test_json_schema_is_valid_draft7_and_accepts_the_examples_but_not_two_sources() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((ROOT / "schemas" / "experiment.schema.json").read_text())
    jsonschema.Draft7Validator.check_schema(schema)
    validator = jsonschema.Draft7Validator(schema)
    for path in sorted(EXAMPLES.rglob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            if isinstance(doc, dict) and doc.get("kind") == "Experiment":
                assert list(validator.iter_errors(doc)) == [], path
    doc = yaml.safe_load((EXAMPLES / "experiments" / "weather-inline.yaml").read_text())
    doc["spec"]["dataset"]["url"] = "https://x/y.json"
    assert any(e.validator == "oneOf" for e in validator.iter_errors(doc))


def test_our_schema_validator_and_jsonschema_agree_on_mutated_documents() -> None:
    """Differential test: for schema-level mistakes both engines reject the same documents."""
    jsonschema = pytest.importorskip("jsonschema")
    from kubectl_testbench.validate.engine import validate_text

    schema = json.loads((ROOT / "schemas" / "experiment.schema.json").read_text())
    validator = jsonschema.Draft7Validator(schema)
    base = yaml.safe_load((EXAMPLES / "experiments" / "support-multi-turn.yaml").read_text())
    mutations = [
        lambda d: d["spec"].pop("agentRef"),
        lambda d: d["spec"]["dataset"]["inline"].update(defaultThreshold=2),
        lambda d: d["spec"].update(trigger={"concurrencyPolicy": "allow"}),
        lambda d: d["spec"]["dataset"]["inline"]["scenarios"][0].update(steps=[]),
        lambda d: d["spec"].update(bogus=1),
        lambda d: d["spec"]["env"][0].pop("name"),
        lambda d: d["spec"].update(schedule={"cron": "0 3 * *"}),
        lambda d: d["spec"]["dataset"].update(url="https://x/y.json"),
        lambda d: None,
    ]
    for mutate in mutations:
        doc = json.loads(json.dumps(base))
        mutate(doc)
        ours = validate_text(json.dumps(doc), "m.json").counts.invalid == 1
        theirs = bool(list(validator.iter_errors(doc)))
        assert ours == theirs, mutate

"""The structural-schema checker: real CRDs pass, each rule catches its violation."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubectl_testbench.crd.document import crd_document
from kubectl_testbench.crd.structural import structural_errors
from kubectl_testbench.install import bundle
from tests.conftest import TESTKUBE_CRDS, UPSTREAM, require_reference


def crd_structural_errors(crd: dict[str, Any]) -> list[str]:
    """:func:`structural_errors` for every version of a CustomResourceDefinition, prefixed by version."""
    problems: list[str] = []
    for version in (crd.get("spec") or {}).get("versions") or ():
        schema = ((version.get("schema") or {}).get("openAPIV3Schema")) or {}
        problems.extend(f"{version.get('name')}: {p}" for p in structural_errors(schema))
    return problems


def test_the_bundled_experiment_crd_is_structural() -> None:
    crd = next(o for o in bundle.objects(bundle.Options()) if o["kind"] == "CustomResourceDefinition")
    assert crd_structural_errors(crd) == []


def _reference_crds() -> list[Path]:
    return [*sorted(TESTKUBE_CRDS.glob("*.yaml")), UPSTREAM / "testbench.agentic-layer.ai_experiments.yaml"]


@pytest.mark.parametrize("path", _reference_crds(), ids=lambda p: p.name)
def test_crds_the_api_server_accepts_pass(path: Path) -> None:
    """A control: the checker must not reject CRDs that real clusters run (Testkube 2.12.2, upstream)."""
    crd = yaml.safe_load(require_reference(path).read_text())
    assert crd_structural_errors(crd) == []


def _schema() -> dict[str, Any]:
    schema: dict[str, Any] = copy.deepcopy(crd_document()["spec"]["versions"][0]["schema"]["openAPIV3Schema"])
    return schema


def _spec(schema: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = schema["properties"]["spec"]
    return spec


MUTATIONS = {
    "type is required": lambda s: _spec(s).pop("type"),
    "$ref is not allowed": lambda s: _spec(s)["properties"].update(x={"$ref": "#/definitions/x"}),
    "uniqueItems cannot be true": lambda s: _spec(s)["properties"].update(
        x={"type": "array", "items": {"type": "string"}, "uniqueItems": True}),
    "additionalProperties cannot be false": lambda s: _spec(s)["properties"].update(
        x={"type": "object", "additionalProperties": False}),
    "mutually exclusive": lambda s: _spec(s).update(additionalProperties={"type": "string"}),
    "inside allOf/anyOf/oneOf/not": lambda s: _spec(s).update(anyOf=[{"type": "object"}]),
    "single schema": lambda s: _spec(s)["properties"].update(x={"type": "array", "items": [{"type": "string"}]}),
    "must be true or absent": lambda s: _spec(s)["properties"].update(
        x={"type": "object", "x-kubernetes-preserve-unknown-fields": False}),
    "only name and generateName": lambda s: s["properties"].update(
        metadata={"type": "object", "properties": {"labels": {"type": "object"}}}),
    "root": lambda s: s.update(type="array"),
    "must not have a type": lambda s: _spec(s)["properties"].update(
        x={"type": "string", "x-kubernetes-int-or-string": True}),
}


@pytest.mark.parametrize("expected", sorted(MUTATIONS))
def test_each_rule_catches_its_violation(expected: str) -> None:
    schema = _schema()
    MUTATIONS[expected](schema)
    problems = structural_errors(schema)
    assert any(expected in p for p in problems), problems


def test_int_or_string_any_of_pattern_and_preserve_unknown_fields_need_no_type() -> None:
    schema = _schema()
    _spec(schema)["properties"].update(
        port={"anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": True},
        free={"x-kubernetes-preserve-unknown-fields": True},
    )
    assert structural_errors(schema) == []

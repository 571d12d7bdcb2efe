"""A JSON Schema (draft-07) of the Experiment for editors (yaml-language-server) and peers like check-jsonschema.

Derived from the CRD's structural schema: objects become closed (``additionalProperties: false``) where
the API server would reject unknown fields, Kubernetes extensions are dropped, and CEL rules are replaced
by their JSON Schema equivalents where one exists (editors cannot run CEL).
"""

from __future__ import annotations

import json
from typing import Any

from kubectl_testbench.crd.document import experiment_open_api_schema
from kubectl_testbench.k8snames import DNS1123_LABEL_MAX, DNS1123_SUBDOMAIN_MAX
from kubectl_testbench.model.cel_rules import BY_RULE_TEXT
from kubectl_testbench.model.constants import API_VERSION, KIND

SCHEMA_ID = "https://agentic-layer.github.io/kubectl-testbench/schemas/experiment.schema.json"
_DNS_LABEL = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
_DNS_SUBDOMAIN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"


def json_schema_text() -> str:
    """What ``kubectl testbench schema`` prints and ``schemas/experiment.schema.json`` holds."""
    return json.dumps(experiment_json_schema(), indent=2, ensure_ascii=False) + "\n"


def experiment_json_schema() -> dict[str, Any]:
    root = _convert(experiment_open_api_schema())
    props = root["properties"]
    props["apiVersion"] = {**props["apiVersion"], "const": API_VERSION}
    props["kind"] = {**props["kind"], "const": KIND}
    props["metadata"] = {
        "type": "object",
        "description": "Standard object metadata.",
        "properties": {
            "name": {"type": "string", "maxLength": DNS1123_SUBDOMAIN_MAX, "pattern": _DNS_SUBDOMAIN},
            "namespace": {"type": "string", "maxLength": DNS1123_LABEL_MAX, "pattern": _DNS_LABEL},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
        },
        "required": ["name"],
    }
    root["required"] = ["apiVersion", "kind", "metadata", "spec"]
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": SCHEMA_ID,
        "title": f"{KIND} ({API_VERSION})",
        **root,
    }


def _convert(node: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key.startswith("x-kubernetes-"):
            continue
        if key == "properties":
            out[key] = {k: _convert(v) for k, v in value.items()}
        elif key == "items" and isinstance(value, dict):
            out[key] = _convert(value)
        elif key in ("anyOf", "allOf", "oneOf"):
            out[key] = [_convert(v) for v in value]
        elif key == "additionalProperties" and isinstance(value, dict):
            out[key] = _convert(value)
        else:
            out[key] = value
    if node.get("type") == "object" and "properties" in node and not node.get("x-kubernetes-preserve-unknown-fields"):
        out.setdefault("additionalProperties", False)
    if "type" not in out and isinstance(out.get("anyOf"), list):
        _into_typed_branches(out)
    for rule in node.get("x-kubernetes-validations", ()):
        equivalent = BY_RULE_TEXT.get(rule["rule"])
        if equivalent is not None:
            out.update({k: _declared(v) if k in ("anyOf", "allOf", "oneOf") else v
                        for k, v in equivalent.json_schema.items()})
    return out


_KEYWORD_TYPES = {"pattern": "string", "maxLength": "string", "minLength": "string", "format": "string",
                  "minimum": "integer", "maximum": "integer", "exclusiveMinimum": "integer",
                  "exclusiveMaximum": "integer", "multipleOf": "integer"}


def _into_typed_branches(node: dict[str, Any]) -> None:
    """Move type-specific keywords of an int-or-string node into the ``anyOf`` branch of that type.

    ``{"anyOf": [{"type": "integer"}, {"type": "string"}], "pattern": …}`` (Kubernetes' quantity) means
    the same as putting the pattern on the string branch, since ``pattern`` ignores non-strings; Ajv's
    strict mode (``strictTypes``) only accepts the second spelling.
    """
    for keyword, kind in _KEYWORD_TYPES.items():
        if keyword not in node:
            continue
        branches = [b for b in node["anyOf"] if b.get("type") in ((kind, "number") if kind == "integer" else (kind,))]
        if not branches:
            continue
        value = node.pop(keyword)
        node["anyOf"] = [{**b, keyword: value} if b in branches else b for b in node["anyOf"]]


def _declared(branches: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Branches like ``{"required": ["s3"]}`` also name the property they require (``"s3": true``).

    Ajv's strict mode (``strictRequired``) rejects a ``required`` whose property the same subschema does
    not define; ``true`` adds no constraint, so validation is unchanged and the schema loads everywhere.
    """
    out = []
    for branch in branches:
        missing = [n for n in branch.get("required", []) if n not in branch.get("properties", {})]
        if missing:
            branch = {**branch, "properties": {**branch.get("properties", {}), **dict.fromkeys(missing, True)}}
        out.append(branch)
    return out

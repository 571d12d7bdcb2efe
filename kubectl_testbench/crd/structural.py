"""Kubernetes' structural-schema rules for CRD ``openAPIV3Schema``s, as a list of violations.

The API server rejects an ``apiextensions.k8s.io/v1`` CRD whose schema breaks these rules
(k8s.io/apiextensions-apiserver ``validation.go`` and ``schema/validation.go``); checking them here catches a
bad generated CRD before a cluster does:

1. every node has a ``type``, except where ``x-kubernetes-int-or-string`` or
   ``x-kubernetes-preserve-unknown-fields`` stand in (and inside ``allOf/anyOf/oneOf/not``, which only
   restrict values);
2. inside those junctors: no ``type``, ``default``, ``additionalProperties``, ``nullable`` or
   ``description``, except the two fixed int-or-string ``anyOf`` patterns;
3. no ``$ref``, ``definitions``, ``dependencies``, ``patternProperties``, ``additionalItems``, ``id``,
   ``$schema``, ``readOnly``, ``writeOnly``, ``xml``, ``discriminator``, ``deprecated``; no ``uniqueItems:
   true`` or ``additionalProperties: false``; ``items`` is one schema, not a list; ``properties`` and
   ``additionalProperties`` never together; ``x-kubernetes-preserve-unknown-fields`` is only ``true``;
4. the root is an object; under ``metadata`` only ``name`` and ``generateName`` may be restricted.
"""

from __future__ import annotations

from typing import Any

FORBIDDEN = ("$ref", "$schema", "additionalItems", "definitions", "dependencies", "deprecated", "discriminator",
             "id", "patternProperties", "readOnly", "writeOnly", "xml")
JUNCTORS = ("allOf", "anyOf", "oneOf")
NOT_IN_JUNCTOR = ("type", "default", "additionalProperties", "nullable", "description")
INT_OR_STRING_ANY_OF = (
    [{"type": "integer"}, {"type": "string"}],
    [{"type": "string"}, {"type": "integer"}],
)


def structural_errors(schema: dict[str, Any]) -> list[str]:
    """Every violation, as ``<path>: <problem>`` (empty when the schema is structural)."""
    problems: list[str] = []
    if schema.get("type") != "object":
        problems.append("<root>: type must be object")
    _walk(schema, "", False, problems)
    metadata = (schema.get("properties") or {}).get("metadata")
    if isinstance(metadata, dict):
        extra = set(metadata.get("properties") or {}) - {"name", "generateName"}
        problems.extend(f".metadata.{key}: only name and generateName may be restricted" for key in sorted(extra))
    return problems


def _walk(node: Any, path: str, in_junctor: bool, problems: list[str]) -> None:
    at = path or "<root>"
    if not isinstance(node, dict):
        problems.append(f"{at}: a schema must be an object")
        return
    problems.extend(f"{at}: {key} is not allowed" for key in FORBIDDEN if key in node)
    int_or_string = node.get("x-kubernetes-int-or-string") is True
    preserve = node.get("x-kubernetes-preserve-unknown-fields")
    if preserve is not None and preserve is not True:
        problems.append(f"{at}: x-kubernetes-preserve-unknown-fields must be true or absent")
    if not in_junctor and "type" not in node and not int_or_string and preserve is not True:
        problems.append(f"{at}: type is required")
    if int_or_string and "type" in node:
        problems.append(f"{at}: x-kubernetes-int-or-string must not have a type")
    if in_junctor:
        problems.extend(f"{at}: {key} is not allowed inside allOf/anyOf/oneOf/not" for key in NOT_IN_JUNCTOR
                        if key in node)
    if node.get("uniqueItems") is True:
        problems.append(f"{at}: uniqueItems cannot be true")
    if node.get("additionalProperties") is False:
        problems.append(f"{at}: additionalProperties cannot be false")
    if "properties" in node and "additionalProperties" in node:
        problems.append(f"{at}: properties and additionalProperties are mutually exclusive")
    if isinstance(node.get("items"), list):
        problems.append(f"{at}: items must be a single schema, not a list")
    for key, child in (node.get("properties") or {}).items():
        _walk(child, f"{path}.{key}", in_junctor, problems)
    if isinstance(node.get("additionalProperties"), dict):
        _walk(node["additionalProperties"], f"{path}.*", in_junctor, problems)
    if isinstance(node.get("items"), dict):
        _walk(node["items"], f"{path}[]", in_junctor, problems)
    for junctor in JUNCTORS:
        children = node.get(junctor)
        if children is None:
            continue
        if int_or_string and junctor == "anyOf" and children in INT_OR_STRING_ANY_OF:
            continue
        for i, child in enumerate(children):
            _walk(child, f"{path}.{junctor}[{i}]", True, problems)
    if "not" in node:
        _walk(node["not"], f"{path}.not", True, problems)

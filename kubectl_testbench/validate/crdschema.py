"""The generated CRD the validator enforces, loaded from the package (no pydantic at validation time)."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from kubectl_testbench.model.constants import VERSION
from kubectl_testbench.package_data import GENERATED_DIR
from kubectl_testbench.validate.schema import SchemaValidator

GENERATED = GENERATED_DIR / "experiment-crd.json"


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


@cache
def refused_rules() -> dict[tuple[tuple[str, ...], int], Any]:
    """Rules of the CRD the API server would refuse for their estimated cost, by (schema path, index).

    Empty for the CRD we ship (a test keeps it so). The answer was computed when the package was built
    (:mod:`kubectl_testbench.validate.cel.shipped`), so no run imports celpy to recompute it; without that
    table it is computed once and remembered in the CEL store.
    """
    from kubectl_testbench.validate.cel.cost import CostFinding
    from kubectl_testbench.validate.cel.shipped import shipped

    saved = shipped().refused
    if saved is None:
        import hashlib

        from kubectl_testbench.validate.cel.store import store

        schema = open_api_schema()
        key = "cost:" + hashlib.sha256(json.dumps(schema, sort_keys=True).encode()).hexdigest()
        cache = store()
        saved = cache.analyses.get(key)
        if saved is None:
            found = refused_in(schema)
            saved = [[list(path), index, f.path, f.message] for (path, index), f in found.items()]
            cache.put_analysis(key, saved)
    return {(tuple(path), index): CostFinding(where, message, tuple(path)) for path, index, where, message in saved}


def refused_in(schema: dict[str, Any]) -> dict[tuple[tuple[str, ...], int], Any]:
    """Per rule, the API server's cost finding that refuses it (the CRD total refuses every rule)."""
    from kubectl_testbench.validate.cel.cost import check_schema, rule_locations
    from kubectl_testbench.validate.cel.environment import environment
    from kubectl_testbench.validate.cel.syntax import rewrite

    def compile_rule(rule: str) -> Any:
        try:
            return environment().compile(rewrite(rule))
        except Exception:  # celpy's and Lark's parse errors: the server reports those, not a cost
            return None

    out: dict[tuple[tuple[str, ...], int], Any] = {}
    findings = check_schema(schema, compile_rule)
    for finding in findings:
        if finding.path.endswith(".rule"):
            index = int(finding.path.rsplit("[", 1)[1].partition("]")[0])
            out[(finding.schema_path, index)] = finding
    for finding in findings:
        if not finding.path.endswith(".rule"):
            for location in rule_locations(schema):
                out.setdefault(location, finding)
    return out


def schema_type_at(path: tuple[str | int, ...]) -> str | None:
    """The OpenAPI type the CRD declares at a document path (None where it declares none: free-form fields)."""
    if path[:1] == ("metadata",):  # ObjectMeta is not part of the CRD's schema
        from kubectl_testbench.validate.metadata import metadata_type_at

        return metadata_type_at(path)
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
    if node is None:
        return None
    kind: str | None = node.get("type")  # free-form (x-kubernetes-preserve-unknown-fields) nodes declare none
    return kind

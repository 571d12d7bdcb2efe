"""What the CRD we ship needs from CEL, computed by celpy when the package is built, not on every run.

A rule's outcome depends only on the rule and on the projection of ``self`` it observes (see
:mod:`kubectl_testbench.validate.cel`). For a rule that only tests presence with ``has()``, as the
dataset rule does, those projections are few (2³ for three fields): ``python -m
kubectl_testbench.crd.artifacts --write`` evaluates every one with celpy and writes them, with each
rule's analysis and the API server's cost verdict on the CRD, to ``_generated/cel-rules.json``. A run
that finds its answer there needs neither celpy nor Lark; anything else (a projection not listed, a rule
that reads values, another CRD) is evaluated as before. A drift test regenerates the file, and another
checks every listed outcome against celpy through both parser paths.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from kubectl_testbench.package_data import GENERATED_DIR

GENERATED = GENERATED_DIR / "cel-rules.json"
MAX_PROJECTIONS = 4096
"""A presence-only rule over more paths than this is left to run-time evaluation."""


class Shipped:
    """The loaded table (a plain class: a dataclass costs a start-up's worth of code generation)."""

    def __init__(self, analyses: dict[str, Any] | None = None, outcomes: dict[str, list[Any]] | None = None,
                 refused: list[Any] | None = None) -> None:
        self.analyses: dict[str, Any] = analyses or {}
        self.outcomes: dict[str, list[Any]] = outcomes or {}
        self.refused = refused
        """The cost check's findings for the packaged CRD (None: not known, compute them)."""


_SHIPPED: Shipped | None = None


def shipped() -> Shipped:
    """The generated table, loaded once; empty when it is missing or unreadable (everything is computed)."""
    global _SHIPPED
    if _SHIPPED is None:
        _SHIPPED = load(GENERATED)
    return _SHIPPED


def load(path: Path) -> Shipped:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return Shipped(dict(data["analyses"]), dict(data["outcomes"]), list(data["refused"]))
    except (OSError, ValueError, KeyError, TypeError):
        return Shipped()


# --- generation ---------------------------------------------------------------------------------------


def rules_of(schema: dict[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Every rule of a structural schema with the node it is bound to."""
    found = [(spec, schema) for spec in schema.get("x-kubernetes-validations", ())]
    for child in (schema.get("properties") or {}).values():
        found += rules_of(child)
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            found += rules_of(schema[key])
    return found


def presence_projections(presence: list[tuple[str, ...]]) -> list[Any]:
    """Every projection a presence-only rule can see: each path absent, present, or cut short on the way.

    A document is built for every choice of how deep each path goes. Every node is an object: a path's
    inner nodes must be (the schema says so), and at a path's end only presence is observed, which
    :func:`~kubectl_testbench.validate.cel.project` turns into the same placeholder whatever the value.
    """
    from kubectl_testbench.validate.cel import project

    seen: dict[str, Any] = {}
    for depths in itertools.product(*(range(len(path) + 1) for path in presence)):
        value: dict[str, Any] = {}
        for path, depth in zip(presence, depths, strict=True):
            node = value
            for segment in path[:depth]:
                node = node.setdefault(segment, {})
        projected = project(value, presence, [])
        seen.setdefault(json.dumps(projected, sort_keys=True), projected)
    return [seen[k] for k in sorted(seen)]


def table(schema: dict[str, Any]) -> dict[str, Any]:
    """The analyses, outcomes and cost findings of ``schema``'s rules, evaluated with celpy."""
    from kubectl_testbench.validate.cel import CompiledRule, analysis_key, outcome_key, saved_outcome
    from kubectl_testbench.validate.crdschema import refused_in

    analyses: dict[str, Any] = {}
    outcomes: dict[str, list[Any]] = {}
    for spec, node in rules_of(schema):
        rule = CompiledRule(spec)
        analysis = rule.analysis()
        analyses[analysis_key(spec)] = analysis
        presence = [tuple(p) for p in analysis["presence"]]
        size = 1
        for path in presence:
            size *= len(path) + 1
        if rule.compile_error or analysis["transition"] or analysis["values"] or size > MAX_PROJECTIONS:
            continue
        for projected in presence_projections(presence):
            outcome = rule.evaluate(projected, node)
            if not outcome.stopped:  # (only a transition rule is skipped, and those were left out above)
                outcomes[outcome_key(spec, projected)] = saved_outcome(outcome)
    refused = [[list(path), index, f.path, f.message] for (path, index), f in sorted(refused_in(schema).items())]
    return {"analyses": analyses, "outcomes": outcomes, "refused": refused}


def table_text(schema: dict[str, Any]) -> str:
    payload = {"comment": "generated by python -m kubectl_testbench.crd.artifacts --write: celpy's verdicts on "
                          "the packaged CRD's rules; do not edit", **table(schema)}
    return json.dumps(payload, indent=1, sort_keys=True, ensure_ascii=False) + "\n"

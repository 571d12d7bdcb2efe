"""``kubectl explain`` for Experiments: field docs, types and constraints from the generated CRD."""

from __future__ import annotations

import textwrap
from typing import Any

from kubectl_testbench.crd.object_meta import TYPE_KEY, with_object_meta
from kubectl_testbench.model.constants import GROUP, KIND, PLURAL, SHORT_NAMES, SINGULAR, VERSION

RESOURCE_NAMES = frozenset({KIND.lower(), PLURAL, SINGULAR, *SHORT_NAMES, f"{PLURAL}.{GROUP}"})


class ExplainError(Exception):
    pass


def resolve(schema: dict[str, Any], field: str) -> tuple[list[str], dict[str, Any], bool]:
    """The path segments, schema node and required-ness for ``experiment.spec.dataset``-style input."""
    schema = with_object_meta(schema)
    parts = [p for p in field.replace("[]", "").split(".") if p]
    if parts and parts[0].lower() in RESOURCE_NAMES:
        parts = parts[1:]
    node = schema
    required = False
    walked: list[str] = []
    for part in parts:
        node = _unwrap_array(node)
        props = node.get("properties") or {}
        if part not in props:
            match = next((p for p in props if p.lower() == part.lower()), None)
            where = ".".join(walked) or KIND.lower()
            if match is None:
                from kubectl_testbench.validate.fix_choices import near

                known = ", ".join(sorted(props)) or "none"
                close = near(part, sorted(props))
                guess = f'; did you mean "{close[0]}"?' if len(close) == 1 else ""
                raise ExplainError(f'field "{part}" does not exist in {where}{guess} (fields: {known})')
            part = match
        required = part in (node.get("required") or ())
        node = props[part]
        walked.append(part)
    return walked, node, required


def _unwrap_array(node: dict[str, Any]) -> dict[str, Any]:
    while node.get("type") == "array" and isinstance(node.get("items"), dict):
        node = node["items"]
    return node


def type_label(node: dict[str, Any]) -> str:
    if isinstance(node.get(TYPE_KEY), str):
        return str(node[TYPE_KEY])
    t = node.get("type")
    if t == "array":
        return "[]" + type_label(node.get("items") or {})
    if t == "object":
        if node.get("properties"):
            return "Object"
        values = node.get("additionalProperties")
        return "map[string]" + (type_label(values) if isinstance(values, dict) else "Object")
    if node.get("x-kubernetes-int-or-string"):
        return "IntOrString"
    if t is None:
        return "Object" if node.get("x-kubernetes-preserve-unknown-fields") else "any"
    return str(t)


def _constraints(node: dict[str, Any]) -> list[str]:
    out = []
    if "enum" in node:
        out.append("ENUM: " + ", ".join(str(v) for v in node["enum"]))
    if "minimum" in node or "maximum" in node:
        out.append(f"RANGE: {node.get('minimum', '-inf')} .. {node.get('maximum', 'inf')}")
    if "pattern" in node:
        out.append(f"PATTERN: {node['pattern']}")
    if "minItems" in node:
        out.append(f"MIN ITEMS: {node['minItems']}")
    for rule in node.get("x-kubernetes-validations", ()):
        out.append(f"RULE: {rule['rule']}  ({rule.get('message', '')})")
    if node.get("x-kubernetes-preserve-unknown-fields"):
        out.append("FREE-FORM: any JSON value is kept as written")
    return out


def explain(schema: dict[str, Any], field: str, recursive: bool = False) -> str:
    """The text ``kubectl explain`` prints for the field."""
    schema = with_object_meta(schema)
    walked, node, required = resolve(schema, field)
    lines = [f"GROUP:      {GROUP}", f"KIND:       {KIND}", f"VERSION:    {VERSION}", ""]
    name = walked[-1] if walked else KIND
    lines.append(f"FIELD: {name} <{type_label(node)}>" + (" -required-" if required else ""))
    lines.append("")
    lines.append("DESCRIPTION:")
    doc = node.get("description") or (node.get("items") or {}).get("description") or "<empty>"
    lines.extend(_indent(doc, 4))
    extra = _constraints(node)
    if node.get("type") == "array":
        extra += _constraints(_unwrap_array(node))
    if extra:
        lines.append("")
        lines.append("CONSTRAINTS:")
        lines.extend("    " + c for c in dict.fromkeys(extra))
    body = _unwrap_array(node)
    props = body.get("properties") or {}
    if props:
        lines.append("")
        lines.append("FIELDS:")
        if recursive:
            _tree(body, 1, lines)
        else:
            req = set(body.get("required") or ())
            for key in sorted(props):
                child = props[key]
                lines.append(f"  {key}\t<{type_label(child)}>" + (" -required-" if key in req else ""))
                lines.extend(_indent(child.get("description") or "<no description>", 4))
                lines.append("")
            while lines and not lines[-1]:
                lines.pop()
    return "\n".join(lines) + "\n"


def _tree(node: dict[str, Any], depth: int, lines: list[str]) -> None:
    req = set(node.get("required") or ())
    for key in sorted(node.get("properties") or {}):
        child = node["properties"][key]
        lines.append("  " * depth + f"{key}\t<{type_label(child)}>" + (" -required-" if key in req else ""))
        inner = _unwrap_array(child)
        if inner.get("properties"):
            _tree(inner, depth + 1, lines)


def _indent(text: str, n: int) -> list[str]:
    out: list[str] = []
    for para in text.split("\n"):
        # a URL is one word: never cut inside it, nor at its hyphens (kubectl explain keeps links whole too)
        wrapped = textwrap.wrap(para, width=80 - n, break_long_words=False, break_on_hyphens=False) or [""]
        out.extend(" " * n + w for w in wrapped)
    return out


def metrics_table() -> str:
    """The metrics the evaluate phase can score with the reference data each needs, then those it cannot."""
    from kubectl_testbench.validate.metrics import NEEDS, OLD_NAMES, PARAMETERS, PHASE_PACKAGE, UNSCORABLE

    lines = [f"Metrics that score with {PHASE_PACKAGE} (the phase image's package):", "",
             "METRIC                               NEEDS (besides the step input)        PARAMETERS"]
    for name in sorted(NEEDS):
        needs = ", ".join(f"reference.{n}" for n in NEEDS[name]) or "-"
        lines.append(f"{name:36} {needs:37} {', '.join(PARAMETERS[name]) or '-'}".rstrip())
    lines += ["", "Never scored (validate reports them as errors):", ""]
    lines += [f"{name:36} {UNSCORABLE[name]}" for name in sorted(UNSCORABLE)]
    lines += [f"{name:36} old name of {new}; not in ragas.metrics.collections"
              for name, new in sorted(OLD_NAMES.items())]
    return "\n".join(lines) + "\n"

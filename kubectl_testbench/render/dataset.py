"""The inline dataset as ``experiment.json``: the snake_case file the run phase reads.

Same shape as the upstream operator writes (Go ``json.MarshalIndent``, two-space indent, HTML-safe
escapes, empty fields omitted), with two fixes: ``threshold: 0`` is kept (Go's ``omitempty`` drops it,
silently turning a 0 threshold into the default) and tool calls without ``args`` get ``args: {}``
(the run phase indexes ``args`` unconditionally).
"""

from __future__ import annotations

import json
from typing import Any

CONFIGMAP_KEY = "experiment.json"
_GO_HTML_ESCAPES = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
                                  "\u2028": "\\u2028", "\u2029": "\\u2029"})


def experiment_document(inline: dict[str, Any]) -> dict[str, Any]:
    """The snake_case experiment document for a validated ``spec.dataset.inline``."""
    out: dict[str, Any] = {}
    if inline.get("llmAsAJudgeModel"):
        out["llm_as_a_judge_model"] = inline["llmAsAJudgeModel"]
    if inline.get("defaultThreshold") is not None:
        out["default_threshold"] = inline["defaultThreshold"]
    out["scenarios"] = [
        {"name": s.get("name", ""), "steps": [_step(step) for step in s.get("steps") or ()]}
        for s in inline.get("scenarios") or ()
    ]
    return out


def _step(step: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"input": step.get("input", "")}
    ref = step.get("reference")
    if isinstance(ref, dict):
        r: dict[str, Any] = {}
        if ref.get("response"):
            r["response"] = ref["response"]
        if ref.get("toolCalls"):
            r["tool_calls"] = [
                {"name": tc.get("name", ""), "args": tc["args"] if tc.get("args") is not None else {}}
                for tc in ref["toolCalls"]
            ]
        if ref.get("topics"):
            r["topics"] = list(ref["topics"])
        if ref.get("retrievedContexts"):
            r["retrieved_contexts"] = list(ref["retrievedContexts"])
        out["reference"] = r
    if step.get("customValues") is not None:
        out["custom_values"] = step["customValues"]
    if step.get("metrics"):
        metrics = []
        for m in step["metrics"]:
            item: dict[str, Any] = {"metric_name": m.get("metricName", "")}
            if m.get("threshold") is not None:
                item["threshold"] = m["threshold"]
            if m.get("parameters") is not None:
                item["parameters"] = m["parameters"]
            metrics.append(item)
        out["metrics"] = metrics
    return out


def experiment_json_size(inline: dict[str, Any]) -> int:
    """``len(experiment_json(inline).encode())``, without the slow indenting encoder.

    Python's JSON encoder is in C only without ``indent``; the indented size is the compact size plus,
    per non-empty container, a newline and indentation before each member and before the closing bracket.
    Validation needs only the size (the 1 MiB ConfigMap check), so it never pays for the indenting.
    """
    doc = experiment_document(inline)
    compact = json.dumps(doc, separators=(",", ": "), sort_keys=True, ensure_ascii=False, allow_nan=False)
    escapes = sum(compact.count(ch) for ch in "<>&") * 5 + (compact.count("\u2028") + compact.count("\u2029")) * 3
    return len(compact.encode()) + escapes + _indent_bytes(doc, 0)


def _indent_bytes(value: Any, depth: int) -> int:
    if isinstance(value, dict):
        items: Any = value.values()
    elif isinstance(value, list):
        items = value
    else:
        return 0
    n = len(value)
    if n == 0:
        return 0
    total = n * (1 + 2 * (depth + 1)) + 1 + 2 * depth
    for item in items:
        if isinstance(item, (dict, list)):
            total += _indent_bytes(item, depth + 1)
    return total


def experiment_json(inline: dict[str, Any]) -> str:
    """``experiment.json`` text: sorted keys, two-space indent, escapes as Go's encoder writes them."""
    text = json.dumps(experiment_document(inline), indent=2, sort_keys=True, ensure_ascii=False,
                      allow_nan=False)
    return text.translate(_GO_HTML_ESCAPES)

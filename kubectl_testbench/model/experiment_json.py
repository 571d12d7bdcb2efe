"""The inline dataset as ``experiment.json``: the snake_case file the run phase reads.

Same bytes as the upstream operator writes (experiment_controller.go@a8e16f1 ``buildExperimentJSON``: Go
``json.MarshalIndent`` of its own structs): keys in the structs' declaration order, two-space indent, HTML-safe
escapes, Go's float formatting, empty fields omitted. Only the raw ``args``, ``parameters`` and
``custom_values`` maps (``json.RawMessage``, the bytes the API server stored from a Go map) have sorted keys,
at every depth. Two fixes differ on purpose: ``threshold: 0`` is kept (Go's ``omitempty`` drops it, silently
turning a 0 threshold into the default) and tool calls without ``args`` get ``args: {}`` (the run phase's
model requires ``args``). tests/render/test_experiment_json_bytes.py pins the bytes.
"""

from __future__ import annotations

import json
import math
from json.encoder import encode_basestring
from typing import Any

from kubectl_testbench.emit.order import sorted_keys

CONFIGMAP_KEY = "experiment.json"
_GO_HTML_ESCAPES = (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"),
                    ("\u2029", "\\u2029"))
"""What Go's encoder escapes inside strings (none of these can occur outside one in JSON)."""


def experiment_document(inline: dict[str, Any]) -> dict[str, Any]:
    """The snake_case experiment document for a validated ``spec.dataset.inline``, keys in the operator's
    struct order (dicts keep insertion order; the encoder writes them as they are)."""
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
                {"name": tc.get("name", ""), "args": sorted_keys(tc["args"]) if tc.get("args") is not None else {}}
                for tc in ref["toolCalls"]
            ]
        if ref.get("topics"):
            r["topics"] = list(ref["topics"])
        if ref.get("retrievedContexts"):
            r["retrieved_contexts"] = list(ref["retrievedContexts"])
        out["reference"] = r
    if step.get("customValues") is not None:
        out["custom_values"] = sorted_keys(step["customValues"])
    if step.get("metrics"):
        metrics = []
        for m in step["metrics"]:
            item: dict[str, Any] = {"metric_name": m.get("metricName", "")}
            if m.get("threshold") is not None:
                item["threshold"] = m["threshold"]
            if m.get("parameters") is not None:
                item["parameters"] = sorted_keys(m["parameters"])
            metrics.append(item)
        out["metrics"] = metrics
    return out


def experiment_json_size(inline: dict[str, Any]) -> int:
    """``len(experiment_json(inline).encode())``, without building the indented text.

    Python's JSON encoder is in C only without ``indent``; the indented size is the compact size plus,
    per non-empty container, a newline and indentation before each member and before the closing bracket,
    plus the difference between Python's and Go's spelling of each float. Validation needs only the size
    (the 1 MiB ConfigMap check), so it never pays for the indenting.
    """
    doc = experiment_document(inline)
    compact = json.dumps(doc, separators=(",", ": "), sort_keys=True, ensure_ascii=False, allow_nan=False)
    escapes = sum(compact.count(ch) for ch in "<>&") * 5 + (compact.count("\u2028") + compact.count("\u2029")) * 3
    return len(compact.encode()) + escapes + _extra_bytes(doc, 0)


def _extra_bytes(value: Any, depth: int) -> int:
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
            total += _extra_bytes(item, depth + 1)
        elif isinstance(item, float):
            total += len(go_float(item)) - len(repr(item))
    return total


def go_float(value: float) -> str:
    """A float64 as Go's ``encoding/json`` writes it: shortest digits, fixed notation unless the magnitude is
    below 1e-6 or at least 1e21, exponents without a leading zero (``0.00001``, ``1e-7``, ``1e+21``, ``2``)."""
    magnitude = abs(value)
    if magnitude != 0 and (magnitude < 1e-6 or magnitude >= 1e21):
        mantissa, _, exponent = repr(value).partition("e")
        if exponent.startswith("-0"):
            exponent = "-" + exponent[2:]
        return f"{mantissa}e{exponent}"
    if value.is_integer():
        return ("-0" if math.copysign(1.0, value) < 0 else "0") if value == 0 else str(int(value))
    text = repr(value)
    return text if "e" not in text else _fixed(text)


def _fixed(text: str) -> str:
    from decimal import Decimal

    return format(Decimal(text), "f")


def experiment_json(inline: dict[str, Any]) -> str:
    """``experiment.json`` text: struct-ordered keys, two-space indent, escapes and floats as Go's encoder writes
    them."""
    parts: list[str] = []
    _encode(experiment_document(inline), 0, parts)
    text = "".join(parts)
    for char, escape in _GO_HTML_ESCAPES:  # str.replace is C-fast; str.translate with a dict is not
        if char in text:
            text = text.replace(char, escape)
    return text


def _encode(value: Any, depth: int, out: list[str]) -> None:
    """``json.dumps(indent=2)`` in the document's own key order (pure Python with an indent anyway), Go's
    floats."""
    if isinstance(value, str):
        out.append(encode_basestring(value))  # what json.dumps(value, ensure_ascii=False) returns, without its
        # per-call encoder object (a quarter of rendering's profile went there)
    elif isinstance(value, dict):
        _members([(encode_basestring(key) + ": ", item) for key, item in value.items()], "{}", depth, out)
    elif isinstance(value, list):
        _members([("", item) for item in value], "[]", depth, out)
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif value is None:
        out.append("null")
    elif isinstance(value, int):
        out.append(str(value))
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{value!r} has no JSON form")
        out.append(go_float(value))
    else:
        raise TypeError(f"{type(value).__name__} is not JSON data")


def _members(members: list[tuple[str, Any]], brackets: str, depth: int, out: list[str]) -> None:
    """An object's ``"key": `` members or an array's items, one per line, indented as MarshalIndent does."""
    if not members:
        out.append(brackets)
        return
    pad = "\n" + "  " * (depth + 1)
    sep = brackets[0] + pad
    for prefix, item in members:
        out.append(sep + prefix)
        _encode(item, depth + 1, out)
        sep = "," + pad
    out.append("\n" + "  " * depth + brackets[1])

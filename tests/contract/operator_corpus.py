"""The Experiments the live operator and ``render`` are compared over (tests/contract/test_operator_live.py,
``scripts/operator-parity``): every Experiment of examples/ and tests/render/fixtures in each dataset mode, and
edge cases written here for what the operator's code treats specially.

The edge cases are the ones issue 31 names: the longest names (63 characters, the label-value limit, in a
namespace of 63), ``{{`` in user text (Testkube expressions), every dataset mode, a schedule, a trigger with
each concurrency policy, env with every ``valueFrom`` kind, tool calls without arguments, thresholds of 0, non-ASCII
and HTML-special text (Go's encoder escapes ``<``, ``>``, ``&``), and numbers Go and Python spell differently.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

from tests.contract.test_phase_contract import MODES, SOURCES, _as, _experiment


def _base(name: str, namespace: str = "edge", **spec: Any) -> dict[str, Any]:
    dataset = {"inline": {"llmAsAJudgeModel": "gpt-4o-mini", "scenarios": [{"name": "Smoke", "steps": [{
        "input": "Hello", "reference": {"response": "Hi"}, "metrics": [{"metricName": "AnswerAccuracy"}]}]}]}}
    return {"apiVersion": "testbench.agentic-layer.ai/v1alpha1", "kind": "Experiment",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"agentRef": {"name": "agent"}, "dataset": dataset, **spec}}


def _long_name(length: int) -> str:
    """A DNS label of ``length`` characters."""
    return "a" * (length - 1) + "z"


def _step(exp: dict[str, Any], **step: Any) -> dict[str, Any]:
    exp["spec"]["dataset"]["inline"]["scenarios"][0]["steps"] = [step]
    return exp


def edge_cases() -> dict[str, dict[str, Any]]:
    """File stem → Experiment."""
    cases: dict[str, dict[str, Any]] = {}
    # names: an Experiment's name becomes a label value, so render (semantic/label-value) and the API server take
    # at most 63 characters; with a namespace of 63 the object names stay under 253, and the operator's cut-and-hash
    # of longer names cannot be reached by an Experiment either side accepts
    cases["name-longest"] = _base(_long_name(63), namespace="n" * 62 + "z")
    cases["braces"] = _step(_base("braces", env=[{"name": "TEMPLATE", "value": "{{ config.x }} and {{"},
                                                 {"name": "CLOSE", "value": "}} {{\"{{\"}}"}]),
                            input="Render {{ user }} and {{", reference={"response": "{{ x }}"},
                            metrics=[{"metricName": "AnswerAccuracy"}])
    cases["braces-url"] = _base("braces-url", dataset={"url": "https://example.com/{{ env.X }}/experiment.json"})
    cases["schedule"] = _base("schedule", schedule={"cron": "*/15 2 * * 1-5", "timezone": "Europe/Berlin"})
    for policy in ("Allow", "Forbid", "Replace"):
        name = f"trigger-{policy.lower()}"
        cases[name] = _base(name, agentRef={"name": "agent", "namespace": "agents"},
                            trigger={"enabled": True, "concurrencyPolicy": policy})
    cases["trigger-default"] = _base("trigger-default", trigger={"enabled": True})
    cases["trigger-disabled"] = _base("trigger-disabled", trigger={"enabled": False})
    cases["env-value-from"] = _base("env-value-from", env=[
        {"name": "PLAIN", "value": "x"},
        {"name": "EMPTY", "value": ""},
        {"name": "SECRET", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k", "optional": True}}},
        {"name": "CONFIG", "valueFrom": {"configMapKeyRef": {"name": "c", "key": "k"}}},
        {"name": "FIELD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
        {"name": "FIELD_VERSIONED", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.uid"}}},
        {"name": "RESOURCE", "valueFrom": {"resourceFieldRef": {"resource": "limits.memory", "divisor": "1Mi"}}},
        {"name": "FILE", "valueFrom": {"fileKeyRef": {"volumeName": "v", "path": "p.env", "key": "K"}}},
    ])
    cases["tool-calls"] = _step(_base("tool-calls"), input="Weather?", reference={"toolCalls": [
        {"name": "no_args"}, {"name": "empty_args", "args": {}},
        {"name": "nested", "args": {"b": [1, 2.5, "x"], "a": {"z": None, "y": True}}}]},
        metrics=[{"metricName": "ToolCallAccuracy", "threshold": 0}])
    cases["thresholds"] = _base("thresholds")
    cases["thresholds"]["spec"]["dataset"]["inline"].update(defaultThreshold=0)
    _step(cases["thresholds"], input="question", reference={"response": "answer"},
          metrics=[{"metricName": "AnswerAccuracy", "threshold": 0}, {"metricName": "AnswerAccuracy", "threshold": 1},
                   {"metricName": "AnswerAccuracy", "threshold": 0.1}, {"metricName": "AnswerAccuracy",
                                                                       "threshold": 0.123456789012}])
    cases["non-ascii"] = _step(_base("non-ascii", env=[{"name": "GREETING", "value": "Grüße 😀 <b>&amp;</b>"}]),
                               input="Wie wird das Wetter in München? <script>&\u2028", reference={
                                   "response": "Sonnig ☀", "topics": ["Wetter", "日本語"],
                                   "retrievedContexts": ["ctx \u00e9"]},
                               customValues={"zahl": 1e21, "klein": 1e-7, "ganz": 12345678901234, "text": "ö"},
                               metrics=[{"metricName": "AnswerAccuracy", "parameters": {"ä": "ü"}}])
    cases["gateway-ref"] = _base("gateway-ref", aiGatewayRef={"name": "team-gateway", "namespace": "gateways"})
    cases["gateway-ref-local"] = _base("gateway-ref-local", aiGatewayRef={"name": "local-gateway"})
    cases["multi-turn"] = _base("multi-turn")
    cases["multi-turn"]["spec"]["dataset"]["inline"]["scenarios"] = [
        {"name": f"S{i}", "steps": [{"input": f"turn {j}", "metrics": [{"metricName": "AnswerAccuracy"}]}
                                    for j in range(3)]} for i in range(2)]
    return cases


def write_corpus(d: Path) -> list[Path]:
    """Every corpus Experiment as a file in ``d``; the files, sorted."""
    d.mkdir(parents=True, exist_ok=True)
    docs: dict[str, dict[str, Any]] = {}
    for path in SOURCES:
        for mode in MODES:
            docs[f"{path.stem}-{mode}"] = _as(copy.deepcopy(_experiment(path)), mode)
    docs.update(edge_cases())
    for stem, doc in docs.items():
        (d / f"{stem}.yaml").write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True))
    return sorted(d / f"{stem}.yaml" for stem in docs)

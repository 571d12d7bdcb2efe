"""What render writes equals what the upstream operator creates, object content for object content, except for the
differences docs/render.md lists. The operator side is tests/contract/operator.py (buildTestWorkflow restated);
experiment.json bytes are compared with Go itself in tests/render/test_experiment_json_go.py."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from kubectl_testbench.render.compile import render_experiment
from kubectl_testbench.render.escape import literal
from kubectl_testbench.render.settings import Defaults, Flags
from tests.contract.operator import operator_objects
from tests.contract.test_phase_contract import MODES, SOURCES, _as, _experiment

SAME_GATEWAY = Defaults(gateway_name="ai-gateway", gateway_namespace="ai-gateway")
"""The gateway the operator finds (tests/contract/operator.py DEFAULT_GATEWAY), told to render."""


def _by_kind(objects: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {o["kind"]: o for o in objects}


def _unescaped(value: Any) -> Any:
    if isinstance(value, str):
        return value.replace(literal("{{"), "{{")  # what Testkube shows for a string render escaped
    if isinstance(value, dict):
        return {k: _unescaped(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unescaped(v) for v in value]
    return value


CASES = [(p, m) for p in SOURCES for m in MODES]
TRACING_SWITCH = {"name": "OTEL_SDK_DISABLED", "value": "true"}
"""What render adds when no OTLP endpoint is known (docs/render.md): the operator leaves the run phase exporting
spans to localhost:4318."""


def _without_tracing_switch(spec: dict[str, Any], experiment: dict[str, Any]) -> dict[str, Any]:
    """``spec`` minus the switch render adds, asserting it is there exactly when the Experiment names no endpoint."""
    out = copy.deepcopy(spec)
    names = {e.get("name") for e in experiment["spec"].get("env") or ()}
    env = out.get("container", {}).get("env", [])
    assert (TRACING_SWITCH in env) == (not names & {"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_SDK_DISABLED"})
    if TRACING_SWITCH in env:
        env.remove(TRACING_SWITCH)
        if not env:
            del out["container"]
    return out


@pytest.mark.parametrize(("path", "mode"), CASES, ids=[f"{p.stem}-{m}" for p, m in CASES])
def test_the_workflow_spec_is_the_operators(path: Path, mode: str) -> None:
    exp = _as(_experiment(path), mode)
    ours = _by_kind(render_experiment(copy.deepcopy(exp), Flags(), SAME_GATEWAY))
    theirs = _by_kind(operator_objects(exp))
    assert ours["TestWorkflow"]["metadata"]["name"] == theirs["TestWorkflow"]["metadata"]["name"]
    assert ours["TestWorkflow"]["metadata"]["namespace"] == theirs["TestWorkflow"]["metadata"]["namespace"]
    spec = _without_tracing_switch(ours["TestWorkflow"]["spec"], exp)
    assert _unescaped(spec) == theirs["TestWorkflow"]["spec"], "equal once render's {{ escaping is undone"
    if mode == "inline":
        assert ours["ConfigMap"]["metadata"]["name"] == theirs["ConfigMap"]["metadata"]["name"]


def test_escaping_is_the_only_difference_in_user_text() -> None:
    exp = _experiment(SOURCES[[p.stem for p in SOURCES].index("inline-fixes")])
    ours = _by_kind(render_experiment(copy.deepcopy(exp), Flags(), SAME_GATEWAY))["TestWorkflow"]["spec"]
    theirs = _by_kind(operator_objects(exp))["TestWorkflow"]["spec"]
    assert ours != theirs
    assert ours["container"]["env"][0] == {"name": "GREETING_TEMPLATE", "value": 'Hello {{"{{"}} user }}'}
    assert theirs["container"]["env"][0] == {"name": "GREETING_TEMPLATE", "value": "Hello {{ user }}"}

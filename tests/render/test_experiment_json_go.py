"""experiment.json against Go itself: the operator's structs marshalled by Go's encoding/json (tests/render/
goencoder/main.go, built with the Go toolchain on this machine) must write the same bytes as render, for every
inline dataset we have, except for the two documented fixes (``args: {}`` for tool calls without arguments,
``threshold: 0`` kept)."""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from kubectl_testbench.model.experiment_json import experiment_json
from kubectl_testbench.validate.engine import Options, validate_text
from tests.conftest import EXAMPLES, ROOT
from tests.go_toolchain import NO_GO, build_stdlib_program, go_binary
from tests.render.test_experiment_json_bytes import DATASET
from tests.validate.helpers import keep

SOURCE = Path(__file__).parent / "goencoder"
EDGE_CASES: list[dict[str, Any]] = [
    DATASET,
    {"defaultThreshold": 1, "scenarios": [{"name": "floats", "steps": [{"input": "x", "metrics": [
        {"metricName": "m", "threshold": 0.00001, "parameters": {"tiny": 1e-7, "big": 1e21, "half": 0.5, "n": -3}},
        {"metricName": "n", "threshold": 0.1}]}]}]},
    {"scenarios": [{"name": "text <&> \u2028\u2029 ünïcödé 😀", "steps": [{
        "input": "a \"quoted\" \\ back\tslash\n", "customValues": {"z": None, "y": [True, False, {"b": [], "a": {}}],
                                                                   "x": "<script>"}}]}]},
    {"llmAsAJudgeModel": "m", "scenarios": [{"name": "empty parts", "steps": [{"input": "", "reference": {},
                                                                               "customValues": {}}]}]},
]


@pytest.fixture(scope="module")
def goencoder(tmp_path_factory: pytest.TempPathFactory) -> str:
    if go_binary() is None:
        pytest.skip(NO_GO)
    return str(build_stdlib_program(SOURCE, tmp_path_factory.mktemp("goencoder"), "goencoder"))


def _go(binary: str, inline: dict[str, Any]) -> str:
    proc = subprocess.run([binary], input=json.dumps(inline).encode(), capture_output=True, timeout=60, check=True)
    return proc.stdout.decode()


def _datasets() -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = [(f"edge-case-{i}", d) for i, d in enumerate(EDGE_CASES)]
    for path in sorted(EXAMPLES.rglob("*.yaml")) + sorted((ROOT / "tests").rglob("*.yaml")):
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        if "kind: Experiment" not in text or "inline:" not in text:
            continue
        for exp in validate_text(text, str(path), Options(), keep=keep(experiments=True)).experiments:
            inline = exp.data["spec"]["dataset"].get("inline")
            if inline is not None:
                out.append((f"{path.relative_to(ROOT)}:{exp.line}", inline))
    return out


DATASETS = _datasets()


def _has_fixes(inline: dict[str, Any]) -> bool:
    for scenario in inline.get("scenarios", []):
        for step in scenario.get("steps", []):
            if any(tc.get("args") is None for tc in (step.get("reference") or {}).get("toolCalls") or []):
                return True
            if any(m.get("threshold") == 0 for m in step.get("metrics") or []):
                return True
    return False


@pytest.mark.parametrize(("origin", "inline"), DATASETS, ids=[o for o, _ in DATASETS])
def test_render_writes_the_bytes_go_writes_for_the_operators_structs(goencoder: str, origin: str,
                                                                     inline: dict[str, Any]) -> None:
    ours, go = experiment_json(inline), _go(goencoder, inline)
    if not _has_fixes(inline):
        assert ours == go
        return
    fixed = json.loads(go)
    for scenario, source in zip(fixed["scenarios"], inline["scenarios"], strict=True):
        for step, step_source in zip(scenario["steps"], source["steps"], strict=True):
            for call in step.get("reference", {}).get("tool_calls", []):
                call.setdefault("args", {})
            for metric, metric_source in zip(step.get("metrics", []), step_source.get("metrics") or [], strict=True):
                if metric_source.get("threshold") == 0:
                    metric["threshold"] = 0
    assert json.loads(ours) == fixed, "only the two documented fixes differ"


def test_the_fixes_are_exactly_where_go_differs(goencoder: str) -> None:
    inline = {"scenarios": [{"name": "s", "steps": [{"input": "i", "reference": {"toolCalls": [{"name": "t"}]},
                                                     "metrics": [{"metricName": "m", "threshold": 0}]}]}]}
    go = json.loads(_go(goencoder, copy.deepcopy(inline)))
    ours = json.loads(experiment_json(inline))
    assert go["scenarios"][0]["steps"][0] == {"input": "i", "reference": {"tool_calls": [{"name": "t"}]},
                                              "metrics": [{"metric_name": "m"}]}
    assert ours["scenarios"][0]["steps"][0] == {"input": "i", "reference": {"tool_calls": [{"name": "t", "args": {}}]},
                                                "metrics": [{"metric_name": "m", "threshold": 0}]}

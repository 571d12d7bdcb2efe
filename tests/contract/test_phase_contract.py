"""Done when: every example and every rendered golden workflow, resolved as Testkube will run it, in both install
modes and every dataset mode, meets the phase image's contract (tests/contract/phase_contract.py, from
SOURCES.md) and carries datasets the run phase's models accept (tests/contract/image_models.py).

- gitops mode: the workflows ``render`` writes, resolved against ``install --mode gitops``'s templates;
- operator mode: the workflows the upstream operator builds (tests/contract/operator.py), resolved against
  ``install --mode operator``'s templates (the default install);
- dataset modes: each Experiment as it is and turned into the other two modes (inline, s3, url).
Both modes assume the cluster's default AI gateway (``ai-gateway`` in ``ai-gateway``), as the operator finds it
and as the RenderDefaults next to the examples names it.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubectl_testbench.install import bundle
from kubectl_testbench.render.compile import render_experiment
from kubectl_testbench.render.defaults_file import discover, load_defaults
from kubectl_testbench.render.resolve import ResolvedWorkflow, resolve_objects
from kubectl_testbench.render.resolve.sources import templates_in
from kubectl_testbench.render.settings import Defaults, Flags
from kubectl_testbench.validate.engine import Options, validate_text
from tests.conftest import EXAMPLES, ROOT
from tests.contract import phase_contract
from tests.contract.operator import operator_objects
from tests.validate.helpers import keep

FIXTURES = ROOT / "tests" / "render" / "fixtures"
SOURCES = sorted(EXAMPLES.joinpath("experiments").glob("*.yaml")) + sorted(FIXTURES.glob("*.yaml"))
SOURCES = [p for p in SOURCES if "kind: Experiment" in p.read_text()]
GOLDEN = sorted((ROOT / "tests" / "render" / "golden").glob("*.yaml"))
FLUX_RENDERED = ROOT / "examples" / "gitops" / "flux" / "rendered"
MODES = ("inline", "s3", "url")
CLUSTER_GATEWAY = Defaults(gateway_name="ai-gateway", gateway_namespace="ai-gateway")
INLINE = {"llmAsAJudgeModel": "gpt-4o-mini", "scenarios": [{"name": "Smoke", "steps": [{
    "input": "Hello", "reference": {"response": "Hi"},
    "metrics": [{"metricName": "AgentGoalAccuracyWithReference"}]}]}]}


def _experiment(path: Path) -> dict[str, Any]:
    result = validate_text(path.read_text(), str(path), Options(), keep=keep(experiments=True))
    assert result.counts.invalid == 0, [d.message for d in result.diagnostics]
    [exp] = result.experiments
    return exp.data


def _mode(exp: dict[str, Any]) -> str:
    return next(m for m in MODES if exp["spec"]["dataset"].get(m) is not None)


def _as(exp: dict[str, Any], mode: str) -> dict[str, Any]:
    """The Experiment with its dataset in ``mode`` (its own dataset when it already is)."""
    if _mode(exp) == mode:
        return exp
    out = copy.deepcopy(exp)
    name = out["metadata"]["name"]
    out["spec"]["dataset"] = {"inline": {"inline": copy.deepcopy(INLINE)},
                              "s3": {"s3": {"bucket": "testbench-datasets", "key": f"{name}/experiment.json"}},
                              "url": {"url": f"https://datasets.example.com/{name}/experiment.json"}}[mode]
    return out


def _defaults(path: Path) -> Defaults:
    found = discover(str(path), str(path.parent))
    return load_defaults(found) if found else CLUSTER_GATEWAY


def _templates(mode: bundle.Mode) -> dict[str, dict[str, Any]]:
    return templates_in(bundle.objects(bundle.Options(mode=mode)))


def _resolve(objects: list[dict[str, Any]], mode: bundle.Mode) -> ResolvedWorkflow:
    result = resolve_objects(objects, _templates(mode))
    assert [str(err) for _, err in result.failures] == []
    [workflow] = result.workflows
    return workflow


OPERATOR_DEFECTS = {
    "inline-fixes": "spec.container.env[0].value: user: unknown variable (not a variable Testkube provides to a "
                    "TestWorkflow)",
}
"""Upstream operator defects render fixes (docs/render.md): it writes user text into the workflow unescaped, so
``Hello {{ user }}`` in spec.env becomes a Testkube expression."""


CASES = [(p, install, mode) for p in SOURCES for install in bundle.MODES for mode in MODES]


@pytest.mark.parametrize(("path", "install", "mode"), CASES,
                         ids=[f"{p.stem}-{i}-{m}" for p, i, m in CASES])
def test_every_experiment_meets_the_phase_contract_in_every_install_and_dataset_mode(path: Path, install: bundle.Mode,
                                                                                    mode: str) -> None:
    exp = _as(_experiment(path), mode)
    if install == "gitops":
        objects = render_experiment(exp, Flags(), _defaults(path))
    else:
        objects = operator_objects(exp)
        if path.stem in OPERATOR_DEFECTS:
            result = resolve_objects(objects, _templates(install))
            assert [str(err) for _, err in result.failures] == [OPERATOR_DEFECTS[path.stem]]
            exp["spec"]["env"] = [e for e in exp["spec"]["env"] if "{{" not in e.get("value", "")]
            objects = operator_objects(exp)
    problems = phase_contract.problems(_resolve(objects, install), mode)
    if install == "operator" and path.stem == "inline-fixes" and mode == "inline":
        assert problems == ["run: dataset scenarios[0].steps[0].reference.tool_calls[0].args: required by ToolCall"], \
            "the upstream operator omits args of tool calls without arguments (render writes args: {})"
        return
    assert problems == []


@pytest.mark.parametrize("path", GOLDEN + sorted(FLUX_RENDERED.glob("testworkflow_*.yaml")),
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_every_rendered_golden_workflow_meets_the_phase_contract(path: Path) -> None:
    """The committed render outputs themselves (goldens and the Flux example's rendered directory), resolved."""
    objects = [d for d in yaml.safe_load_all(path.read_text()) if d]
    if path.parent == FLUX_RENDERED:
        objects += [d for f in FLUX_RENDERED.glob("configmap_*.yaml") for d in yaml.safe_load_all(f.read_text()) if d]
    workflow_objects = [o for o in objects if o["kind"] == "TestWorkflow"]
    uses = [u["name"] for u in workflow_objects[0]["spec"]["use"]]
    mode = "inline" if "setup-template" not in uses else (
        "s3" if workflow_objects[0]["spec"]["use"][0]["config"]["datasetUrl"].startswith("s3://") else "url")
    for install in bundle.MODES:
        workflow = _resolve([o for o in objects if o["kind"] in ("TestWorkflow", "ConfigMap")], install)
        allowed_missing_key = path.parent != FLUX_RENDERED and "openAiApiKey" not in str(workflow_objects[0])
        problems = phase_contract.problems(workflow, mode)
        if allowed_missing_key:
            assert problems == ["evaluate: OPENAI_API_KEY is unset or empty: AsyncOpenAI() refuses it, every metric "
                                "is skipped"], "rendered with --no-defaults and no gateway: the warning's case"
        else:
            assert problems == []


def test_the_contract_check_can_fail_without_a_gateway() -> None:
    """What issue 14 found: no gateway means an empty key; the check says so for render and for the operator."""
    exp = _experiment(FIXTURES / "url-triggered.yaml")
    rendered = phase_contract.problems(_resolve(render_experiment(exp, Flags(), None), "gitops"), "url")
    operated = phase_contract.problems(_resolve(operator_objects(exp, gateway=None), "operator"), "url")
    expected = ["evaluate: OPENAI_API_KEY is unset or empty: AsyncOpenAI() refuses it, every metric is skipped"]
    assert rendered == operated == expected


def test_the_contract_check_catches_a_dataset_the_run_phase_rejects_and_a_shadowing_mount() -> None:
    exp = _experiment(EXAMPLES / "experiments" / "weather-inline.yaml")
    objects = render_experiment(exp, Flags())
    cm = next(o for o in objects if o["kind"] == "ConfigMap")
    cm["data"]["experiment.json"] = cm["data"]["experiment.json"].replace('"threshold"', '"thresh"').replace(
        '"default_threshold": 0.9', '"default_threshold": 9')
    problems = phase_contract.problems(_resolve(objects, "gitops"), "inline")
    assert "run: dataset default_threshold: 9 is outside [0, 1]" in problems
    s3 = render_experiment(_as(exp, "s3"), Flags())
    wf = next(o for o in s3 if o["kind"] == "TestWorkflow")
    wf["spec"]["content"] = {"files": [{"path": "/data/datasets/experiment.json", "content": "{}"}]}
    problems = phase_contract.problems(_resolve(s3, "gitops"), "s3")
    assert "setup: a mounted file shadows the dataset it writes" in problems

"""End to end with the real phase package: what ``render --resolve`` resolves, run by agentic-layer-testbench 0.10.0.

For every example and golden Experiment (tests/render/fixtures), both install modes and every dataset mode
(tests/phases/cases.py), the workflow is resolved as Testkube will run it (gitops: our CLI's ``render --resolve``;
operator: the upstream operator's TestWorkflow against ``install --mode operator``'s templates), each step becomes
a process of the cached phase environment with the resolved args, env and files, and only the in-cluster host
names point at stand-ins on 127.0.0.1 (A2A agent, judge, OTLP receiver, S3, static HTTP server). The cases run
two at a time (``KUBECTL_TESTBENCH_PHASE_JOBS``); each has its own stand-ins and directories.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from kubectl_testbench.local.values import Values
from kubectl_testbench.phases.env import Env
from tests.conftest import EXAMPLES, ROOT
from tests.phases import workflow as wf
from tests.phases.a2a_agent import TOOL, TOOL_ARGS, A2AAgentStandIn
from tests.phases.cases import CASES, Case, Observed, Prepared, dataset_of, prepare, run_case
from tests.phases.harness import PhaseResult, PhaseStep, run_phase, run_phases
from tests.phases.judge import JudgeStandIn

EVALUATED = "data/experiments/evaluated_experiment.json"
REPORT = "data/results/evaluation_report.html"
EXECUTION_ID = wf.EXECUTION.id
SCORABLE: dict[str, Any] = json.loads(
    (ROOT / "kubectl_testbench" / "_generated" / "metrics.json").read_text(encoding="utf-8"))["scorable"]
"""Which metrics ask the judge (``judge``), from the table generated from the installed package."""


def documented_attributes() -> set[str]:
    """The gauge attributes docs/metrics.md lists under "What the publish phase sends"."""
    text = (ROOT / "docs" / "metrics.md").read_text(encoding="utf-8")
    section = text.split("## What the publish phase sends", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `(\w+)` \|", section, re.MULTILINE))


def evaluations(root: Path) -> list[tuple[str, int, dict[str, Any]]]:
    """(scenario name, step index, evaluation) for every evaluation in the evaluated experiment."""
    data = json.loads((root / EVALUATED).read_text(encoding="utf-8"))
    return [(scenario["name"], index, evaluation) for scenario in data["scenarios"]
            for index, step in enumerate(scenario["steps"]) for evaluation in step.get("evaluations") or []]


def metrics_asked(dataset: dict[str, Any]) -> list[tuple[str, int, str]]:
    return [(scenario["name"], index, metric["metric_name"]) for scenario in dataset["scenarios"]
            for index, step in enumerate(scenario["steps"]) for metric in step.get("metrics") or []]


def assert_all_exit_zero(results: list[PhaseResult], expected: int) -> None:
    assert len(results) == expected, results[-1].explain()
    for result in results:
        assert result.returncode == 0, result.explain()


# --- the matrix, run two cases at a time -----------------------------------------------------------------------

class Runs:
    """Runs the selected cases in a thread pool, started at the first request; each test waits for its own."""

    def __init__(self, request: pytest.FixtureRequest, phase_env: Env, work: Path) -> None:
        self.request, self.phase_env, self.work = request, phase_env, work
        self.jobs = max(1, int(os.environ.get("KUBECTL_TESTBENCH_PHASE_JOBS") or 2))
        self.pool = ThreadPoolExecutor(max_workers=self.jobs, thread_name_prefix="phase-case")
        self.futures: dict[str, Future[Observed]] = {}

    def _selected(self) -> list[Case]:
        wanted = [item.callspec.params["case"] for item in self.request.session.items
                  if getattr(item, "originalname", "") == "test_experiment_runs_through_every_phase_and_scores"
                  and "case" in getattr(item, "callspec", pytest.Function).params]  # type: ignore[attr-defined]
        return wanted

    def _submit(self, case: Case) -> None:
        prepared = prepare(case, self.work)  # main thread: the CLI runner is not thread-safe
        s3_python = self.request.getfixturevalue("s3_env").python if case.mode == "s3" else None
        self.futures[case.id] = self.pool.submit(run_case, prepared, self.phase_env, s3_python, self.work / case.id)

    def get(self, case: Case) -> Observed:
        if not self.futures:
            for selected in self._selected():
                self._submit(selected)
        if case.id not in self.futures:
            self._submit(case)
        return self.futures[case.id].result()

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


@pytest.fixture(scope="session")
def runs(request: pytest.FixtureRequest, phase_env: Env, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runs]:
    runner = Runs(request, phase_env, tmp_path_factory.mktemp("phase-cases"))
    yield runner
    runner.close()


OPERATOR_TOOL_CALL_WITHOUT_ARGS = "inline-fixes-operator-inline"
"""The upstream operator omits ``args`` of a tool call without arguments; the run phase's model requires it
(docs/render.md, *Fixed upstream bugs*): the real run phase refuses the operator's dataset."""


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_experiment_runs_through_every_phase_and_scores(case: Case, runs: Runs) -> None:
    observed = runs.get(case)
    expected_steps = 4 if case.mode == "inline" else 5
    if case.id == OPERATOR_TOOL_CALL_WITHOUT_ARGS:
        assert [(r.step.phase, r.returncode) for r in observed.results] == [("run", 1)]
        assert "tool_calls.0.args" in observed.results[0].output and "Field required" in observed.results[0].output
        return
    assert_all_exit_zero(observed.results, expected_steps)
    assert_scored_published_and_reported(observed)


def assert_scored_published_and_reported(observed: Observed, key: str = "testbench") -> None:
    """Every metric scored; one gauge per score with the documented attributes; every scenario in the report;
    the agent asked every input in order; the judge saw the key the workflow configures."""
    prepared: Prepared = observed.prepared
    dataset = dataset_of(observed)
    name = next(s.argv[3] for s in observed.steps if s.phase == "run")
    asked = metrics_asked(dataset)
    scored = evaluations(observed.root)
    assert asked, "every case asks for at least one metric"
    assert [(s, i, e["metric"]["metric_name"]) for s, i, e in scored] == asked
    for scenario, index, evaluation in scored:
        assert isinstance(evaluation["result"].get("score"), float), (scenario, index, evaluation)
    assert observed.agent_inputs == [step["input"] for s in dataset["scenarios"] for step in s["steps"]]
    assert len(observed.gauges) == len(scored)
    for point, (scenario, index, evaluation) in zip(observed.gauges, scored, strict=True):
        assert point.metric == "testbench_evaluation_metric"
        assert point.value == evaluation["result"]["score"]
        assert set(point.attributes) == documented_attributes()
        assert (point.attributes["name"], point.attributes["scenario_name"], point.attributes["step_index"],
                point.attributes["experiment_name"], point.attributes["execution_id"],
                point.attributes["execution_number"], point.attributes["result"]) == (
            evaluation["metric"]["metric_name"], scenario, str(index), name, EXECUTION_ID, "1",
            evaluation["result"]["result"])
        assert point.resource["service.name"] == "testbench" and point.resource["experiment.name"] == name
    report = (observed.root / REPORT).read_text(encoding="utf-8")
    for scenario in dataset["scenarios"]:
        assert scenario["name"] in report or json.dumps(scenario["name"])[1:-1] in report, scenario["name"]
    if any(SCORABLE[metric]["judge"] for _, _, metric in asked):
        assert observed.judge_requests > 0 and set(observed.authorizations) == {f"Bearer {key}"}
    else:  # e.g. ToolCallAccuracy alone: scored without asking the judge
        assert observed.judge_requests == 0
    if prepared.case.mode == "url":
        assert len(observed.dataset_requests) == 1


def test_the_judge_key_comes_from_the_secret_the_defaults_file_names(phase_env: Env, tmp_path: Path) -> None:
    """RenderDefaults ``aiGateway.apiKeySecretRef``: render puts OPENAI_API_KEY from that Secret into the
    workflow's env, which wins over the evaluate template's placeholder; the judge sees the Secret's value."""
    defaults = tmp_path / "testbench-defaults.yaml"
    defaults.write_text((EXAMPLES / "experiments" / "testbench-defaults.yaml").read_text(encoding="utf-8").replace(
        "    namespace: ai-gateway\n", "    namespace: ai-gateway\n    apiKeySecretRef: {name: judge-credentials, "
        "key: api-key}\n", 1), encoding="utf-8")
    case = Case(EXAMPLES / "experiments" / "weather-inline.yaml", "gitops", "inline")
    workflow = wf.resolve_gitops(case.source, "--defaults", str(defaults))
    evaluate = next(s for s in workflow.steps if s.template == "evaluate-template")
    assert evaluate.env["OPENAI_API_KEY"].value_from == {"secretKeyRef": {"name": "judge-credentials",
                                                                           "key": "api-key"}}
    with pytest.raises(Exception, match="env OPENAI_API_KEY comes from secretKeyRef judge-credentials/api-key"):
        wf.local_steps(workflow, Values([]))
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "judge-credentials"},
              "data": {"api-key": "c2stZnJvbS10aGUtc2VjcmV0"}}  # base64 of sk-from-the-secret
    from tests.phases.cases import VALUES

    prepared = Prepared(case, workflow, None, [*VALUES, secret])
    observed = run_case(prepared, phase_env, None, tmp_path / "run")
    assert_all_exit_zero(observed.results, 4)
    assert_scored_published_and_reported(observed, key="sk-from-the-secret")


def test_every_metric_the_table_calls_scorable_scores_in_the_evaluate_phase(
        phase_env: Env, agent: A2AAgentStandIn, judge: JudgeStandIn, tmp_path: Path) -> None:
    """Each scorable metric of _generated/metrics.json, on a step with all the reference data, gets a number."""
    from kubectl_testbench.validate.metrics import NEEDS

    reference = {"response": "It is sunny in New York.", "tool_calls": [{"name": TOOL, "args": TOOL_ARGS}],
                 "topics": ["weather"]}
    dataset = {"llm_as_a_judge_model": "stand-in-judge", "scenarios": [
        {"name": name, "steps": [{"input": "What is the weather in New York?", "reference": reference,
                                  "metrics": [{"metric_name": name}]}]} for name in sorted(NEEDS)]}
    env = {"OPENAI_BASE_URL": judge.base_url, "OPENAI_API_KEY": "testbench", "OTEL_SDK_DISABLED": "true"}
    steps = [PhaseStep("run", ("-m", "testbench.run", agent.url, "all-metrics"), env,
                       files={"/data/datasets/experiment.json": json.dumps(dataset).encode()}),
             PhaseStep("evaluate", ("-m", "testbench.evaluate"), env)]
    results = run_phases(phase_env, steps, tmp_path)
    assert_all_exit_zero(results, 2)
    scores = {e["metric"]["metric_name"]: e["result"].get("score") for _, _, e in evaluations(tmp_path)}
    assert scores.keys() == NEEDS.keys()
    assert {name for name, score in scores.items() if not isinstance(score, float)} == set()


def test_committed_metrics_table_matches_the_installed_phase_package(phase_env: Env) -> None:
    from kubectl_testbench.generate.metrics import introspect, render
    from kubectl_testbench.validate.metrics import GENERATED

    assert GENERATED.read_text(encoding="utf-8") == render(introspect(phase_env)), (
        "kubectl_testbench/_generated/metrics.json is out of date: "
        "run python -m kubectl_testbench.generate --write metrics")



# --- the OTLP stall --------------------------------------------------------------------------------------------

def test_without_an_otlp_endpoint_the_run_phase_no_longer_stalls(phase_env: Env, agent: A2AAgentStandIn,
                                                                  judge: JudgeStandIn, tmp_path: Path) -> None:
    """Rendered with a gateway and no OTLP endpoint, the workflow carries OTEL_SDK_DISABLED=true: the real run
    phase exports no span (no retries against localhost:4318) and publish skips itself; all phases exit 0. The
    same run step without the switch (what render wrote before) does try localhost:4318 (the stall;
    benchmarks/phases.py times it), here cut short with a 1 s exporter timeout."""
    defaults = tmp_path / "defaults.yaml"
    defaults.write_text("apiVersion: testbench.agentic-layer.ai/v1alpha1\nkind: RenderDefaults\nmetadata: {name: x}\n"
                        "spec:\n  aiGateway: {name: ai-gateway, namespace: ai-gateway}\n", encoding="utf-8")
    weather = EXAMPLES / "experiments" / "weather-inline.yaml"
    text = weather.read_text(encoding="utf-8")
    experiment = tmp_path / "weather.yaml"
    experiment.write_text(text.split("  env:\n", 1)[0] + "  dataset:" + text.split("  dataset:", 1)[1],
                          encoding="utf-8")
    workflow = wf.resolve_gitops(experiment, "--defaults", str(defaults))
    assert all(s.env_value("OTEL_SDK_DISABLED") == "true" and "OTEL_EXPORTER_OTLP_ENDPOINT" not in s.env
               for s in workflow.steps)
    steps = wf.phase_steps(workflow, Values([]), {"agent": agent.url, "gateway": judge.url})

    results = run_phases(phase_env, steps, tmp_path / "container")

    assert_all_exit_zero(results, 4)
    run = next(r for r in results if r.step.phase == "run")
    assert "4318" not in run.output and "Failed to export" not in run.output, run.output[-2000:]
    publish = next(r for r in results if r.step.phase == "publish")
    assert "OTEL_EXPORTER_OTLP_ENDPOINT not set" in publish.output
    assert all(isinstance(e["result"].get("score"), float) for _, _, e in evaluations(tmp_path / "container"))

    before = PhaseStep("run", run.step.argv, {**{k: v for k, v in run.step.env.items() if k != "OTEL_SDK_DISABLED"},
                                              "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": "1"},
                       files=dict(steps[0].files))
    stalled = run_phase(phase_env, before, tmp_path / "before")
    assert stalled.returncode == 0, stalled.explain()
    assert "4318" in stalled.output, stalled.output[-2000:]

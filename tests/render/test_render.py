"""render: operator parity, upstream fixes, settings precedence, GitOps annotations, determinism."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubectl_testbench.render.compile import render_experiment
from kubectl_testbench.render.settings import Defaults, Flags
from kubectl_testbench.validate.engine import Options, validate_text
from tests.conftest import UPSTREAM, require_reference, run_cli
from tests.validate.helpers import keep

HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures"
GOLDEN = HERE / "golden"


def experiment(path: Path) -> dict[str, Any]:
    result = validate_text(path.read_text(), str(path), Options(), keep=keep(experiments=True))
    assert result.counts.invalid == 0, [d.message for d in result.diagnostics]
    [exp] = result.experiments
    return exp.data


def by_kind(objects: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {o["kind"]: o for o in objects}


@pytest.mark.parametrize("name", ["s3-scheduled", "url-triggered", "inline-fixes"])
def test_golden_output(name: str) -> None:
    result = run_cli("render", str(FIXTURES / f"{name}.yaml"), "--no-defaults")
    assert result.exit_code == 0, result.output
    golden = GOLDEN / f"{name}.yaml"
    if os.environ.get("UPDATE_GOLDEN") and result.stdout != golden.read_text():
        golden.write_text(result.stdout)
        pytest.fail(f"{golden.name} rewritten (UPDATE_GOLDEN): review the diff, then run again without it")
    assert result.stdout == golden.read_text()


def test_upstream_docs_example_renders_what_the_operator_creates() -> None:
    sample = require_reference(UPSTREAM / "samples" / "inline-example.yaml")
    objects = render_experiment(experiment(sample), Flags())
    assert [o["kind"] for o in objects] == ["ConfigMap", "TestWorkflow"]
    cm, wf = by_kind(objects)["ConfigMap"], by_kind(objects)["TestWorkflow"]
    assert cm["metadata"]["name"] == "example-experiment-testkube-experiment"
    assert wf["metadata"]["name"] == "example-experiment-testkube-workflow"
    assert cm["metadata"]["namespace"] == wf["metadata"]["namespace"] == "testkube"
    assert wf["metadata"]["labels"] == {
        "app.kubernetes.io/managed-by": "kubectl-testbench",
        "testbench.agentic-layer.ai/experiment-name": "example-experiment",
        "testbench.agentic-layer.ai/experiment-namespace": "testkube",
        "testbench.agentic-layer.ai/managed-by": "experiment-controller",
        "testbench.agentic-layer.ai/resource-type": "workflow",
    }
    assert "ownerReferences" not in wf["metadata"] and "ownerReferences" not in cm["metadata"]
    data = json.loads(cm["data"]["experiment.json"])
    assert data == {
        "default_threshold": 0.9, "llm_as_a_judge_model": "gemini-2.5-flash-lite",
        "scenarios": [{"name": "Weather in New York", "steps": [{
            "input": "What is the weather like in New York right now?",
            "reference": {"tool_calls": [{"name": "get_weather", "args": {"city": "New York"}}], "topics": ["weather"]},
            "metrics": [{"metric_name": "AgentGoalAccuracyWithoutReference"}, {"metric_name": "ToolCallAccuracy"},
                        {"metric_name": "TopicAdherence", "parameters": {"mode": "precision"}}]}]}]}
    spec = wf["spec"]
    assert spec["content"]["files"] == [{"path": "/data/datasets/experiment.json", "contentFrom": {
        "configMapKeyRef": {"name": "example-experiment-testkube-experiment", "key": "experiment.json"}}}]
    assert spec["container"]["env"] == [{"name": "OTEL_EXPORTER_OTLP_ENDPOINT",
                                         "value": "http://lgtm.monitoring.svc.cluster.local:4318"}]
    assert spec["use"] == [
        {"name": "run-template", "config": {"agentUrl": "http://weather-agent.sample-agents:8000",
                                            "experimentName": "example-experiment"}},
        {"name": "evaluate-template", "config": {
            "openAiBasePath": "http://ai-gateway.ai-gateway.svc.cluster.local.:80", "openAiApiKey": "testbench"}},
        {"name": "publish-template", "config": {"experimentName": "example-experiment"}},
        {"name": "visualize-template", "config": {"experimentName": "example-experiment"}},
    ]
    assert "events" not in spec


def test_s3_passes_the_operators_dataset_url_to_setup_and_schedule_becomes_a_cronjob_event() -> None:
    wf = by_kind(render_experiment(experiment(FIXTURES / "s3-scheduled.yaml"), Flags()))["TestWorkflow"]
    assert wf["spec"]["use"][0] == {"name": "setup-template",
                                    "config": {"datasetUrl": "s3://datasets/rag/experiment.json"}}
    assert wf["spec"]["events"] == [{"cronjob": {"cron": "30 2 * * *", "timezone": "Europe/Berlin"}}]
    assert "content" not in wf["spec"]
    evaluate = wf["spec"]["use"][2]
    assert evaluate == {"name": "evaluate-template",
                        "config": {"openAiBasePath": "http://ai-gateway.knowledge.svc.cluster.local.:80",
                                   "openAiApiKey": "testbench"}}


def test_url_passes_the_operators_dataset_url_and_the_trigger_has_the_operator_shape() -> None:
    objects = by_kind(render_experiment(experiment(FIXTURES / "url-triggered.yaml"), Flags()))
    assert objects["TestWorkflow"]["spec"]["use"][0] == {
        "name": "setup-template", "config": {"datasetUrl": "https://datasets.example.com/research/experiment.json"}}
    assert objects["TestWorkflow"]["spec"]["use"][2] == {"name": "evaluate-template"}
    trigger = objects["TestTrigger"]
    assert trigger["metadata"]["name"] == "research-regression-research-trigger"
    assert trigger["spec"] == {
        "selector": {"matchLabels": {"testkube.io/resource-kind": "Deployment",
                                     "testkube.io/resource-name": "research-agent",
                                     "testkube.io/resource-namespace": "agents"}},
        "event": "modified",
        "conditionSpec": {"timeout": 100, "delay": 2, "conditions": [
            {"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable", "ttl": 60},
            {"type": "Available", "status": "True"}]},
        "action": "run", "execution": "testworkflow", "concurrencyPolicy": "forbid",
        "testSelector": {"name": "research-regression-research-workflow", "namespace": "testkube"},
        "disabled": False,
    }


def test_upstream_bugs_fixed_args_default_threshold_zero_and_expressions() -> None:
    objects = by_kind(render_experiment(experiment(FIXTURES / "inline-fixes.yaml"), Flags()))
    data = json.loads(objects["ConfigMap"]["data"]["experiment.json"])
    step = data["scenarios"][0]["steps"][0]
    assert step["reference"]["tool_calls"] == [{"name": "list_files", "args": {}}]
    assert step["metrics"] == [{"metric_name": "ToolCallAccuracy", "threshold": 0}]
    assert step["input"] == "List my files {{ now }}", "the dataset lives in a ConfigMap: kept verbatim"
    env = objects["TestWorkflow"]["spec"]["container"]["env"]
    assert env[0] == {"name": "GREETING_TEMPLATE", "value": 'Hello {{"{{"}} user }}'}
    assert objects["TestWorkflow"]["metadata"]["annotations"] == {"kustomize.toolkit.fluxcd.io/substitute": "disabled"}
    assert "annotations" not in objects["ConfigMap"]["metadata"], "no ${ in the dataset: no opt-out needed"


def test_no_user_text_can_open_an_expression_in_the_workflow() -> None:
    exp = experiment(FIXTURES / "url-triggered.yaml")
    exp["spec"]["dataset"]["url"] = "https://x.example.com/{{ secret('a') }}.json"
    exp["spec"]["agentRef"]["name"] = "agent"
    wf = by_kind(render_experiment(exp, Flags(agent_url="http://{name}.{namespace}:8000/{{ x }}")))["TestWorkflow"]
    strings: list[str] = []

    def collect(value: Any) -> None:
        if isinstance(value, str):
            strings.append(value)
        elif isinstance(value, dict):
            for v in value.values():
                collect(v)
        elif isinstance(value, list):
            for v in value:
                collect(v)

    collect(wf["spec"])
    for s in strings:
        assert s.replace('{{"{{"}}', "").count("{{") == 0, s


def test_settings_precedence_annotation_over_flag_over_defaults_file() -> None:
    exp = experiment(FIXTURES / "s3-scheduled.yaml")
    defaults = Defaults(testkube_namespace="tk", gateway_port=4000, agent_port=9000,
                        env=({"name": "MINIO_ENDPOINT", "value": "http://default"},
                             {"name": "OTEL_EXPORTER_OTLP_ENDPOINT", "value": "http://otel:4318"}))
    wf = by_kind(render_experiment(exp, Flags(), defaults))["TestWorkflow"]
    assert wf["metadata"]["namespace"] == "tk"
    assert wf["spec"]["use"][1]["config"]["agentUrl"] == "http://rag-agent.knowledge:9000"
    assert wf["spec"]["use"][2]["config"]["openAiBasePath"] == "http://ai-gateway.knowledge.svc.cluster.local.:4000"
    names = [(e["name"], e.get("value")) for e in wf["spec"]["container"]["env"]]
    assert names[0] == ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://otel:4318")
    assert ("MINIO_ENDPOINT", "http://minio.storage:9000") in names
    assert ("MINIO_ENDPOINT", "http://default") not in names

    flagged = by_kind(render_experiment(exp, Flags(gateway_port=8080, testkube_namespace="flag"), defaults))
    assert flagged["TestWorkflow"]["spec"]["use"][2]["config"]["openAiBasePath"].endswith(":8080")
    assert flagged["TestWorkflow"]["metadata"]["namespace"] == "flag"

    exp["metadata"]["annotations"] = {"testbench.agentic-layer.ai/ai-gateway-port": "9999",
                                      "testbench.agentic-layer.ai/agent-url": "https://agent.example.com"}
    annotated = by_kind(render_experiment(exp, Flags(gateway_port=8080), defaults))["TestWorkflow"]
    assert annotated["spec"]["use"][2]["config"]["openAiBasePath"].endswith(":9999")
    assert annotated["spec"]["use"][1]["config"]["agentUrl"] == "https://agent.example.com"


def test_default_gateway_from_the_defaults_file_like_the_operators_discovery() -> None:
    exp = experiment(FIXTURES / "url-triggered.yaml")
    wf = by_kind(render_experiment(exp, Flags(), Defaults(gateway_name="gw")))["TestWorkflow"]
    assert wf["spec"]["use"][2]["config"] == {"openAiBasePath": "http://gw.ai-gateway.svc.cluster.local.:80",
                                              "openAiApiKey": "testbench"}


def test_argocd_sync_waves_order_the_objects() -> None:
    objects = render_experiment(experiment(FIXTURES / "url-triggered.yaml"), Flags(argocd_sync_waves=True))
    assert [(o["kind"], o["metadata"]["annotations"]["argocd.argoproj.io/sync-wave"]) for o in objects] == [
        ("TestWorkflow", "1"), ("TestTrigger", "2")]


def test_include_experiment_emits_it_without_status_and_with_its_namespace() -> None:
    exp = experiment(FIXTURES / "url-triggered.yaml")
    objects = render_experiment(exp, Flags(include_experiment=True))
    assert objects[-1]["kind"] == "Experiment" and objects[-1]["metadata"]["namespace"] == "research"
    assert list(objects[-1])[:3] == ["apiVersion", "kind", "metadata"]


def test_experiment_without_namespace_uses_the_namespace_flag() -> None:
    exp = experiment(FIXTURES / "url-triggered.yaml")
    del exp["metadata"]["namespace"]
    objects = by_kind(render_experiment(exp, Flags(namespace="team-x")))
    assert objects["TestWorkflow"]["metadata"]["name"] == "research-regression-team-x-workflow"
    assert objects["TestWorkflow"]["metadata"]["labels"]["testbench.agentic-layer.ai/experiment-namespace"] == "team-x"


def test_json_output_is_a_v1_list() -> None:
    result = run_cli("render", "-o", "json", str(FIXTURES / "url-triggered.yaml"))
    doc = json.loads(result.stdout)
    assert doc["kind"] == "List" and [i["kind"] for i in doc["items"]] == ["TestWorkflow", "TestTrigger"]


def test_render_output_equals_yaml_of_the_objects() -> None:
    result = run_cli("render", str(FIXTURES / "s3-scheduled.yaml"))
    docs = list(yaml.safe_load_all(result.stdout))
    assert docs == render_experiment(experiment(FIXTURES / "s3-scheduled.yaml"), Flags())


def test_experiment_json_size_matches_the_text_exactly() -> None:
    import hypothesis.strategies as st
    from hypothesis import given, settings

    from kubectl_testbench.model.experiment_json import experiment_json, experiment_json_size
    from tests.strategies import datasets

    @settings(max_examples=200, deadline=None)
    @given(dataset=datasets().filter(lambda d: "inline" in d), extra=st.text(alphabet="<>&\u2028\u2029é🎉x"))
    def check(dataset: dict[str, Any], extra: str) -> None:
        inline = dataset["inline"]
        inline["scenarios"][0]["steps"][0]["input"] += extra
        assert experiment_json_size(inline) == len(experiment_json(inline).encode())

    check()


@pytest.mark.parametrize(("value", "go"), [
    (0.00001, "0.00001"), (0.000001, "0.000001"), (1e-7, "1e-7"), (1.234e-10, "1.234e-10"), (5e-324, "5e-324"),
    (0.5, "0.5"), (2.0, "2"), (-0.0, "-0"), (123456789.125, "123456789.125"), (-0.00002, "-0.00002"),
    (1e20, "100000000000000000000"), (1e21, "1e+21"), (1.5e300, "1.5e+300"),
])
def test_floats_are_spelled_as_go_encoding_json_spells_them(value: float, go: str) -> None:
    """strconv.AppendFloat(f, 'f' or 'e' (|f| < 1e-6 or >= 1e21), -1, 64), then e-07 → e-7."""
    from kubectl_testbench.model.experiment_json import experiment_json, experiment_json_size, go_float

    assert go_float(value) == go
    inline = {"defaultThreshold": value, "scenarios": [{"name": "s", "steps": [{"input": "x"}]}]}
    text = experiment_json(inline)
    assert f'"default_threshold": {go},' in text
    assert experiment_json_size(inline) == len(text.encode())
    assert json.loads(text)["default_threshold"] == value


def test_env_entries_carry_the_field_subset_the_operator_copies() -> None:
    """experiment_controller.go@a8e16f1 copies name, a non-empty value, secretKeyRef/configMapKeyRef (name, key,
    optional) and fieldRef (fieldPath only). Sources it drops are kept whole here (dropped, the variable would
    arrive empty): the one documented deviation."""
    exp = experiment(FIXTURES / "url-triggered.yaml")
    exp["spec"]["env"] = [
        {"name": "EMPTY", "value": ""},
        {"name": "POD", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}},
        {"name": "KEY", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k", "optional": True}}},
        {"name": "CPU", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu", "divisor": "1m"}}},
    ]
    wf = by_kind(render_experiment(exp, Flags()))["TestWorkflow"]
    assert wf["spec"]["container"]["env"] == [
        {"name": "EMPTY"},
        {"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
        {"name": "KEY", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k", "optional": True}}},
        {"name": "CPU", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu", "divisor": "1m"}}},
        {"name": "OTEL_SDK_DISABLED", "value": "true"},
    ]


def test_url_templates_keep_every_brace_they_do_not_fill() -> None:
    """Filled without str.format, which would turn ``{{`` into ``{``: the text stays, and is escaped later."""
    from kubectl_testbench.model.url_templates import fill

    assert fill("http://{name}.{namespace}:{port}/{{ x }}/{other}", name="a", namespace="b", port=1) == \
        "http://a.b:1/{{ x }}/{other}"
    exp = experiment(FIXTURES / "url-triggered.yaml")
    wf = by_kind(render_experiment(exp, Flags(agent_url="http://{name}.{namespace}:8000/{{ x }}")))["TestWorkflow"]
    assert wf["spec"]["use"][1]["config"]["agentUrl"] == 'http://research-agent.agents:8000/{{"{{"}} x }}'


@pytest.mark.parametrize(("env", "switched"), [
    ([], True),
    ([{"name": "OTEL_EXPORTER_OTLP_ENDPOINT", "value": "http://lgtm.monitoring:4318"}], False),
    ([{"name": "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "value": "http://tempo.monitoring:4318/v1/traces"}], False),
    ([{"name": "OTEL_EXPORTER_OTLP_ENDPOINT", "valueFrom": {"configMapKeyRef": {"name": "otel", "key": "url"}}}],
     False),
    ([{"name": "OTEL_EXPORTER_OTLP_ENDPOINT", "value": ""}], True),
    ([{"name": "OTEL_SDK_DISABLED", "value": "false"}], False),
])
def test_otel_sdk_is_disabled_exactly_when_no_otlp_endpoint_is_known(env: list[dict[str, Any]],
                                                                       switched: bool) -> None:
    """Issue 21: without an endpoint the run phase's span exporter retries localhost:4318 for every span (the real
    phase: tests/phases/test_phases_e2e.py::test_without_an_otlp_endpoint_the_run_phase_no_longer_stalls)."""
    exp = experiment(FIXTURES / "url-triggered.yaml")
    exp["spec"]["env"] = env
    wf = by_kind(render_experiment(exp, Flags()))["TestWorkflow"]
    rendered = wf["spec"].get("container", {}).get("env", [])
    assert ({"name": "OTEL_SDK_DISABLED", "value": "true"} in rendered) is switched
    defaults = Defaults(env=({"name": "OTEL_EXPORTER_OTLP_ENDPOINT", "value": "http://lgtm.monitoring:4318"},))
    exp["spec"]["env"] = []
    wf = by_kind(render_experiment(exp, Flags(), defaults))["TestWorkflow"]
    assert [e["name"] for e in wf["spec"]["container"]["env"]] == ["OTEL_EXPORTER_OTLP_ENDPOINT"]

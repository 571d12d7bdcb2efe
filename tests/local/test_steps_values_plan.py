"""run --local's pure parts: references looked up (values), resolved steps to processes (steps), and the local
endpoints (plan), each on steps ``render --resolve`` really produces."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kubectl_testbench.local.plan import Endpoints, PlanError, in_cluster, plan, port_forward_hint
from kubectl_testbench.local.steps import LocalStep, StepError, local_steps
from kubectl_testbench.local.values import Values, ValuesError
from kubectl_testbench.render.resolve import ResolvedWorkflow, parse_document
from tests.conftest import EXAMPLES, ROOT, run_cli

FIXTURES = ROOT / "tests" / "render" / "fixtures"
SECRETS = [{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "minio"},
            "data": {"user": "bWluaW8tdXNlcg=="}, "stringData": {"password": "pw"}},
           {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "otel-config"},
            "data": {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://lgtm.monitoring.svc.cluster.local:4318"}}]


def resolved(path: Path, *args: str) -> ResolvedWorkflow:
    result = run_cli("render", str(path), "--resolve", "-o", "json", *args)
    assert result.exit_code == 0, result.output
    [workflow] = parse_document(json.loads(result.stdout))
    return workflow


def by_phase(steps: list[LocalStep]) -> dict[str | None, LocalStep]:
    return {s.phase: s for s in steps}


# --- values ------------------------------------------------------------------------------------------------------

def test_secret_data_is_base64_with_string_data_on_top_and_configmaps_are_plain() -> None:
    values = Values(SECRETS)
    assert values.env("U", {"secretKeyRef": {"name": "minio", "key": "user"}}) == "minio-user"
    assert values.env("P", {"secretKeyRef": {"name": "minio", "key": "password"}}) == "pw"
    assert values.env("O", {"configMapKeyRef": {"name": "otel-config", "key": "OTEL_EXPORTER_OTLP_ENDPOINT"}}) == \
        "http://lgtm.monitoring.svc.cluster.local:4318"


def test_a_missing_reference_names_the_variable_the_object_and_both_ways_out() -> None:
    with pytest.raises(ValuesError) as err:
        Values([]).env("MINIO_ROOT_USER", {"secretKeyRef": {"name": "minio", "key": "user"}})
    assert str(err.value) == ("env MINIO_ROOT_USER comes from secretKeyRef minio/user, which is not among the given "
                              "values: give it with --env MINIO_ROOT_USER=VALUE, or the Secret with --values-from "
                              "FILE (kubectl get secret minio -o yaml)")


def test_optional_missing_leaves_the_variable_unset_given_values_win_and_pod_fields_are_refused() -> None:
    values = Values(SECRETS, {"MINIO_ROOT_USER": "from-the-flag"})
    assert values.env("X", {"secretKeyRef": {"name": "nope", "key": "k", "optional": True}}) is None
    assert values.env("MINIO_ROOT_USER", {"secretKeyRef": {"name": "minio", "key": "user"}}) == "from-the-flag"
    with pytest.raises(ValuesError, match="env POD comes from fieldRef, which only a pod in the cluster has: give "
                                          "it with --env POD=VALUE"):
        values.env("POD", {"fieldRef": {"fieldPath": "metadata.name"}})
    with pytest.raises(ValuesError, match=r"Secret minio data\.bad: not base64"):
        Values([{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "minio"}, "data": {"bad": "!!"}}])


# --- steps -------------------------------------------------------------------------------------------------------

def test_every_resolved_step_becomes_its_argv_env_and_files() -> None:
    workflow = resolved(FIXTURES / "s3-scheduled.yaml", "--no-defaults")
    steps = local_steps(workflow, Values(SECRETS))
    assert [s.phase for s in steps] == ["setup", "run", "evaluate", "publish", "visualize"]
    setup = steps[0]
    assert setup.argv[2:] == ("s3://datasets/rag/experiment.json", "", "")
    assert (setup.env["MINIO_ROOT_USER"], setup.env["MINIO_ROOT_PASSWORD"]) == ("minio-user", "pw")
    assert setup.env["CI"] == "1" and setup.working_dir == "/"
    assert steps[3].argv == ("-m", "testbench.publish", "rag-nightly", "000000000000000000000001", "1")
    inline = local_steps(resolved(FIXTURES / "inline-fixes.yaml", "--no-defaults"), Values())
    assert json.loads(inline[0].files["/data/datasets/experiment.json"])["scenarios"][0]["name"] == "Lists files"


def test_a_step_that_is_not_the_phase_image_or_a_reference_without_a_value_is_refused() -> None:
    workflow = resolved(FIXTURES / "s3-scheduled.yaml", "--no-defaults")
    with pytest.raises(StepError, match=r"step 'setup': env MINIO_ROOT_USER comes from secretKeyRef minio/user"):
        local_steps(workflow, Values())
    other = workflow.steps[1]
    foreign = ResolvedWorkflow(workflow.name, workflow.namespace, [type(other)(
        other.name, other.template, "busybox:1", ["sh", "-c"], ["echo"], "/", {}, entrypoint_from_image=False)])
    with pytest.raises(StepError, match=r"runs sh -c in busybox:1: only the phase image's steps \(uv run python3"):
        local_steps(foreign, Values())


# --- plan --------------------------------------------------------------------------------------------------------

def weather_steps() -> list[LocalStep]:
    return local_steps(resolved(EXAMPLES / "experiments" / "weather-inline.yaml"), Values(SECRETS))


def test_without_agent_url_the_port_forward_to_use_is_named() -> None:
    with pytest.raises(PlanError) as err:
        plan(weather_steps(), Endpoints(agent_url=None))
    assert str(err.value) == ("--agent-url is required: the Experiment's agent http://weather-agent.sample-agents:8000"
                              " is a Service in the cluster; kubectl port-forward -n sample-agents svc/weather-agent "
                              "8000:8000, then --agent-url http://127.0.0.1:8000")


def test_the_in_cluster_gateway_needs_judge_url_and_the_hint_forwards_its_port() -> None:
    with pytest.raises(PlanError) as err:
        plan(weather_steps(), Endpoints(agent_url="http://127.0.0.1:9"))
    assert "--judge-url is required: the judge is reached through " \
           "http://ai-gateway.ai-gateway.svc.cluster.local.:80" in str(err.value)
    assert str(err.value).endswith("kubectl port-forward -n ai-gateway svc/ai-gateway 8080:80, then --judge-url "
                                   "http://127.0.0.1:8080")


def test_only_the_cluster_endpoints_change_and_env_flags_come_last() -> None:
    original = by_phase(weather_steps())
    planned = by_phase(plan(weather_steps(), Endpoints("http://127.0.0.1:8000", "http://127.0.0.1:4000/v1", "sk-x"),
                            {"EXTRA": "1", "RAGAS_DO_NOT_TRACK": "false"}))
    assert planned["run"].argv == (*original["run"].argv[:2], "http://127.0.0.1:8000", *original["run"].argv[3:])
    evaluate = planned["evaluate"]
    assert (evaluate.env["OPENAI_BASE_URL"], evaluate.env["OPENAI_API_KEY"]) == ("http://127.0.0.1:4000/v1", "sk-x")
    for phase, step in planned.items():
        assert "OTEL_EXPORTER_OTLP_ENDPOINT" not in step.env and step.env["OTEL_SDK_DISABLED"] == "true", phase
        assert step.env["EXTRA"] == "1" and step.env["RAGAS_DO_NOT_TRACK"] == "false"
        assert step.argv == original[phase].argv or phase == "run"
        assert step.files == original[phase].files
        unchanged = {k: v for k, v in step.env.items() if k not in (
            "OPENAI_BASE_URL", "OPENAI_API_KEY", "OTEL_SDK_DISABLED", "EXTRA", "RAGAS_DO_NOT_TRACK")}
        assert unchanged == {k: v for k, v in original[phase].env.items()
                             if k not in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "OTEL_EXPORTER_OTLP_ENDPOINT")}
    with_otlp = plan(weather_steps(), Endpoints("http://127.0.0.1:8000", "http://127.0.0.1:4000/v1",
                                                otlp_endpoint="http://127.0.0.1:4318"))
    assert all(s.env["OTEL_EXPORTER_OTLP_ENDPOINT"] == "http://127.0.0.1:4318" and "OTEL_SDK_DISABLED" not in s.env
               for s in with_otlp)
    assert "publish" not in planned, "without an endpoint publish would send nothing: left out"
    assert [s.phase for s in with_otlp] == ["run", "evaluate", "publish", "visualize"]


def test_s3_through_an_in_cluster_or_default_minio_is_refused_with_the_port_forward() -> None:
    steps = local_steps(resolved(EXAMPLES / "experiments" / "rag-s3-nightly.yaml"), Values([
        *SECRETS, {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "minio-credentials"},
                   "stringData": {"user": "u", "password": "p"}}]))
    endpoints = Endpoints("http://127.0.0.1:8000", "http://127.0.0.1:4000/v1")
    with pytest.raises(PlanError, match=r"MINIO_ENDPOINT=http://minio.storage.svc.cluster.local:9000, a Service in "
                                        r"the cluster: kubectl port-forward -n storage svc/minio 9000:9000, then "
                                        r"--env MINIO_ENDPOINT=http://127.0.0.1:9000"):
        plan(steps, endpoints)
    planned = plan(steps, endpoints, {"MINIO_ENDPOINT": "http://127.0.0.1:9000"})
    assert by_phase(planned)["setup"].env["MINIO_ENDPOINT"] == "http://127.0.0.1:9000"
    no_minio = [s.with_env({k: v for k, v in s.env.items() if k != "MINIO_ENDPOINT"}) for s in steps]
    with pytest.raises(PlanError, match=re.escape("does not set (the setup phase's default is "
                                                  "http://testkube-minio-service-testkube.testkube:9000")):
        plan(no_minio, endpoints)


@pytest.mark.parametrize(("url", "inside"), [
    ("http://minio:9000", True), ("http://minio.storage.svc:9000", True),
    ("http://ai-gateway.ai-gateway.svc.cluster.local.:80", True), ("http://localhost:8000", False),
    ("http://127.0.0.1:8000", False), ("https://api.openai.com/v1", False), ("", False),
])
def test_in_cluster_names(url: str, inside: bool) -> None:
    assert in_cluster(url) is inside


def test_port_forward_hint_for_a_low_port_uses_8080_and_keeps_the_path() -> None:
    assert port_forward_hint("http://gw.ns.svc.cluster.local:80/v1", "--judge-url") == \
        "kubectl port-forward -n ns svc/gw 8080:80, then --judge-url http://127.0.0.1:8080/v1"

"""run --local's endpoint plan on hand-made steps: every message verbatim, each boundary of the in-cluster and
port-forward rules, and which env each phase ends with."""

from __future__ import annotations

import pytest

from kubectl_testbench.layout import SETUP_TEMPLATE
from kubectl_testbench.local.plan import (
    Endpoints,
    PlanError,
    agent_url_in,
    in_cluster,
    plan,
    port_forward_hint,
)
from kubectl_testbench.local.steps import LocalStep
from kubectl_testbench.render.settings import OTEL_SDK_DISABLED

AGENT = "http://agent.agents:8000"
RUN = LocalStep("run", ("-m", "testbench.run", AGENT, "exp"), {"CI": "1"}, template="run-template")
EVALUATE = LocalStep("evaluate", ("-m", "testbench.evaluate", "exp"), {"CI": "1"}, template="evaluate-template")
PUBLISH = LocalStep("publish", ("-m", "testbench.publish", "exp"), {}, template="publish-template")
LOCAL = Endpoints("http://127.0.0.1:8000")


def setup(url: str, bucket: str = "", env: dict[str, str] | None = None) -> LocalStep:
    return LocalStep("setup", ("-c", "script", url, bucket, ""), env or {}, template=SETUP_TEMPLATE)


def refused(steps: list[LocalStep], endpoints: Endpoints = LOCAL, given: dict[str, str] | None = None) -> str:
    with pytest.raises(PlanError) as err:
        plan(steps, endpoints, given)
    return str(err.value)


@pytest.mark.parametrize(("url", "inside"), [
    ("http://minio", True),
    ("http://MINIO.Storage.SVC:9000", True),
    ("http://a.b.svc.cluster.local", True),
    ("http://a.b.cluster.local", True),
    ("http://a.svc.", True),
    ("http://a.svcx:80", False),
    ("http://example.com", False),
    ("http://LOCALHOST:1", False),
    ("http://localhost.:80", False),
    ("http://[::1]:9000", False),  # the IPv6 loopback: a local address, not a Service name
    ("http://[fd00::5]:9000", False),
    ("http://", False),
])
def test_in_cluster_names(url: str, inside: bool) -> None:
    assert in_cluster(url) is inside


@pytest.mark.parametrize(("url", "flag", "hint"), [
    ("http://gw.ns:1023", "--judge-url", "kubectl port-forward -n ns svc/gw 8080:1023, then --judge-url "
                                         "http://127.0.0.1:8080"),
    ("http://gw.ns:1024/v1/", "--judge-url", "kubectl port-forward -n ns svc/gw 1024:1024, then --judge-url "
                                             "http://127.0.0.1:1024/v1"),
    ("https://gw.ns", "--judge-url", "kubectl port-forward -n ns svc/gw 8080:443, then --judge-url "
                                     "http://127.0.0.1:8080"),
    ("http://gw", "--agent-url", "kubectl port-forward svc/gw 8080:80, then --agent-url http://127.0.0.1:8080"),
    ("http://gw.ns.svc.cluster.local.:80/apiX", "--judge-url", "kubectl port-forward -n ns svc/gw 8080:80, then "
                                                               "--judge-url http://127.0.0.1:8080/apiX"),
    ("http://minio.:9000", "--agent-url", "kubectl port-forward svc/minio 9000:9000, then --agent-url "
                                          "http://127.0.0.1:9000"),
    ("http://minio.svc:9000", "--env MINIO_ENDPOINT=", "kubectl port-forward svc/minio 9000:9000, then "
                                                       "--env MINIO_ENDPOINT=http://127.0.0.1:9000"),
])
def test_port_forward_hints(url: str, flag: str, hint: str) -> None:
    assert port_forward_hint(url, flag) == hint


def test_exactly_one_run_phase_with_an_agent_url() -> None:
    assert refused([EVALUATE]) == "the workflow has 0 run phase steps; run --local needs exactly one"
    assert refused([RUN, RUN]) == "the workflow has 2 run phase steps; run --local needs exactly one"
    short = LocalStep("runner", ("-m", "testbench.run"))
    assert refused([short]) == "step 'runner' passes no agent URL to testbench.run"
    assert agent_url_in([LocalStep("r", ("-m", "testbench.run", "http://x"))]) == "http://x"


def test_an_empty_agent_url_is_no_agent_url() -> None:
    assert refused([RUN], Endpoints("")).startswith(
        "--agent-url is required: the Experiment's agent http://agent.agents:8000 is a Service in the cluster; "
        "kubectl port-forward -n agents svc/agent 8000:8000, then --agent-url http://127.0.0.1:8000")


def test_each_phase_gets_the_local_env() -> None:
    run, evaluate = plan([RUN, EVALUATE], LOCAL)
    assert run.argv == ("-m", "testbench.run", "http://127.0.0.1:8000", "exp")
    assert run.env == {"CI": "1", "OTEL_SDK_DISABLED": "true", "RAGAS_DO_NOT_TRACK": "true"}
    assert evaluate.argv == EVALUATE.argv
    assert evaluate.env == {"CI": "1", "OPENAI_API_KEY": "testbench", "OTEL_SDK_DISABLED": "true",
                            "RAGAS_DO_NOT_TRACK": "true"}


def test_otlp_endpoints_are_replaced_or_removed() -> None:
    traced = RUN.with_env({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://lgtm.mon:4318",
                           "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://lgtm.mon:4318/v1/traces",
                           "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://lgtm.mon:4318/v1/metrics",
                           "OTEL_SDK_DISABLED": "false"})
    [off] = plan([traced], LOCAL)
    assert off.env == {"OTEL_SDK_DISABLED": "true", "RAGAS_DO_NOT_TRACK": "true"}
    [on] = plan([traced], Endpoints("http://127.0.0.1:8000", otlp_endpoint="http://127.0.0.1:4318"))
    assert on.env == {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "RAGAS_DO_NOT_TRACK": "true"}


def test_the_experiments_own_settings_and_the_env_flags() -> None:
    own = RUN.with_env({"RAGAS_DO_NOT_TRACK": "false"})
    assert plan([own], LOCAL)[0].env["RAGAS_DO_NOT_TRACK"] == "false"
    [run] = plan([RUN], LOCAL, {"OTEL_SDK_DISABLED": "false", "CI": "0"})
    assert run.env == {"CI": "0", "OTEL_SDK_DISABLED": "false", "RAGAS_DO_NOT_TRACK": "true"}


def test_publish_runs_only_with_an_otlp_endpoint() -> None:
    assert [s.name for s in plan([RUN, PUBLISH], LOCAL)] == ["run"]
    visualize = LocalStep("visualize", ("-m", "testbench.visualize", "exp"), template="visualize-template")
    assert [s.name for s in plan([RUN, PUBLISH, visualize], LOCAL)] == ["run", "visualize"]
    with_flag = plan([RUN, PUBLISH], Endpoints("http://127.0.0.1:8000", otlp_endpoint="http://127.0.0.1:4318"))
    assert [s.name for s in with_flag] == ["run", "publish"]
    with_env = plan([RUN, PUBLISH], LOCAL, {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"})
    assert [s.name for s in with_env] == ["run", "publish"]
    # the OpenTelemetry SDK is switched off only when nothing is exported: never under an endpoint from --env
    assert all(OTEL_SDK_DISABLED not in s.env for s in with_env)
    traces = plan([RUN], LOCAL, {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"})
    assert OTEL_SDK_DISABLED not in traces[0].env
    both = plan([RUN], LOCAL, {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", OTEL_SDK_DISABLED: "true"})
    assert both[0].env[OTEL_SDK_DISABLED] == "true"  # said explicitly: the caller's word is final


def test_the_judge() -> None:
    gateway = EVALUATE.with_env({"OPENAI_BASE_URL": "http://gw.gateways.svc:4000/v1", "OPENAI_API_KEY": "k"})
    assert refused([RUN, gateway]) == (
        "--judge-url is required: the judge is reached through http://gw.gateways.svc:4000/v1, a Service in the "
        "cluster; kubectl port-forward -n gateways svc/gw 4000:4000, then --judge-url http://127.0.0.1:4000/v1")
    [_, judged] = plan([RUN, gateway], Endpoints("http://127.0.0.1:8000", "http://127.0.0.1:4000/v1", "sk"))
    assert (judged.env["OPENAI_BASE_URL"], judged.env["OPENAI_API_KEY"]) == ("http://127.0.0.1:4000/v1", "sk")
    [_, by_env] = plan([RUN, gateway], LOCAL, {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"})
    assert (by_env.env["OPENAI_BASE_URL"], by_env.env["OPENAI_API_KEY"]) == ("http://127.0.0.1:9/v1", "testbench")
    public = EVALUATE.with_env({"OPENAI_BASE_URL": "https://api.example.com/v1"})
    assert plan([RUN, public], LOCAL)[1].env["OPENAI_BASE_URL"] == "https://api.example.com/v1"
    # any step that talks to the judge gets the key, an evaluate step always does
    [run] = plan([RUN.with_env({"OPENAI_BASE_URL": "https://api.example.com/v1"})], LOCAL)
    assert run.env["OPENAI_API_KEY"] == "testbench"
    assert "OPENAI_API_KEY" not in plan([RUN], LOCAL)[0].env


def test_the_setup_phases_dataset_sources() -> None:
    assert refused([setup("s3://b/k.json"), RUN]) == (
        "the s3 dataset is read through MINIO_ENDPOINT, which the Experiment does not set (the setup phase's "
        "default is http://testkube-minio-service-testkube.testkube:9000, in the cluster): kubectl port-forward "
        "-n testkube svc/testkube-minio-service-testkube 9000:9000, then --env MINIO_ENDPOINT=http://127.0.0.1:9000")
    assert refused([setup("", "bucket", {"MINIO_ENDPOINT": "http://minio.st.svc:9000"}), RUN]) == (
        "the s3 dataset is read through MINIO_ENDPOINT=http://minio.st.svc:9000, a Service in the cluster: kubectl "
        "port-forward -n st svc/minio 9000:9000, then --env MINIO_ENDPOINT=http://127.0.0.1:9000")
    local_minio = setup("s3://b/k.json", env={"MINIO_ENDPOINT": "http://127.0.0.1:9000"})
    assert plan([local_minio, RUN], LOCAL)[0].env["MINIO_ENDPOINT"] == "http://127.0.0.1:9000"
    four = LocalStep("setup", ("-c", "script", "s3://b/k.json", ""), template=SETUP_TEMPLATE)
    assert refused([four, RUN]).startswith("the s3 dataset is read through MINIO_ENDPOINT, which the Experiment")
    assert refused([setup("http://data/x.json?token=secret?more"), RUN]) == (
        "the dataset URL http://data/x.json is a Service in the cluster; fetch it yourself and run an inline "
        "copy (kubectl testbench import) instead")
    assert plan([setup("https://example.com/x.json"), RUN], LOCAL)[0].argv[2] == "https://example.com/x.json"
    assert plan([setup(""), RUN], LOCAL)[0].name == "setup"  # neither url nor bucket: an inline dataset
    short = LocalStep("setup", ("-c", "script", "s3://b/k.json"), template=SETUP_TEMPLATE)
    assert plan([short, RUN], LOCAL)[0].name == "setup"  # not the setup phase's argv: nothing to check

"""apply against a local HTTP stand-in of the API server: the server-side apply wire contract."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.cluster.conftest import FIXTURES, NAMESPACE_NOTICE, cli
from tests.cluster.fakeapi import TOKEN, FakeApiServer
from tests.conftest import run_cli

pytestmark = pytest.mark.fake_api(
    "the wire contract: the exact requests apply sends (content type, fieldManager, force, dryRun, order), which a "
    "real server does not show; apply against kube-apiserver 1.35.4 is tests/controlplane/test_apply.py")

CM = "/api/v1/namespaces/testkube/configmaps/weather-team-a-experiment"
WF_NEWS = "/apis/testworkflows.testkube.io/v1/namespaces/testkube/testworkflows/news-team-a-workflow"
WF = "/apis/testworkflows.testkube.io/v1/namespaces/testkube/testworkflows/weather-team-a-workflow"
TRIGGER = "/apis/tests.testkube.io/v1/namespaces/testkube/testtriggers/weather-team-a-trigger"
EXPERIMENT_PATH = "/apis/testbench.agentic-layer.ai/v1alpha1/namespaces/team-a/experiments"


def rendered(*args: str) -> list[dict[str, object]]:
    result = run_cli("render", str(FIXTURES), "-n", "team-a", "-o", "json", *args)
    assert result.exit_code == 0, result.output
    items: list[dict[str, object]] = json.loads(result.stdout)["items"]
    return items


def test_local_http_stand_in_receives_server_side_apply_patches_in_dependency_order(
        api: FakeApiServer, kubeconfig: Path) -> None:
    result = cli("apply", str(FIXTURES))
    assert result.exit_code == 0, result.stderr
    writes = api.writes()
    assert [(w.method, w.path) for w in writes] == [("PATCH", CM), ("PATCH", WF_NEWS), ("PATCH", WF),
                                                    ("PATCH", TRIGGER)]
    for w in writes:
        assert w.headers["content-type"] == "application/apply-patch+yaml"
        assert w.query == {"fieldManager": ["kubectl-testbench"]}, "no force, no dryRun unless asked"
        assert w.headers["authorization"] == f"Bearer {TOKEN}"
        assert w.headers["user-agent"].startswith("kubectl-testbench/")
    assert result.stdout == "", "progress goes to stderr"
    assert result.stderr.splitlines() == [
        NAMESPACE_NOTICE,
        "configmap/weather-team-a-experiment serverside-applied",
        "testworkflow.testworkflows.testkube.io/news-team-a-workflow serverside-applied",
        "testworkflow.testworkflows.testkube.io/weather-team-a-workflow serverside-applied",
        "testtrigger.tests.testkube.io/weather-team-a-trigger serverside-applied",
    ]


def test_bodies_are_exactly_what_render_prints(api: FakeApiServer, kubeconfig: Path) -> None:
    """The context namespace (team-a) names the Experiments, as -n team-a does for render."""
    assert cli("apply", str(FIXTURES)).exit_code == 0
    sent = {w.path: w.body for w in api.writes()}
    expected = {api.path_of(o): o for o in rendered()}  # type: ignore[arg-type]
    assert sent == expected


def test_discovery_runs_before_the_first_write(api: FakeApiServer, kubeconfig: Path) -> None:
    assert cli("apply", str(FIXTURES)).exit_code == 0
    methods = [(r.method, r.path) for r in api.requests]
    first_write = next(i for i, (m, _) in enumerate(methods) if m == "PATCH")
    assert ("GET", "/apis/testworkflows.testkube.io/v1") in methods[:first_write]
    assert ("GET", "/apis/tests.testkube.io/v1") in methods[:first_write]


def test_force_conflicts_sends_force_true(api: FakeApiServer, kubeconfig: Path) -> None:
    assert cli("apply", str(FIXTURES), "--force-conflicts").exit_code == 0
    assert all(w.query["force"] == ["true"] for w in api.writes())


def test_server_dry_run_sends_dry_run_all_and_changes_nothing(api: FakeApiServer, kubeconfig: Path) -> None:
    result = cli("apply", str(FIXTURES), "--dry-run=server")
    assert result.exit_code == 0, result.stderr
    assert len(api.writes()) == 4
    assert all(w.query["dryRun"] == ["All"] for w in api.writes())
    assert api.objects == {}
    assert "configmap/weather-team-a-experiment serverside-applied (server dry run)" in result.stderr


def test_client_dry_run_prints_what_would_be_sent_and_sends_nothing(api: FakeApiServer, kubeconfig: Path) -> None:
    result = cli("apply", str(FIXTURES), "--dry-run=client")
    assert result.exit_code == 0, result.stderr
    assert api.requests == []
    docs = list(yaml.safe_load_all(result.stdout))
    assert [d["kind"] for d in docs] == ["ConfigMap", "TestWorkflow", "TestWorkflow", "TestTrigger"]
    assert docs == sorted(rendered(), key=lambda o: ["ConfigMap", "TestWorkflow", "TestTrigger"].index(
        str(o["kind"])))
    assert ("configmap/weather-team-a-experiment serverside-applied (dry run): PATCH "
            f"{CM}?fieldManager=kubectl-testbench") in result.stderr


def test_client_dry_run_needs_no_cluster_at_all(isolated: Path) -> None:
    result = cli("apply", str(FIXTURES), "--dry-run=client", "-n", "team-b", "-o", "name")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[0] == "configmap/weather-team-b-experiment"


def test_rerunning_apply_is_idempotent(api: FakeApiServer, kubeconfig: Path) -> None:
    assert cli("apply", str(FIXTURES)).exit_code == 0
    first = {p: dict(o["spec"] if "spec" in o else o["data"]) for p, o in api.objects.items()}
    assert cli("apply", str(FIXTURES)).exit_code == 0
    assert {p: dict(o["spec"] if "spec" in o else o["data"]) for p, o in api.objects.items()} == first
    assert api.objects[CM]["metadata"]["resourceVersion"] == "2"


def test_namespace_flag_overrides_the_context(api: FakeApiServer, kubeconfig: Path) -> None:
    assert cli("apply", str(FIXTURES / "news.yaml"), "-n", "default").exit_code == 0
    assert [w.path.rsplit("/", 1)[1] for w in api.writes()] == ["news-default-workflow"]


def test_context_flag_selects_another_context_namespace(api: FakeApiServer, kubeconfig: Path) -> None:
    assert cli("apply", str(FIXTURES / "news.yaml"), "--context", "other").exit_code == 0
    assert [w.path.rsplit("/", 1)[1] for w in api.writes()] == ["news-other-ns-workflow"]


def test_include_experiment_applies_the_experiment_last(api: FakeApiServer, kubeconfig: Path) -> None:
    result = cli("apply", str(FIXTURES), "--include-experiment")
    assert result.exit_code == 0, result.stderr
    paths = [w.path for w in api.writes()]
    assert paths[:4] == [CM, WF_NEWS, WF, TRIGGER]
    assert paths[4:] == [f"{EXPERIMENT_PATH}/news", f"{EXPERIMENT_PATH}/weather"]
    body = api.writes()[-1].body
    assert body["kind"] == "Experiment" and body["metadata"]["namespace"] == "team-a" and "status" not in body
    assert "experiment.testbench.agentic-layer.ai/weather serverside-applied" in result.stderr


def test_output_yaml_prints_the_objects_as_the_server_returned_them(api: FakeApiServer, kubeconfig: Path) -> None:
    result = cli("apply", str(FIXTURES / "news.yaml"), "-o", "yaml")
    assert result.exit_code == 0
    doc = yaml.safe_load(result.stdout)
    assert doc["metadata"]["uid"] == "uid-news-team-a-workflow"
    assert "managedFields" not in doc["metadata"]


def test_output_name_and_json(api: FakeApiServer, kubeconfig: Path) -> None:
    names = cli("apply", str(FIXTURES), "-o", "name")
    assert names.stdout.splitlines() == [
        "configmap/weather-team-a-experiment", "testworkflow.testworkflows.testkube.io/news-team-a-workflow",
        "testworkflow.testworkflows.testkube.io/weather-team-a-workflow",
        "testtrigger.tests.testkube.io/weather-team-a-trigger"]
    data = json.loads(cli("apply", str(FIXTURES), "-o", "json").stdout)
    assert data["kind"] == "List" and len(data["items"]) == 4


def test_render_flags_reach_the_applied_objects(api: FakeApiServer, kubeconfig: Path) -> None:
    api.namespaces.add("tk")
    result = cli("apply", str(FIXTURES / "news.yaml"), "--testkube-namespace", "tk", "--agent-port", "9000")
    assert result.exit_code == 0, result.stderr
    (write,) = api.writes()
    assert write.path == "/apis/testworkflows.testkube.io/v1/namespaces/tk/testworkflows/news-team-a-workflow"
    run = next(u for u in write.body["spec"]["use"] if u["name"] == "run-template")
    assert run["config"]["agentUrl"] == "http://news-agent.team-a:9000"


def test_invalid_input_sends_nothing_and_exits_1(api: FakeApiServer, kubeconfig: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text((FIXTURES / "news.yaml").read_text().replace("news-agent", "News_Agent!"))
    (tmp_path / "good.yaml").write_text((FIXTURES / "weather.yaml").read_text())
    result = cli("apply", str(tmp_path))
    assert result.exit_code == 1
    assert api.requests == []
    assert "error: nothing applied:" in result.stderr


def test_unreadable_input_exits_2(api: FakeApiServer, kubeconfig: Path, tmp_path: Path) -> None:
    result = cli("apply", str(tmp_path / "missing.yaml"))
    assert result.exit_code == 2
    assert api.requests == []


def test_empty_input_is_refused_unless_allowed(api: FakeApiServer, kubeconfig: Path, tmp_path: Path) -> None:
    (tmp_path / "other.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    result = cli("apply", str(tmp_path))
    assert result.exit_code == 2
    assert "the input holds no Experiments" in result.stderr
    assert api.requests == []
    assert cli("apply", str(tmp_path), "--allow-empty").exit_code == 0


def test_usage_errors(kubeconfig: Path) -> None:
    assert cli("apply").exit_code == 2
    result = cli("apply", str(FIXTURES), "--prune-experiment-namespace", "x")
    assert result.exit_code == 2 and "--prune-experiment-namespace needs --prune" in result.stderr
    assert cli("apply", str(FIXTURES), "--request-timeout", "soon").exit_code == 2


def test_help_reads_kubectl_testbench_and_documents_exit_codes() -> None:
    for verb in ("apply", "diff", "prune", "run", "status"):
        result = cli(verb, "--help")
        assert result.exit_code == 0
        assert result.stdout.startswith(f"Usage: kubectl testbench {verb} ")
        for flag in ("--kubeconfig", "--context", "-n, --namespace", "--request-timeout"):
            assert flag in result.stdout, (verb, flag)
        assert "Exit codes: 0" in result.stdout

"""run against a local HTTP stand-in of the API server: the TestWorkflowExecution body and --wait."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubectl_testbench.cluster.execution import progress
from tests.cluster.conftest import FIXTURES, cli, one_line_error
from tests.cluster.fakeapi import FakeApiServer, Recorded
from tests.conftest import TESTKUBE_CRDS, require_reference

pytestmark = pytest.mark.fake_api(
    "the TestWorkflowExecution body run sends and clusters without Testkube or with the operator's record, on "
    "demand; run --wait against kube-apiserver 1.35.4 is tests/controlplane/test_run_status.py")

EXECUTIONS = "/apis/testworkflows.testkube.io/v1/namespaces/testkube/testworkflowexecutions"
WORKFLOW = "weather-team-a-workflow"
SIGNATURE = [
    {"ref": "r1", "name": "run-template", "children": [{"ref": "s1", "name": "run-agent"}]},
    {"ref": "r2", "name": "evaluate-template", "children": [{"ref": "s2", "name": "evaluate"}]},
    {"ref": "s3", "name": "publish-metrics"},
    {"ref": "s4", "name": "visualize-metrics"},
]


def execution_status(state: str | None, steps: dict[str, str] | None = None, error: str = "",
                     init_error: str = "") -> dict[str, Any]:
    if state is None:
        return {}
    result: dict[str, Any] = {"status": state, "predictedStatus": state,
                              "steps": {ref: {"status": s, **({"errorMessage": error} if s == "failed" else {})}
                                        for ref, s in (steps or {}).items()}}
    if state in ("passed", "failed", "aborted"):
        result["duration"] = "3m12.5s"
    if init_error:
        result["initialization"] = {"status": "failed", "errorMessage": init_error}
    return {"generation": 1, "latestExecution": {"id": "6650e1f0c0ffee", "name": f"{WORKFLOW}-7", "number": 7,
                                                 "signature": SIGNATURE, "result": result}}


def script(api: FakeApiServer, *statuses: dict[str, Any]) -> None:
    """Each GET of the execution returns the next status (then the last one forever)."""
    queue = list(statuses)

    def answer(req: Recorded) -> tuple[int, Any] | None:
        stored = api.objects.get(req.path)
        if stored is None:
            return None
        current = queue.pop(0) if len(queue) > 1 else queue[0]
        return 200, {**stored, "status": current}

    api.hook("GET", r"/testworkflowexecutions/.+", answer)


@pytest.fixture
def applied(api: FakeApiServer, kubeconfig: Path) -> FakeApiServer:
    assert cli("apply", str(FIXTURES)).exit_code == 0
    api.requests.clear()
    return api


def test_run_creates_a_testworkflowexecution_for_the_experiments_workflow(applied: FakeApiServer) -> None:
    result = cli("run", "weather", "--tag", "ci=true", "--tag", "commit=abc")
    assert result.exit_code == 0, result.stderr
    (post,) = [r for r in applied.requests if r.method == "POST"]
    assert post.path == EXECUTIONS
    assert post.query == {"fieldManager": ["kubectl-testbench"]}
    assert post.headers["content-type"] == "application/json"
    assert post.body == {
        "apiVersion": "testworkflows.testkube.io/v1",
        "kind": "TestWorkflowExecution",
        "metadata": {"generateName": f"{WORKFLOW}-", "namespace": "testkube", "labels": {
            "app.kubernetes.io/managed-by": "kubectl-testbench",
            "testbench.agentic-layer.ai/resource-type": "execution",
            "testbench.agentic-layer.ai/experiment-name": "weather",
            "testbench.agentic-layer.ai/experiment-namespace": "team-a"}},
        "spec": {"testWorkflow": {"name": WORKFLOW}, "executionRequest": {"tags": {"ci": "true", "commit": "abc"}}},
    }
    assert result.stdout == f"testworkflowexecution.testworkflows.testkube.io/{WORKFLOW}-00001\n"
    assert f"created for TestWorkflow testkube/{WORKFLOW} (Experiment team-a/weather)" in result.stderr


def test_execution_body_validates_against_the_testkube_crd(applied: FakeApiServer) -> None:
    import jsonschema

    crd = yaml.safe_load((require_reference(TESTKUBE_CRDS) /
                          "testworkflows.testkube.io_testworkflowexecutions.yaml").read_text())
    schema = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    assert cli("run", "weather", "--tag", "a=b").exit_code == 0
    (post,) = [r for r in applied.requests if r.method == "POST"]
    jsonschema.validate(post.body, schema)
    assert set(post.body["spec"]) <= set(schema["properties"]["spec"]["properties"])


def test_run_checks_that_the_workflow_exists(api: FakeApiServer, kubeconfig: Path) -> None:
    result = cli("run", "weather")
    assert result.exit_code == 2
    assert one_line_error(result) == (
        f'error: TestWorkflow "{WORKFLOW}" not found in namespace "testkube" (Experiment team-a/weather): apply it '
        "first with kubectl testbench apply, or pass --testkube-namespace")
    assert api.writes() == []


def test_run_uses_the_workflow_the_operator_recorded(api: FakeApiServer, kubeconfig: Path) -> None:
    api.namespaces.add("tk")
    api.put({"apiVersion": "testbench.agentic-layer.ai/v1alpha1", "kind": "Experiment",
             "metadata": {"name": "weather", "namespace": "team-a"},
             "status": {"generatedResources": [{"kind": "TestWorkflow", "name": "custom-wf", "namespace": "tk"}]}})
    api.put({"apiVersion": "testworkflows.testkube.io/v1", "kind": "TestWorkflow",
             "metadata": {"name": "custom-wf", "namespace": "tk"}})
    result = cli("run", "weather")
    assert result.exit_code == 0, result.stderr
    (post,) = [r for r in api.requests if r.method == "POST"]
    assert post.path == "/apis/testworkflows.testkube.io/v1/namespaces/tk/testworkflowexecutions"
    assert post.body["spec"]["testWorkflow"] == {"name": "custom-wf"}


def test_run_without_testkube(api: FakeApiServer, kubeconfig: Path) -> None:
    del api.served["/apis/testworkflows.testkube.io/v1"]
    result = cli("run", "weather")
    assert result.exit_code == 3
    assert "error: TestWorkflowExecution (testworkflows.testkube.io/v1) is not served" in one_line_error(result)


def test_forbidden_experiment_falls_back_to_the_rendered_workflow_name(applied: FakeApiServer) -> None:
    """``get`` on Experiments is optional (docs/cluster.md, RBAC): without it, a note and the name render gives."""
    applied.hook("GET", "/experiments/weather$", lambda r: (403, {
        "kind": "Status", "reason": "Forbidden", "code": 403, "message": 'experiments.testbench.agentic-layer.ai '
        '"weather" is forbidden: User "ci" cannot get resource "experiments" in API group '
        '"testbench.agentic-layer.ai" in the namespace "team-a"'}))
    result = cli("run", "weather")
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines()[0] == (
        'note: forbidden: RBAC does not allow user "ci" to get experiments.testbench.agentic-layer.ai in namespace '
        '"team-a"; ask for a Role that grants it (see docs/cluster.md): the workflow is the one render names, '
        f"{WORKFLOW}")
    assert [r.body["spec"]["testWorkflow"]["name"] for r in applied.requests if r.method == "POST"] == [WORKFLOW]


def test_wait_follows_progress_until_it_passes(applied: FakeApiServer) -> None:
    script(applied, {}, execution_status("queued"),
           execution_status("running", {"s1": "running"}),
           execution_status("running", {"s1": "passed", "s2": "running"}),
           execution_status("running", {"s1": "passed", "s2": "running"}),
           execution_status("passed", dict.fromkeys(("s1", "s2", "s3", "s4"), "passed")))
    result = cli("run", "weather", "--wait", "--poll-interval", "1ms", "-o", "json")
    assert result.exit_code == 0, result.stderr
    lines = result.stderr.splitlines()
    progress_lines = lines[1:lines.index("execution #7 passed in 3m12.5s (id 6650e1f0c0ffee)")]
    assert progress_lines == [
        f"execution {WORKFLOW}-00001 pending",
        "execution #7 queued",
        "execution #7 running: step 1/4 run-template › run-agent",
        "execution #7 running: step 2/4 evaluate-template › evaluate",
        "execution #7 passed",
    ], "one line per change, not per poll"
    assert "  HTML report: artifact data/results/evaluation_report.html: testkube download artifacts " \
           "6650e1f0c0ffee --namespace testkube" in lines
    assert ("               or kubectl get --raw /api/v1/namespaces/testkube/services/testkube-api-server:8088/proxy"
            "/v1/test-workflow-executions/6650e1f0c0ffee/artifacts") in lines
    assert f"  dashboard:   <Testkube dashboard URL>/test-workflows/{WORKFLOW}/execution/6650e1f0c0ffee" in lines
    assert '  metrics:     testbench_evaluation_metric{experiment_name="weather",execution_id="6650e1f0c0ffee"} ' \
           "(OTLP)" in lines
    record = json.loads(result.stdout)
    assert record["status"] == "passed" and record["number"] == 7 and record["id"] == "6650e1f0c0ffee"
    assert record["report"]["artifact"] == "data/results/evaluation_report.html"
    gets = [r for r in applied.requests if r.method == "GET" and "/testworkflowexecutions/" in r.path]
    assert len(gets) == 6


def test_wait_exits_1_when_the_execution_fails(applied: FakeApiServer) -> None:
    script(applied, execution_status("running", {"s1": "running"}),
           execution_status("failed", {"s1": "passed", "s2": "failed", "s3": "skipped"},
                            error="process exited with code 1\nOPENAI_API_KEY missing"))
    result = cli("run", "weather", "--wait", "--poll-interval", "1ms")
    assert result.exit_code == 1
    assert one_line_error(result) == ('error: execution #7 failed at step "evaluate-template › evaluate" in 3m12.5s: '
                                      "process exited with code 1 OPENAI_API_KEY missing")
    assert "  HTML report: artifact data/results/evaluation_report.html" in result.stderr
    assert result.stdout.startswith("testworkflowexecution.testworkflows.testkube.io/")


def test_wait_reports_a_scheduling_failure(applied: FakeApiServer) -> None:
    script(applied, execution_status("failed", init_error="Failed to schedule execution: template "
                                                          "\"run-template\" not found"))
    result = cli("run", "weather", "--wait", "--poll-interval", "1ms")
    assert result.exit_code == 1
    assert 'Failed to schedule execution: template "run-template" not found' in one_line_error(result)


def test_wait_times_out_with_exit_1(applied: FakeApiServer) -> None:
    script(applied, execution_status("running", {"s1": "running"}))
    result = cli("run", "weather", "--wait", "--poll-interval", "50ms", "--timeout", "200ms")
    assert result.exit_code == 1
    assert one_line_error(result) == (f"error: execution #7 ({WORKFLOW}-00001) still running after 0.2s (--timeout); "
                                      "it keeps running: kubectl testbench status weather -n team-a")
    assert result.stdout == f"testworkflowexecution.testworkflows.testkube.io/{WORKFLOW}-00001\n"  # to follow it


def test_wait_survives_an_aborted_execution(applied: FakeApiServer) -> None:
    script(applied, execution_status("aborted", {"s1": "aborted"}))
    result = cli("run", "weather", "--wait", "--poll-interval", "1ms")
    assert result.exit_code == 1
    assert "error: execution #7 aborted" in one_line_error(result)


def test_client_dry_run_prints_the_body_and_sends_nothing(api: FakeApiServer, kubeconfig: Path) -> None:
    result = cli("run", "weather", "--dry-run=client", "-n", "team-b")
    assert result.exit_code == 0
    assert api.requests == []
    body = yaml.safe_load(result.stdout)
    assert body["spec"]["testWorkflow"]["name"] == "weather-team-b-workflow"


def test_server_dry_run_and_wait_do_not_mix(applied: FakeApiServer) -> None:
    result = cli("run", "weather", "--dry-run=server")
    assert result.exit_code == 0
    (post,) = [r for r in applied.requests if r.method == "POST"]
    assert post.q("dryRun") == "All"
    assert cli("run", "weather", "--dry-run=server", "--wait").exit_code == 2


def test_bad_tag_is_a_usage_error(kubeconfig: Path) -> None:
    result = cli("run", "weather", "--tag", "novalue")
    assert result.exit_code == 2
    assert "use KEY=VALUE" in result.stderr


def test_progress_reads_a_bare_execution() -> None:
    p = progress({"metadata": {"name": "x"}})
    assert (p.status, p.finished, p.number, p.step) == ("pending", False, None, "")
    p = progress({"status": {"error": "workflow not found"}})
    assert (p.status, p.finished, p.succeeded, p.error) == ("failed", True, False, "workflow not found")


def test_a_terminal_gets_one_self_updating_progress_line(applied: FakeApiServer,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    import kubectl_testbench.cli.run as run_cli_module

    monkeypatch.setattr(run_cli_module, "_interactive", lambda: True)
    script(applied, execution_status("running", {"s1": "running"}), execution_status("running", {"s1": "running"}),
           execution_status("passed", dict.fromkeys(("s1", "s2", "s3", "s4"), "passed")))
    result = cli("run", "weather", "--wait", "--poll-interval", "1ms")
    assert result.exit_code == 0
    assert result.stderr.count("\r\x1b[Kexecution #7 running: step 1/4 run-template › run-agent [0:00]") == 2
    assert "\r\x1b[Kexecution #7 passed [0:00]\nexecution #7 passed in 3m12.5s" in result.stderr

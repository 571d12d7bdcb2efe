"""status against a local HTTP stand-in of the API server: GitOps mode, operator mode, last executions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.cluster.conftest import FIXTURES, cli, one_line_error
from tests.cluster.fakeapi import FakeApiServer, status

pytestmark = pytest.mark.fake_api(
    "Testkube's execution records in every state and 403s on demand (no Testkube controller runs here); status "
    "against kube-apiserver 1.35.4 is tests/controlplane/test_run_status.py")

EXPERIMENT_CRD = "/apis/testbench.agentic-layer.ai/v1alpha1"


def experiment(name: str, namespace: str = "team-a", **status: Any) -> dict[str, Any]:
    return {
        "apiVersion": "testbench.agentic-layer.ai/v1alpha1", "kind": "Experiment",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"agentRef": {"name": f"{name}-agent"}, "dataset": {"s3": {"bucket": "b", "key": "k.json"}},
                 "schedule": {"cron": "*/5 * * * *"}, "trigger": {"enabled": True, "concurrencyPolicy": "Forbid"}},
        "status": status,
    }


def execution(name: str, workflow: str, number: int, state: str, scheduled: str) -> dict[str, Any]:
    return {"apiVersion": "testworkflows.testkube.io/v1", "kind": "TestWorkflowExecution",
            "metadata": {"name": name, "namespace": "testkube"},
            "spec": {"testWorkflow": {"name": workflow}},
            "status": {"latestExecution": {"id": f"id-{number}", "number": number, "scheduledAt": scheduled,
                                           "result": {"status": state, "startedAt": scheduled}}}}


def test_gitops_mode_rows_come_from_generated_workflows(api: FakeApiServer, kubeconfig: Path) -> None:
    del api.served[EXPERIMENT_CRD]
    assert cli("apply", str(FIXTURES)).exit_code == 0
    api.put(execution("weather-run-1", "weather-team-a-workflow", 3, "passed", "2024-05-02T08:00:00Z"))
    api.put(execution("weather-run-2", "weather-team-a-workflow", 4, "failed", "2024-05-03T08:00:00Z"))
    result = cli("status")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == (
        "NAME      AGENT                  DATASET   SCHEDULE                    TRIGGER   WORKFLOW   "
        "LAST EXECUTION            RESULT   SOURCE\n"
        "news      team-a/news-agent      url       -                           -         yes        "
        "-                         -        workflow\n"
        "weather   agents/weather-agent   inline    0 3 * * * (Europe/Berlin)   allow     yes        "
        "#4 2024-05-03T08:00:00Z   failed   workflow\n")
    assert "note: no Experiment CRD in the cluster (GitOps mode): rows come from generated TestWorkflows" \
        in result.stderr


def test_workflow_status_is_the_preferred_record_of_the_last_execution(api: FakeApiServer, kubeconfig: Path) -> None:
    assert cli("apply", str(FIXTURES / "weather.yaml")).exit_code == 0
    wf = api.objects["/apis/testworkflows.testkube.io/v1/namespaces/testkube/testworkflows/weather-team-a-workflow"]
    wf["status"] = {"latestExecution": {"id": "cron-9", "number": 9, "scheduledAt": "2024-06-01T03:00:00Z",
                                        "result": {"status": "passed", "startedAt": "2024-06-01T03:00:01Z",
                                                   "finishedAt": "2024-06-01T03:04:00Z"}}}
    api.put(execution("weather-run-2", "weather-team-a-workflow", 4, "failed", "2024-05-03T08:00:00Z"))
    data = json.loads(cli("status", "weather", "-o", "json").stdout)
    (row,) = data["items"]
    assert row["lastExecution"] == {"id": "cron-9", "number": 9, "status": "passed",
                                    "startTime": "2024-06-01T03:00:01Z", "endTime": "2024-06-01T03:04:00Z",
                                    "source": "testworkflow status"}


def test_operator_mode_rows_come_from_experiments(api: FakeApiServer, kubeconfig: Path) -> None:
    api.put(experiment("rag", lastExecution={"executionId": "e1", "executionNumber": 2, "status": "passed",
                                             "startTime": "2024-05-01T00:00:00Z"}))
    api.put(experiment("elsewhere", namespace="team-b"))
    result = cli("status", "-o", "yaml")
    assert result.exit_code == 0
    data = yaml.safe_load(result.stdout)
    assert data["sources"] == {"experimentCRD": True, "testkube": True}
    (row,) = data["items"]
    assert row == {
        "namespace": "team-a", "name": "rag", "source": "experiment", "agent": "team-a/rag-agent",
        "dataset": "s3", "schedule": "*/5 * * * *", "trigger": "forbid",
        "workflow": {"name": "rag-team-a-workflow", "namespace": "testkube", "present": False},
        "lastExecution": {"id": "e1", "number": 2, "status": "passed", "startTime": "2024-05-01T00:00:00Z",
                          "endTime": "", "source": "experiment status"},
    }


def test_experiment_and_its_workflow_merge_into_one_row(api: FakeApiServer, kubeconfig: Path) -> None:
    api.put(experiment("weather"))
    assert cli("apply", str(FIXTURES / "weather.yaml")).exit_code == 0
    data = json.loads(cli("status", "-o", "json").stdout)
    (row,) = data["items"]
    assert row["source"] == "experiment" and row["workflow"]["present"] is True
    assert row["dataset"] == "s3", "the Experiment is the source of truth for its spec"


def test_all_namespaces_adds_a_column_and_lists_cluster_wide(api: FakeApiServer, kubeconfig: Path) -> None:
    api.put(experiment("rag"))
    api.put(experiment("elsewhere", namespace="team-b"))
    result = cli("status", "-A")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].split()[:2] == ["NAMESPACE", "NAME"]
    assert [line.split()[:2] for line in lines[1:]] == [["team-a", "rag"], ["team-b", "elsewhere"]]
    lists = [r.path for r in api.requests if r.path.endswith("/experiments")]
    assert lists == [f"{EXPERIMENT_CRD}/experiments"]
    wf_list = next(r for r in api.requests if r.path.endswith("/testworkflows"))
    assert wf_list.q("labelSelector") == "testbench.agentic-layer.ai/experiment-name"


def test_namespace_scoping_uses_the_experiment_namespace_label(api: FakeApiServer, kubeconfig: Path) -> None:
    cli("status", "-n", "team-b")
    wf_list = next(r for r in api.requests if r.path.endswith("/testworkflows"))
    assert wf_list.path == "/apis/testworkflows.testkube.io/v1/namespaces/testkube/testworkflows"
    assert wf_list.q("labelSelector") == ("testbench.agentic-layer.ai/experiment-name,"
                                          "testbench.agentic-layer.ai/experiment-namespace=team-b")


def test_unknown_experiment_exits_2(api: FakeApiServer, kubeconfig: Path) -> None:
    result = cli("status", "nope")
    assert result.exit_code == 2
    assert one_line_error(result) == ('error: Experiment "nope" not found in namespace "team-a": neither an '
                                      "Experiment resource nor a TestWorkflow generated for it")


def test_empty_namespace_says_so_on_stderr(api: FakeApiServer, kubeconfig: Path) -> None:
    result = cli("status")
    assert result.exit_code == 0
    assert result.stdout == ""
    assert "No Experiments found in namespace team-a." in result.stderr


def test_forbidden_experiments_fall_back_to_workflows_with_a_note(api: FakeApiServer, kubeconfig: Path) -> None:
    assert cli("apply", str(FIXTURES / "news.yaml")).exit_code == 0
    api.hook("GET", "/experiments$", lambda r: status(403, "Forbidden", 'User "viewer" cannot list resource'))
    result = cli("status")
    assert result.exit_code == 0
    assert "news" in result.stdout
    assert 'note: Experiments not listed: forbidden: RBAC does not allow user "viewer" to list ' \
           'experiments.testbench.agentic-layer.ai in namespace "team-a"' in result.stderr


@pytest.mark.parametrize("plural", ["testworkflows", "testtriggers", "testworkflowexecutions"])
def test_forbidden_testkube_kinds_fail(api: FakeApiServer, kubeconfig: Path, plural: str) -> None:
    """The TestWorkflows, TestTriggers and executions are what status reports on: not readable, it cannot say
    whether a workflow exists or what ran, so it fails (exit 3) rather than print a table of "missing"."""
    assert cli("apply", str(FIXTURES / "weather.yaml"), "--include-experiment").exit_code == 0
    api.hook("GET", f"/{plural}$", lambda r: status(403, "Forbidden", f'User "viewer" cannot list resource "{plural}"'))
    result = cli("status")
    assert result.exit_code == 3
    assert result.stdout == ""
    group = "tests.testkube.io" if plural == "testtriggers" else "testworkflows.testkube.io"
    assert one_line_error(result) == (f'error: forbidden: RBAC does not allow user "viewer" to list {plural}.{group} '
                                      'in namespace "testkube"; ask for a Role that grants it (see docs/cluster.md)')


def test_without_testkube(api: FakeApiServer, kubeconfig: Path) -> None:
    del api.served["/apis/testworkflows.testkube.io/v1"]
    api.put(experiment("rag"))
    result = cli("status", "-o", "json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["sources"]["testkube"] is False
    assert data["items"][0]["workflow"]["present"] is False
    assert "note: Testkube is not installed" in result.stderr

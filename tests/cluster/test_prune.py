"""apply --prune and prune against a local HTTP stand-in of the API server: selector, scope, safety."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.cluster.conftest import FIXTURES, NAMESPACE_NOTICE, cli
from tests.cluster.fakeapi import FakeApiServer, Recorded

pytestmark = pytest.mark.fake_api(
    "the requests prune sends (label selector, dryRun in the DELETE body, scope) and races on demand (an object "
    "gone meanwhile, one being deleted, a 403); prune against kube-apiserver 1.35.4 is "
    "tests/controlplane/test_prune.py")

OURS = {
    "app.kubernetes.io/managed-by": "kubectl-testbench",
    "testbench.agentic-layer.ai/managed-by": "experiment-controller",
}


def obj(kind: str, name: str, experiment: str | None, exp_ns: str = "team-a", namespace: str = "testkube",
        ours: bool = True, resource_type: str = "workflow") -> dict[str, Any]:
    api = {"ConfigMap": "v1", "TestWorkflow": "testworkflows.testkube.io/v1",
           "TestTrigger": "tests.testkube.io/v1"}[kind]
    labels: dict[str, str] = {}
    if experiment is not None:
        labels = {"testbench.agentic-layer.ai/experiment-name": experiment,
                  "testbench.agentic-layer.ai/experiment-namespace": exp_ns,
                  "testbench.agentic-layer.ai/resource-type": resource_type,
                  "testbench.agentic-layer.ai/managed-by": "experiment-controller"}
        if ours:
            labels.update(OURS)
    return {"apiVersion": api, "kind": kind, "metadata": {"name": name, "namespace": namespace, "labels": labels}}


def seed(api: FakeApiServer) -> None:
    """An old Experiment of ours, one of another team, the operator's, and hand-made objects."""
    for o in (
        obj("ConfigMap", "old-team-a-experiment", "old", resource_type="dataset"),
        obj("TestWorkflow", "old-team-a-workflow", "old"),
        obj("TestTrigger", "old-team-a-trigger", "old", resource_type="trigger"),
        obj("TestWorkflow", "billing-team-b-workflow", "billing", exp_ns="team-b"),
        obj("TestWorkflow", "legacy-team-a-workflow", "legacy", ours=False),  # the operator's: no k8s label
        obj("ConfigMap", "kube-root-ca.crt", None),  # nobody's
        obj("TestWorkflow", "smoke", None),
    ):
        api.put(o)


def deletes(api: FakeApiServer) -> list[str]:
    return [r.path.rsplit("/", 1)[1] for r in api.requests if r.method == "DELETE"]


def test_apply_prune_deletes_only_our_stale_objects_in_reverse_dependency_order(
        api: FakeApiServer, kubeconfig: Path) -> None:
    seed(api)
    result = cli("apply", str(FIXTURES), "--prune")
    assert result.exit_code == 0, result.stderr
    assert deletes(api) == ["old-team-a-trigger", "billing-team-b-workflow", "old-team-a-workflow",
                            "old-team-a-experiment"]
    left = sorted(p.rsplit("/", 1)[1] for p in api.objects)
    assert "legacy-team-a-workflow" in left and "kube-root-ca.crt" in left and "smoke" in left
    assert "testtrigger.tests.testkube.io/old-team-a-trigger pruned (its Experiment is no longer in the input: " \
           "team-a/old)" in result.stderr


def test_prune_lists_with_our_label_selector_in_the_testkube_namespace(api: FakeApiServer, kubeconfig: Path) -> None:
    seed(api)
    assert cli("apply", str(FIXTURES), "--prune").exit_code == 0
    lists = [r for r in api.requests if r.method == "GET" and r.path.endswith(("configmaps", "testworkflows",
                                                                               "testtriggers"))]
    assert [r.path for r in lists] == [
        "/apis/tests.testkube.io/v1/namespaces/testkube/testtriggers",
        "/apis/testworkflows.testkube.io/v1/namespaces/testkube/testworkflows",
        "/api/v1/namespaces/testkube/configmaps",
    ]
    assert {r.q("labelSelector") for r in lists} == {"app.kubernetes.io/managed-by=kubectl-testbench"}


def test_delete_requests_carry_uid_preconditions_and_background_propagation(
        api: FakeApiServer, kubeconfig: Path) -> None:
    api.put(obj("TestWorkflow", "old-team-a-workflow", "old"))
    assert cli("apply", str(FIXTURES), "--prune").exit_code == 0
    (delete,) = [r for r in api.requests if r.method == "DELETE"]
    assert delete.path == "/apis/testworkflows.testkube.io/v1/namespaces/testkube/testworkflows/old-team-a-workflow"
    assert delete.body == {"apiVersion": "v1", "kind": "DeleteOptions", "propagationPolicy": "Background",
                           "preconditions": {"uid": "uid-old-team-a-workflow"}}
    assert delete.query == {}


def test_objects_without_our_label_survive_a_server_that_ignores_the_selector(
        api: FakeApiServer, kubeconfig: Path) -> None:
    """Defence in depth: even if the list answer contains foreign objects, they are never deleted."""
    seed(api)

    def everything(req: Recorded) -> tuple[int, Any] | None:
        if not req.path.endswith("/testworkflows"):
            return None
        items = [o for p, o in api.objects.items() if "/testworkflows/" in p]
        return 200, {"kind": "TestWorkflowList", "items": items}

    api.hook("GET", "/testworkflows$", everything)
    assert cli("apply", str(FIXTURES), "--prune").exit_code == 0
    assert "legacy-team-a-workflow" not in deletes(api)
    assert "smoke" not in deletes(api)
    assert "billing-team-b-workflow" in deletes(api)


def test_prune_experiment_namespace_limits_the_scope(api: FakeApiServer, kubeconfig: Path) -> None:
    seed(api)
    assert cli("apply", str(FIXTURES), "--prune", "--prune-experiment-namespace", "team-a").exit_code == 0
    assert "billing-team-b-workflow" not in deletes(api)
    assert "old-team-a-workflow" in deletes(api)
    selectors = {r.q("labelSelector") for r in api.requests if r.method == "GET" and r.q("labelSelector")}
    assert selectors == {"app.kubernetes.io/managed-by=kubectl-testbench,"
                         "testbench.agentic-layer.ai/experiment-namespace=team-a"}


def test_objects_an_experiment_no_longer_generates_are_pruned(api: FakeApiServer, kubeconfig: Path,
                                                              tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(FIXTURES / "weather.yaml", src)
    assert cli("apply", str(src)).exit_code == 0
    (src / "weather.yaml").write_text((src / "weather.yaml").read_text().replace("enabled: true", "enabled: false"))
    result = cli("apply", str(src), "--prune")
    assert result.exit_code == 0
    assert deletes(api) == ["weather-team-a-trigger"]
    assert "(its Experiment no longer generates it: team-a/weather)" in result.stderr


def test_server_dry_run_prune_sends_dry_run_all(api: FakeApiServer, kubeconfig: Path) -> None:
    seed(api)
    result = cli("apply", str(FIXTURES), "--prune", "--dry-run=server")
    assert result.exit_code == 0
    dels = [r for r in api.requests if r.method == "DELETE"]
    assert dels and all(r.body["dryRun"] == ["All"] for r in dels)  # the server reads DeleteOptions from the body
    assert "old-team-a-workflow" in " ".join(api.objects)
    assert "pruned (server dry run)" in result.stderr


def test_client_dry_run_prune_lists_but_never_deletes(api: FakeApiServer, kubeconfig: Path) -> None:
    seed(api)
    result = cli("apply", str(FIXTURES), "--prune", "--dry-run=client")
    assert result.exit_code == 0
    assert api.writes() == []
    assert "testworkflow.testworkflows.testkube.io/old-team-a-workflow pruned (dry run)" in result.stderr


def test_prune_command_without_apply(api: FakeApiServer, kubeconfig: Path) -> None:
    seed(api)
    result = cli("prune", str(FIXTURES))
    assert result.exit_code == 0, result.stderr
    assert not [r for r in api.requests if r.method == "PATCH"]
    assert "old-team-a-workflow" in deletes(api)


def test_prune_refuses_empty_input_unless_allowed(api: FakeApiServer, kubeconfig: Path, tmp_path: Path) -> None:
    seed(api)
    result = cli("prune", str(tmp_path))
    assert result.exit_code == 2
    assert "pruning would delete everything kubectl-testbench created" in result.stderr
    assert api.requests == []
    assert cli("prune").exit_code == 2
    result = cli("prune", "--allow-empty", "--prune-experiment-namespace", "team-b")
    assert result.exit_code == 0
    assert deletes(api) == ["billing-team-b-workflow"]


def test_object_gone_meanwhile_is_not_an_error(api: FakeApiServer, kubeconfig: Path) -> None:
    seed(api)
    api.hook("DELETE", "old-team-a-workflow", lambda r: (404, {"kind": "Status", "reason": "NotFound",
                                                              "details": {"name": "old-team-a-workflow"}}))
    result = cli("prune", str(FIXTURES))
    assert result.exit_code == 0
    assert "old-team-a-workflow pruned" not in result.stderr


def test_nothing_to_prune_says_so(api: FakeApiServer, kubeconfig: Path) -> None:
    result = cli("prune", str(FIXTURES))
    assert result.exit_code == 0
    assert result.stderr.splitlines() == [NAMESPACE_NOTICE, "nothing to prune in namespace testkube"]


def test_prune_forbidden_is_a_cluster_error(api: FakeApiServer, kubeconfig: Path) -> None:
    seed(api)
    api.hook("DELETE", "", lambda r: (403, {"kind": "Status", "reason": "Forbidden", "message": 'User "ci" cannot '
                                             "delete resource"}))
    result = cli("prune", str(FIXTURES))
    assert result.exit_code == 3
    assert 'error: forbidden: RBAC does not allow user "ci" to delete testtriggers.tests.testkube.io in ' \
           'namespace "testkube"' in result.stderr


def test_objects_already_being_deleted_are_left_alone(api: FakeApiServer, kubeconfig: Path) -> None:
    stale = obj("TestWorkflow", "old-team-a-workflow", "old")
    stale["metadata"]["deletionTimestamp"] = "2024-05-01T10:00:00Z"
    api.put(stale)
    assert cli("prune", str(FIXTURES)).exit_code == 0
    assert deletes(api) == []


def test_find_stale_enforces_kind_namespace_and_name_whatever_the_lister_returns() -> None:
    """The rules hold without the client's help: a lister that returns anything yields only our objects, of the
    kind and in the namespace listed, addressed by what was listed (not by what an object claims)."""
    from kubectl_testbench.cluster.prune import find_stale
    from kubectl_testbench.cluster.resources import CONFIGMAP

    good = obj("ConfigMap", "old-team-a-experiment", "old")
    foreign = [{**obj("ConfigMap", "kube-system", "old"), "apiVersion": "v1", "kind": "Namespace"},
               obj("ConfigMap", "coredns", "old", namespace="kube-system"),
               obj("ConfigMap", "..", "old"),
               {**obj("ConfigMap", "x", "old"), "metadata": {**obj("ConfigMap", "x", "old")["metadata"], "name": 7}},
               {**obj("ConfigMap", "y", "old"), "metadata": ["not", "a", "mapping"]}]

    class Lister:
        def served(self, kind: Any) -> bool:
            return kind == CONFIGMAP

        def list(self, kind: Any, namespace: str, selector: str) -> list[dict[str, Any]]:
            return [good, *foreign]

    warnings: list[str] = []
    stale = find_stale(Lister(), [], ["testkube"], warn=warnings.append)  # type: ignore[arg-type]
    assert [(s.ref.path, s.uid) for s in stale] == [
        ("/api/v1/namespaces/testkube/configmaps/old-team-a-experiment", "")]
    assert warnings == [
        'the API server listed a Namespace (v1) among configmaps in namespace "testkube": not pruned',
        'the API server listed configmap/coredns in namespace "kube-system" when asked for namespace "testkube": '
        "not pruned",
        'the API server listed a configmap named ".." in namespace "testkube", which is not a valid name: not pruned',
        'the API server listed a configmap named "7" in namespace "testkube", which is not a valid name: not pruned',
    ]

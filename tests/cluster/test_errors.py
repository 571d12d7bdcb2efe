"""Every cluster failure mode: its one-line message and exit code, against a local HTTP stand-in of the
API server (or a closed port). Never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cluster.conftest import FIXTURES, NAMESPACE_NOTICE, cli, one_line_error
from tests.cluster.fakeapi import FakeApiServer, Recorded, status
from tests.conftest import run_process

pytestmark = pytest.mark.fake_api(
    "every failure mode on demand: 401, 403, 404 of a kind, 409, 422 bodies, 500, truncated and non-JSON bodies, a "
    "closed port")

WF = "/testworkflows/weather-team-a-workflow"
CONFLICT = {
    "name": "weather-team-a-workflow", "group": "testworkflows.testkube.io", "kind": "testworkflows",
    "causes": [
        {"reason": "FieldManagerConflict", "message": 'conflict with "kubectl-client-side-apply" using '
         "testworkflows.testkube.io/v1", "field": ".spec.events"},
        {"reason": "FieldManagerConflict", "message": 'conflict with "kubectl-client-side-apply" using '
         "testworkflows.testkube.io/v1", "field": ".spec.use"},
    ],
}


def test_unreachable_server_names_the_url_and_exits_3(api: FakeApiServer, isolated: Path, closed_port: int) -> None:
    config = api.kubeconfig(isolated / "kc", server=f"http://127.0.0.1:{closed_port}")
    result = cli("apply", str(FIXTURES), "--kubeconfig", str(config))
    assert result.exit_code == 3
    assert one_line_error(result) == (
        f"error: cannot reach the Kubernetes API server at http://127.0.0.1:{closed_port}: connection refused "
        "(is the cluster running? check --context and --kubeconfig)")


def test_slow_server_times_out_after_request_timeout(api: FakeApiServer, kubeconfig: Path) -> None:
    api.delay = 2.0
    result = cli("status", "--request-timeout", "300ms")
    assert result.exit_code == 3
    assert one_line_error(result) == (f"error: the Kubernetes API server at {api.url} did not answer within 0.3s "
                                      "(--request-timeout)")


def test_missing_testkube_crd_fails_before_any_write(api: FakeApiServer, kubeconfig: Path) -> None:
    del api.served["/apis/testworkflows.testkube.io/v1"]
    result = cli("apply", str(FIXTURES))
    assert result.exit_code == 3
    assert one_line_error(result) == (
        f"error: TestWorkflow (testworkflows.testkube.io/v1) is not served by the cluster at {api.url}: install "
        "Testkube first (https://docs.testkube.io/articles/install/overview)")
    assert api.writes() == []


def test_crd_removed_between_discovery_and_write_is_still_named(api: FakeApiServer, kubeconfig: Path) -> None:
    """A 404 without object details on a resource path means the resource itself is not served."""
    api.hook("PATCH", "/testtriggers/", lambda r: status(404, "NotFound", "the server could not find the "
                                                                         "requested resource"))
    result = cli("apply", str(FIXTURES))
    assert result.exit_code == 3
    assert "error: TestTrigger (tests.testkube.io/v1) is not served by the cluster" in result.stderr


def test_missing_experiment_crd_with_include_experiment(api: FakeApiServer, kubeconfig: Path) -> None:
    del api.served["/apis/testbench.agentic-layer.ai/v1alpha1"]
    result = cli("apply", str(FIXTURES), "--include-experiment")
    assert result.exit_code == 3
    assert "error: Experiment (testbench.agentic-layer.ai/v1alpha1) is not served by the cluster" in result.stderr
    assert "kubectl testbench crd | kubectl apply --server-side -f -" in result.stderr
    assert api.writes() == []


def test_rbac_forbidden_names_verb_resource_and_namespace(api: FakeApiServer, kubeconfig: Path) -> None:
    api.hook("PATCH", "/testworkflows/", lambda r: status(
        403, "Forbidden", 'testworkflows.testkube.io "news-team-a-workflow" is forbidden: User "jane" cannot patch '
        'resource "testworkflows" in API group "testworkflows.testkube.io" in the namespace "testkube"',
        {"name": "news-team-a-workflow", "group": "testworkflows.testkube.io", "kind": "testworkflows"}))
    result = cli("apply", str(FIXTURES))
    assert result.exit_code == 3
    assert one_line_error(result) == (
        'error: forbidden: RBAC does not allow user "jane" to patch testworkflows.testworkflows.testkube.io in '
        'namespace "testkube"; ask for a Role that grants it (see docs/cluster.md)')


def test_rbac_forbidden_names_the_verb_the_authorizer_denied(api: FakeApiServer, kubeconfig: Path) -> None:
    """kube-apiserver authorizes a server-side apply that would create an object as ``create`` as well: with
    ``patch`` granted and ``create`` not, it refuses the PATCH naming ``create`` (tests/controlplane/test_rbac.py)."""
    api.hook("PATCH", "/configmaps/", lambda r: status(
        403, "Forbidden", 'configmaps "weather-team-a-experiment" is forbidden: User "jane" cannot create resource '
        '"configmaps" in API group "" in the namespace "testkube"', {"name": "weather-team-a-experiment",
                                                                      "kind": "configmaps"}))
    result = cli("apply", str(FIXTURES))
    assert result.exit_code == 3
    assert one_line_error(result) == (
        'error: forbidden: RBAC does not allow user "jane" to create configmaps in namespace "testkube" (a '
        "server-side apply that creates an object needs create as well as patch); ask for a Role that grants it "
        "(see docs/cluster.md)")


def test_field_conflict_names_the_other_manager_and_fields(api: FakeApiServer, kubeconfig: Path) -> None:
    def conflict(req: Recorded) -> tuple[int, object] | None:
        if req.q("force") == "true":
            return None
        return status(409, "Conflict", "Apply failed with 2 conflicts: ...", CONFLICT)

    api.hook("PATCH", WF, conflict)
    result = cli("apply", str(FIXTURES))
    assert result.exit_code == 3
    assert one_line_error(result) == (
        "error: conflict applying testworkflow.testworkflows.testkube.io/weather-team-a-workflow: field manager "
        '"kubectl-client-side-apply" owns .spec.events, .spec.use. Another tool changed these fields; re-run '
        "with --force-conflicts to take them over")
    forced = cli("apply", str(FIXTURES), "--force-conflicts")
    assert forced.exit_code == 0, forced.stderr


def test_server_error_mid_apply_reports_applied_and_not_applied(api: FakeApiServer, kubeconfig: Path) -> None:
    api.hook("PATCH", WF, lambda r: status(500, "InternalError", "Internal error occurred: etcd\nleader changed"))
    result = cli("apply", str(FIXTURES))
    assert result.exit_code == 3
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert errors == [
        f"error: the Kubernetes API server at {api.url} failed to patch TestWorkflow \"weather-team-a-workflow\" "
        'in namespace "testkube": 500 InternalError: Internal error occurred: etcd leader changed',
        "error: applied 2 of 4 objects (configmap/weather-team-a-experiment, "
        "testworkflow.testworkflows.testkube.io/news-team-a-workflow); not applied: "
        "testworkflow.testworkflows.testkube.io/weather-team-a-workflow (failed), "
        "testtrigger.tests.testkube.io/weather-team-a-trigger. Server-side apply is idempotent: fix the cause "
        "and run the same command again.",
    ]
    assert "testtrigger" not in " ".join(w.path for w in api.writes())
    api.hooks.clear()
    again = cli("apply", str(FIXTURES))
    assert again.exit_code == 0
    assert len(api.objects) == 4


def test_rejected_credentials(api: FakeApiServer, kubeconfig: Path) -> None:
    api.hook("GET", "", lambda r: status(401, "Unauthorized", "Unauthorized"))
    result = cli("status")
    assert result.exit_code == 3
    assert one_line_error(result) == (f"error: the Kubernetes API server at {api.url} rejected the credentials "
                                      "(401 Unauthorized): log in again or fix the kubeconfig user")


def test_missing_testkube_namespace(api: FakeApiServer, kubeconfig: Path) -> None:
    api.namespaces.discard("testkube")
    result = cli("apply", str(FIXTURES))
    assert result.exit_code == 3
    assert one_line_error(result) == ('error: namespace "testkube" does not exist (patch ConfigMap '
                                      '"weather-team-a-experiment" in namespace "testkube")')


def test_invalid_object_is_reported_in_one_line(api: FakeApiServer, kubeconfig: Path) -> None:
    api.hook("PATCH", "/testtriggers/", lambda r: status(
        422, "Invalid", 'TestTrigger.tests.testkube.io "weather-team-a-trigger" is invalid: spec.event: '
        'Unsupported value: "x"'))
    result = cli("apply", str(FIXTURES))
    assert result.exit_code == 3
    assert one_line_error(result) == (
        'error: the API server refused to patch TestTrigger "weather-team-a-trigger" in namespace "testkube": '
        'TestTrigger.tests.testkube.io "weather-team-a-trigger" is invalid: spec.event: Unsupported value: "x"')


def test_answer_that_is_not_json(api: FakeApiServer, kubeconfig: Path) -> None:
    api.hook("GET", "/apis/testbench", lambda r: (502, "<html>bad gateway</html>"))
    result = cli("status")
    assert result.exit_code == 3
    assert "502" in one_line_error(result)


@pytest.mark.parametrize("verb", [("apply", str(FIXTURES)), ("diff", str(FIXTURES)), ("status",),
                                  ("run", "weather"), ("prune", str(FIXTURES))])
def test_no_kubeconfig_is_a_usage_error(isolated: Path, verb: tuple[str, ...]) -> None:
    result = cli(*verb)
    assert result.exit_code == 2
    assert one_line_error(result) == ("error: no kubeconfig found: pass --kubeconfig, set KUBECONFIG, create "
                                      "~/.kube/config or run inside a cluster")


def test_unknown_context_lists_the_available_ones(kubeconfig: Path) -> None:
    result = cli("status", "--context", "prod")
    assert result.exit_code == 2
    assert one_line_error(result) == (f'error: context "prod" (--context) is not defined in {kubeconfig} '
                                      "(available: other, stand-in)")


def test_missing_kubeconfig_file(isolated: Path) -> None:
    result = cli("status", "--kubeconfig", str(isolated / "nope"))
    assert result.exit_code == 2
    assert one_line_error(result) == f"error: kubeconfig {isolated / 'nope'} not found (--kubeconfig)"


def test_broken_kubeconfig(isolated: Path) -> None:
    path = isolated / "kc"
    path.write_text("clusters: [\n")
    result = cli("status", "--kubeconfig", str(path))
    assert result.exit_code == 2
    assert one_line_error(result) == f"error: cannot read kubeconfig {path}: ParserError"


def test_real_process_prints_no_traceback(api: FakeApiServer, isolated: Path, closed_port: int) -> None:
    """The installed entry point, not just the click command: stderr is one error line, exit code 3."""
    config = api.kubeconfig(isolated / "kc", server=f"http://127.0.0.1:{closed_port}")
    proc = run_process("apply", str(FIXTURES), "--kubeconfig", str(config), env={"HOME": str(isolated)})
    assert proc.returncode == 3
    assert b"Traceback" not in proc.stderr
    assert proc.stderr.decode().splitlines() == [
        NAMESPACE_NOTICE,
        f"error: cannot reach the Kubernetes API server at http://127.0.0.1:{closed_port}: connection refused "
        "(is the cluster running? check --context and --kubeconfig)"]
    assert proc.stdout == b""


def test_real_process_timeout(api: FakeApiServer, kubeconfig: Path) -> None:
    api.delay = 3.0
    proc = run_process("diff", str(FIXTURES), "--request-timeout", "0.5")
    assert proc.returncode == 3
    assert b"Traceback" not in proc.stderr
    assert b"did not answer within 0.5s (--request-timeout)" in proc.stderr

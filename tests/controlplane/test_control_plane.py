"""The CRDs on a real kube-apiserver: ours and Testkube's are served, the examples are accepted, and the schema
that the server enforces is the one that ``kubectl testbench crd`` prints (a threshold above 1 is refused)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.conftest import EXAMPLES, TESTKUBE_CRDS, require_reference, run_cli
from tests.controlplane.fixture import ControlPlane

EXPERIMENT_CRD = "experiments.testbench.agentic-layer.ai"
EXAMPLE_EXPERIMENTS = sorted(p for p in (EXAMPLES / "experiments").glob("*.yaml")
                             if (yaml.safe_load(p.read_text()) or {}).get("kind") == "Experiment")


def apply(plane: ControlPlane, manifest: str) -> str:
    """``kubectl apply --server-side -f -``; its stdout (the test fails with kubectl's stderr otherwise)."""
    proc = plane.kubectl("apply", "--server-side", "-f", "-", input=manifest)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def established(plane: ControlPlane, *crds: str) -> str:
    proc = plane.kubectl("wait", "--for=condition=Established", "--timeout=60s",
                         *(f"customresourcedefinition/{name}" for name in crds))
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.fixture(scope="module")
def experiment_crd(control_plane: ControlPlane) -> str:
    """The Experiment CRD from ``kubectl testbench crd``, applied and established; kubectl's output."""
    crd = run_cli("crd")
    assert crd.exit_code == 0, crd.output
    return apply(control_plane, crd.stdout) + established(control_plane, EXPERIMENT_CRD)


def namespace(plane: ControlPlane, name: str) -> None:
    apply(plane, f"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {name}\n")


def test_readyz_is_ok(control_plane: ControlPlane) -> None:
    proc = control_plane.kubectl("get", "--raw", "/readyz")
    assert (proc.returncode, proc.stdout) == (0, "ok"), proc.stderr


def test_admin_is_in_system_masters(control_plane: ControlPlane) -> None:
    """RBAC is on and the kubeconfig's identity may do anything: the client certificate's O=system:masters."""
    proc = control_plane.kubectl("auth", "whoami", "-o", "jsonpath={.status.userInfo.groups}")
    assert proc.returncode == 0, proc.stderr
    assert "system:masters" in proc.stdout
    assert control_plane.kubectl("auth", "can-i", "*", "*").stdout == "yes\n"


def test_experiment_crd_is_established(experiment_crd: str) -> None:
    assert f"customresourcedefinition.apiextensions.k8s.io/{EXPERIMENT_CRD} serverside-applied\n" in experiment_crd
    assert f"customresourcedefinition.apiextensions.k8s.io/{EXPERIMENT_CRD} condition met\n" in experiment_crd


def test_testkube_crds_are_established(control_plane: ControlPlane) -> None:
    """Testkube 2.12.2's own CRDs (what `apply` needs on a cluster) are accepted by this kube-apiserver."""
    files = sorted(require_reference(TESTKUBE_CRDS).glob("*.yaml"))
    names = [yaml.safe_load(f.read_text())["metadata"]["name"] for f in files]
    assert "testworkflows.testworkflows.testkube.io" in names and "testtriggers.tests.testkube.io" in names
    applied = apply(control_plane, "\n---\n".join(f.read_text() for f in files))
    assert applied.count("serverside-applied") == len(files)
    assert established(control_plane, *names).count("condition met") == len(files)


@pytest.mark.parametrize("example", EXAMPLE_EXPERIMENTS, ids=lambda p: p.name)
def test_example_is_accepted(control_plane: ControlPlane, experiment_crd: str, example: Path) -> None:
    doc = yaml.safe_load(example.read_text())
    name, ns = doc["metadata"]["name"], doc["metadata"]["namespace"]
    namespace(control_plane, ns)
    assert apply(control_plane, example.read_text()) == (
        f"experiment.testbench.agentic-layer.ai/{name} serverside-applied\n")
    got = control_plane.kubectl("get", "experiment", "-n", ns, name, "-o", "jsonpath={.spec.agentRef.name}")
    assert (got.returncode, got.stdout) == (0, doc["spec"]["agentRef"]["name"]), got.stderr


def test_threshold_above_one_is_refused(control_plane: ControlPlane, experiment_crd: str) -> None:
    """The CRD's ``maximum: 1`` is enforced by the server, with the field path in the message."""
    text = (EXAMPLES / "experiments" / "weather-inline.yaml").read_text()
    assert "defaultThreshold: 0.9\n" in text
    bad = text.replace("defaultThreshold: 0.9\n", "defaultThreshold: 5\n").replace(
        "name: weather-agent-smoke\n", "name: weather-threshold-5\n")
    namespace(control_plane, "testkube")
    proc = control_plane.kubectl("apply", "--server-side", "-f", "-", input=bad)
    assert proc.returncode == 1
    assert ('The Experiment "weather-threshold-5" is invalid: spec.dataset.inline.defaultThreshold: '
            "Invalid value: 5: spec.dataset.inline.defaultThreshold in body should be less than or equal to 1"
            in proc.stderr), proc.stderr
    gone = control_plane.kubectl("get", "experiment", "-n", "testkube", "weather-threshold-5")
    assert gone.returncode == 1 and "NotFound" in gone.stderr

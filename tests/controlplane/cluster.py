"""The session's control plane made ready for the cluster verbs, and helpers to drive them against it.

``testkube_cluster`` (session) installs what ``kubectl testbench apply`` needs, as ``kubectl testbench install``
and Testkube's chart would: our Experiment CRD, Testkube 2.12.2's CRDs (``$TESTBENCH_REFERENCE/testkube-crds``),
all established, and the namespace ``testkube``. There is no controller: nothing acts on what is stored, so a
test plays Testkube's part itself (writing an execution's status) where it needs one.

Each test module works in namespaces of its own (:meth:`Cluster.namespace` makes a new one with a random
suffix): the modules share one API server, and a namespace cannot be deleted on it (no namespace controller),
so none is reused. The CLI runs as a child process, as a user runs it, so exit codes and stderr are the real
ones and a traceback anywhere fails the test.
"""

from __future__ import annotations

import json
import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import TESTKUBE_CRDS, require_reference, run_cli, run_process
from tests.controlplane.fixture import ControlPlane

EXPERIMENT_CRD = "experiments.testbench.agentic-layer.ai"
EXPERIMENTS = Path(__file__).resolve().parent.parent / "cluster" / "fixtures"
"""``weather.yaml`` (inline dataset, schedule, trigger) and ``news.yaml`` (dataset URL), without a namespace."""


@dataclass(frozen=True)
class Result:
    """A finished CLI run: exit code, stdout, stderr (text)."""

    code: int
    out: str
    err: str

    def lines(self) -> list[str]:
        """stderr without the namespace notice every rendering command prints."""
        return [line for line in self.err.splitlines() if not line.startswith("notice: ")]


@dataclass(frozen=True)
class Cluster:
    """The control plane with the CRDs installed; ``kubeconfig`` is the admin's."""

    plane: ControlPlane

    @property
    def kubeconfig(self) -> Path:
        return self.plane.kubeconfig

    def cli(self, *args: str, kubeconfig: Path | None = None, input: str | None = None,
            env: dict[str, str] | None = None) -> Result:
        """``kubectl testbench ARGS`` as a child process, with ``kubeconfig`` (the admin's by default) in
        ``$KUBECONFIG``. Never a traceback."""
        config = str(kubeconfig or self.kubeconfig)
        proc = run_process(*args, input=input.encode() if input is not None else None,
                           env={"KUBECONFIG": config, **(env or {})}, timeout=120)
        result = Result(proc.returncode, proc.stdout.decode(), proc.stderr.decode())
        assert "Traceback" not in result.err, result.err
        return result

    def kubectl(self, *args: str, input: str | None = None, kubeconfig: Path | None = None,
                env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        """The real kubectl (never raises on a non-zero exit)."""
        from tests.controlplane.fixture import kubectl

        return subprocess.run([kubectl(), "--kubeconfig", str(kubeconfig or self.kubeconfig), *args], input=input,
                              capture_output=True, text=True, timeout=120, check=False, env=env)

    def ok(self, *args: str, input: str | None = None) -> str:
        """kubectl as the admin, which must succeed; its stdout."""
        proc = self.kubectl(*args, input=input)
        assert proc.returncode == 0, f"kubectl {' '.join(args)}: {proc.stderr}"
        return proc.stdout

    def apply(self, manifest: str, *extra: str) -> str:
        """``kubectl apply --server-side -f -`` as the admin (field manager ``kubectl`` unless ``extra`` says)."""
        return self.ok("apply", "--server-side", *extra, "-f", "-", input=manifest)

    def namespace(self, prefix: str) -> str:
        """A new namespace ``<prefix>-<random>``, created."""
        name = f"{prefix}-{uuid.uuid4().hex[:6]}"
        self.apply(f"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {name}\n")
        return name

    def get(self, resource: str, namespace: str, name: str) -> dict[str, Any] | None:
        """The live object (with managedFields), or None when it does not exist."""
        proc = self.kubectl("get", resource, name, "-n", namespace, "-o", "json", "--show-managed-fields")
        if proc.returncode != 0:
            assert "NotFound" in proc.stderr, proc.stderr
            return None
        found: dict[str, Any] = json.loads(proc.stdout)
        return found

    def names(self, resource: str, namespace: str, selector: str = "") -> list[str]:
        """``kind.group/name`` of the objects of ``resource`` (``a,b`` for several) in ``namespace`` (optionally by
        label selector), sorted."""
        args = ["get", resource, "-n", namespace, "-o", "name"]
        return sorted(self.ok(*args, *(["-l", selector] if selector else [])).split())


def install(cluster: Cluster) -> None:
    """Our CRD, Testkube's CRDs and the ``testkube`` namespace, applied and established."""
    files = sorted(require_reference(TESTKUBE_CRDS).glob("*.yaml"))
    crd = run_cli("crd")
    assert crd.exit_code == 0, crd.output
    cluster.apply("\n---\n".join([crd.stdout, *(f.read_text() for f in files),
                                   "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: testkube\n"]))
    names = [EXPERIMENT_CRD, *(yaml.safe_load(f.read_text())["metadata"]["name"] for f in files)]
    cluster.ok("wait", "--for=condition=Established", "--timeout=60s",
               *(f"customresourcedefinition/{n}" for n in names))


@pytest.fixture(scope="session")
def testkube_cluster(control_plane: ControlPlane) -> Iterator[Cluster]:
    """The session's control plane with our CRD, Testkube's CRDs and the ``testkube`` namespace."""
    cluster = Cluster(control_plane)
    install(cluster)
    yield cluster


def experiments(d: Path, *names: str) -> Path:
    """Copy the fixture Experiments ``names`` (``weather``, ``news``) into ``d``; ``d``."""
    d.mkdir(parents=True, exist_ok=True)
    for name in names:
        (d / f"{name}.yaml").write_text((EXPERIMENTS / f"{name}.yaml").read_text())
    return d

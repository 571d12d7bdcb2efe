"""End to end against a real API server: diff, apply, run, status and prune.

Against the session's own control plane (tests/controlplane: kube-apiserver and etcd built from source, with our
CRD and Testkube 2.12.2's CRDs installed; no controllers, so an execution is created but never runs), or against
the cluster ``TESTBENCH_E2E_KUBECONFIG`` names (see docs/cluster.md for a kind setup with Testkube).
Everything it creates carries a unique Experiment namespace label and is pruned at the end.
``TESTBENCH_E2E_TESTKUBE_NAMESPACE`` (default ``testkube``) is where Testkube runs;
``TESTBENCH_E2E_WAIT=1`` also waits for the execution to pass (needs the Testbench templates, the
images and an agent to evaluate).
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.conftest import run_process

if TYPE_CHECKING:
    from kubectl_testbench.cluster.client import Client
    from tests.controlplane.cluster import Cluster

KUBECONFIG = os.environ.get("TESTBENCH_E2E_KUBECONFIG", "")
TESTKUBE = os.environ.get("TESTBENCH_E2E_TESTKUBE_NAMESPACE", "testkube")
FIXTURES = Path(__file__).resolve().parent.parent / "cluster" / "fixtures"

pytestmark = [pytest.mark.e2e]


@dataclass
class Env:
    src: Path
    namespace: str
    kubeconfig: str

    def cli(self, *args: str) -> tuple[int, str, str]:
        proc = run_process(*args, "--kubeconfig", self.kubeconfig, env={"KUBECONFIG": self.kubeconfig}, timeout=300)
        stderr = proc.stderr.decode()
        assert "Traceback" not in stderr, stderr
        return proc.returncode, proc.stdout.decode(), stderr

    def flags(self) -> list[str]:
        return ["-n", self.namespace, "--testkube-namespace", TESTKUBE]

    def client(self) -> Client:
        from kubectl_testbench.cluster.client import Client
        from kubectl_testbench.cluster.config import ClusterOptions, connect

        return Client(connect(ClusterOptions(kubeconfig=self.kubeconfig)))


@pytest.fixture(scope="module")
def kubeconfig(request: pytest.FixtureRequest) -> str:
    """``TESTBENCH_E2E_KUBECONFIG``, else the session's control plane with the CRDs ``apply`` needs installed and
    established, and the Testkube namespace created (as ``kubectl testbench install`` and Testkube's chart would)."""
    if KUBECONFIG:
        return KUBECONFIG
    cluster: Cluster = request.getfixturevalue("testkube_cluster")
    return str(cluster.kubeconfig)


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory, kubeconfig: str) -> Iterator[Env]:
    src = tmp_path_factory.mktemp("experiments")
    for name in ("weather.yaml", "news.yaml"):
        shutil.copy(FIXTURES / name, src / name)
    e = Env(src, f"tb-e2e-{uuid.uuid4().hex[:6]}", kubeconfig)
    yield e
    e.cli("prune", "--allow-empty", "--prune-experiment-namespace", e.namespace, "--testkube-namespace", TESTKUBE)


def names(env: Env, kind_plural: str) -> set[str]:
    from kubectl_testbench.cluster.resources import CONFIGMAP, TESTTRIGGER, TESTWORKFLOW
    from kubectl_testbench.model.naming import LABEL_NAMESPACE

    kind = {"configmaps": CONFIGMAP, "testworkflows": TESTWORKFLOW, "testtriggers": TESTTRIGGER}[kind_plural]
    return {o["metadata"]["name"] for o in env.client().list(kind, TESTKUBE, f"{LABEL_NAMESPACE}={env.namespace}")}


def test_1_diff_before_apply_shows_new_objects(env: Env) -> None:
    code, out, err = env.cli("diff", str(env.src), *env.flags())
    assert code == 1, err
    assert f"+++ MERGED/testworkflows.testkube.io.v1.TestWorkflow.{TESTKUBE}.news-{env.namespace}-workflow" in out


def test_2_server_dry_run_stores_nothing(env: Env) -> None:
    code, _, err = env.cli("apply", str(env.src), *env.flags(), "--dry-run=server")
    assert code == 0, err
    assert "(server dry run)" in err
    assert names(env, "testworkflows") == set()


def test_3_apply_creates_the_objects_in_order(env: Env) -> None:
    code, _, err = env.cli("apply", str(env.src), *env.flags())
    assert code == 0, err
    ns = env.namespace
    assert [line.split()[0] for line in err.splitlines() if not line.startswith("notice: ")] == [
        f"configmap/weather-{ns}-experiment", f"testworkflow.testworkflows.testkube.io/news-{ns}-workflow",
        f"testworkflow.testworkflows.testkube.io/weather-{ns}-workflow",
        f"testtrigger.tests.testkube.io/weather-{ns}-trigger"]
    assert names(env, "testworkflows") == {f"news-{ns}-workflow", f"weather-{ns}-workflow"}
    assert names(env, "testtriggers") == {f"weather-{ns}-trigger"}


def test_4_diff_after_apply_is_clean_and_apply_is_idempotent(env: Env) -> None:
    code, out, err = env.cli("diff", str(env.src), *env.flags())
    assert (code, out) == (0, ""), err
    assert env.cli("apply", str(env.src), *env.flags())[0] == 0
    assert env.cli("diff", str(env.src), *env.flags(), "--local")[0] == 0


def test_5_status_lists_both_experiments(env: Env) -> None:
    code, out, err = env.cli("status", "-n", env.namespace, "--testkube-namespace", TESTKUBE, "-o", "json")
    assert code == 0, err
    rows = {row["name"]: row for row in json.loads(out)["items"]}
    assert set(rows) == {"news", "weather"}
    assert rows["weather"]["dataset"] == "inline" and rows["weather"]["workflow"]["present"] is True


def test_6_run_starts_an_execution(env: Env) -> None:
    wait = os.environ.get("TESTBENCH_E2E_WAIT") == "1"
    args = ["run", "news", "-n", env.namespace, "--testkube-namespace", TESTKUBE, "-o", "json"]
    code, out, err = env.cli(*args, *(["--wait", "--timeout", "20m"] if wait else []))
    assert code == 0, err
    record = json.loads(out)
    assert record["workflow"] == f"news-{env.namespace}-workflow"
    from kubectl_testbench.cluster.resources import EXECUTION, Ref

    created = env.client().get(Ref(EXECUTION, TESTKUBE, record["name"]))
    assert created is not None and created["spec"]["testWorkflow"]["name"] == record["workflow"]
    if wait:
        assert record["status"] == "passed"
    env.client().delete(Ref(EXECUTION, TESTKUBE, record["name"]))


def test_7_prune_removes_what_the_input_dropped_and_nothing_foreign(env: Env) -> None:
    from kubectl_testbench.cluster.resources import CONFIGMAP, Ref

    client = env.client()
    foreign = {"apiVersion": "v1", "kind": "ConfigMap",
               "metadata": {"name": f"foreign-{env.namespace}", "namespace": TESTKUBE,
                            "labels": {"testbench.agentic-layer.ai/experiment-namespace": env.namespace}}}
    client.apply(foreign, field_manager="e2e-someone-else", force=False, dry_run=False)
    try:
        (env.src / "news.yaml").unlink()
        code, _, err = env.cli("apply", str(env.src), *env.flags(), "--prune",
                               "--prune-experiment-namespace", env.namespace)
        assert code == 0, err
        assert f"testworkflow.testworkflows.testkube.io/news-{env.namespace}-workflow pruned" in err
        assert names(env, "testworkflows") == {f"weather-{env.namespace}-workflow"}
        assert client.get(Ref(CONFIGMAP, TESTKUBE, f"foreign-{env.namespace}")) is not None
    finally:
        client.delete(Ref(CONFIGMAP, TESTKUBE, f"foreign-{env.namespace}"))

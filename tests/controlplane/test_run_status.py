"""``kubectl testbench run --wait`` and ``status`` against a real kube-apiserver (1.35), with the test playing
Testkube's execution controller: nothing runs an execution here (no kubelet, no Testkube), so the test writes
the ``TestWorkflowExecution``'s status through its status subresource, as the controller does, while ``run
--wait`` follows it in a child process: queued, running step by step, then passed (exit 0) or failed (exit 1).
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.controlplane.cluster import Cluster, experiments

EXECUTIONS = "testworkflowexecutions.testworkflows.testkube.io"
SIGNATURE = [{"ref": "r1", "name": "run"}, {"ref": "r2", "name": "evaluate"}]


@pytest.fixture(scope="module")
def setup(testkube_cluster: Cluster, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """(Experiment namespace, Testkube namespace) with the ``news`` Experiment applied."""
    c = testkube_cluster
    ns, testkube = c.namespace("exp"), c.namespace("tk-run")
    src = experiments(tmp_path_factory.mktemp("run"), "news")
    assert c.cli("apply", str(src), "-n", ns, "--testkube-namespace", testkube).code == 0
    return ns, testkube


class Follower:
    """``run news --wait`` in a child process; its stderr read line by line as it comes."""

    def __init__(self, cluster: Cluster, ns: str, testkube: str, *extra: str) -> None:
        env = {"KUBECONFIG": str(cluster.kubeconfig), "PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kubectl_testbench", "run", "news", "-n", ns, "--testkube-namespace", testkube,
             "--wait", "--poll-interval", "0.2s", "-o", "json", *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.put(line.rstrip("\n"))

    def expect(self, line: str, timeout: float = 30) -> None:
        """Wait until the child printed ``line`` (every line it printed is kept in ``seen``)."""
        while line not in self.seen:
            try:
                self.seen.append(self.lines.get(timeout=timeout))
            except queue.Empty:
                pytest.fail(f"run --wait did not print {line!r} within {timeout:g}s; it printed {self.seen}")

    def finish(self) -> tuple[int, dict[str, Any]]:
        """Exit code and the JSON record on stdout."""
        assert self.proc.stdout is not None
        out = self.proc.stdout.read()
        self.proc.wait(timeout=60)
        self.reader.join(timeout=60)
        while not self.lines.empty():
            self.seen.append(self.lines.get())
        assert not any("Traceback" in line for line in self.seen), self.seen
        return self.proc.returncode, json.loads(out)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def follow(testkube_cluster: Cluster, setup: tuple[str, str]) -> Iterator[Follower]:
    follower = Follower(testkube_cluster, *setup)
    yield follower
    follower.kill()


def created(cluster: Cluster, testkube: str, known: set[str]) -> str:
    """The name of the execution ``run`` created (the one not in ``known``), once it exists."""
    for _ in range(300):
        names = set(cluster.names(EXECUTIONS, testkube)) - known
        if names:
            assert len(names) == 1, names
            return names.pop().split("/", 1)[1]
        threading.Event().wait(0.1)
    pytest.fail("run --wait created no TestWorkflowExecution")


def write_status(cluster: Cluster, testkube: str, name: str, latest: dict[str, Any]) -> None:
    """What Testkube's controller does: a merge patch of ``status`` through the status subresource."""
    cluster.ok("patch", EXECUTIONS, name, "-n", testkube, "--subresource=status", "--type=merge",
               "-p", json.dumps({"status": {"latestExecution": latest}}))


def latest(name: str, number: int, workflow: str, status: str, steps: dict[str, str], **result: Any) -> dict[str, Any]:
    """``status.latestExecution`` as Testkube 2.12 writes it (id, name and workflow are required by its CRD)."""
    return {"id": f"id-{name}", "name": f"{workflow}-{number}", "number": number, "workflow": {"name": workflow},
            "scheduledAt": f"2026-01-01T00:0{number}:00Z", "signature": SIGNATURE,
            "result": {"status": status, "predictedStatus": "passed" if status != "failed" else "failed",
                       "steps": {ref: {"status": s} | ({"errorMessage": "judge unreachable"} if s == "failed" else {})
                                 for ref, s in steps.items()}, **result}}


def status_row(cluster: Cluster, ns: str, testkube: str) -> dict[str, Any]:
    done = cluster.cli("status", "news", "-n", ns, "--testkube-namespace", testkube, "-o", "json")
    assert done.code == 0, done.err
    row: dict[str, Any] = json.loads(done.out)["items"][0]
    return row


def test_execution_crd_has_a_status_subresource(testkube_cluster: Cluster) -> None:
    """What makes the test's writes Testkube's: status is written only through /status (a write of the main resource
    drops it)."""
    sub = testkube_cluster.ok("get", "crd", EXECUTIONS, "-o", "jsonpath={.spec.versions[?(@.name=='v1')].subresources}")
    assert json.loads(sub) == {"status": {}}


def test_run_wait_follows_an_execution_to_passed_and_status_shows_it(
        testkube_cluster: Cluster, setup: tuple[str, str], follow: Follower) -> None:
    c = testkube_cluster
    ns, testkube = setup
    workflow = f"news-{ns}-workflow"
    name = created(c, testkube, set())
    follow.expect(f"execution {name} pending")
    c.ok("patch", EXECUTIONS, name, "-n", testkube, "--type=merge", "-p",
         json.dumps({"status": {"latestExecution": latest(name, 9, workflow, "passed", {})}}))
    assert c.get(EXECUTIONS, testkube, name).get("status") is None  # type: ignore[union-attr]  # dropped

    write_status(c, testkube, name, latest(name, 1, workflow, "queued", {}))
    follow.expect("execution #1 queued")
    assert status_row(c, ns, testkube)["lastExecution"]["status"] == "queued"
    write_status(c, testkube, name, latest(name, 1, workflow, "running", {"r1": "running"}))
    follow.expect("execution #1 running: step 1/2 run")
    write_status(c, testkube, name, latest(name, 1, workflow, "running", {"r1": "passed", "r2": "running"}))
    follow.expect("execution #1 running: step 2/2 evaluate")
    write_status(c, testkube, name, latest(name, 1, workflow, "passed", {"r1": "passed", "r2": "passed"},
                                           duration="3m12.5s"))
    code, record = follow.finish()
    assert code == 0, follow.seen
    assert f"execution #1 passed in 3m12.5s (id id-{name})" in follow.seen
    assert (record["name"], record["number"], record["status"], record["id"]) == (name, 1, "passed", f"id-{name}")
    row = status_row(c, ns, testkube)
    assert row["lastExecution"] == {"id": f"id-{name}", "number": 1, "status": "passed", "startTime":
                                    "2026-01-01T00:01:00Z", "endTime": "", "source": "testworkflowexecution"}
    assert row["workflow"] == {"name": workflow, "namespace": testkube, "present": True}


def test_run_wait_exits_1_when_the_execution_fails_and_status_shows_the_newest(
        testkube_cluster: Cluster, setup: tuple[str, str]) -> None:
    c = testkube_cluster
    ns, testkube = setup
    workflow = f"news-{ns}-workflow"
    known = set(c.names(EXECUTIONS, testkube))
    follow = Follower(c, ns, testkube)
    try:
        name = created(c, testkube, known)
        follow.expect(f"execution {name} pending")
        write_status(c, testkube, name, latest(name, 2, workflow, "running", {"r1": "passed", "r2": "running"}))
        follow.expect("execution #2 running: step 2/2 evaluate")
        write_status(c, testkube, name, latest(name, 2, workflow, "failed", {"r1": "passed", "r2": "failed"},
                                               duration="1m0s"))
        code, record = follow.finish()
    finally:
        follow.kill()
    assert code == 1, follow.seen
    assert 'error: execution #2 failed at step "evaluate" in 1m0s: judge unreachable' in follow.seen
    assert (record["status"], record["error"]) == ("failed", "judge unreachable")
    assert status_row(c, ns, testkube)["lastExecution"]["number"] == 2
    table = c.cli("status", "-n", ns, "--testkube-namespace", testkube)
    assert table.code == 0, table.err
    assert table.out.splitlines()[1].split()[-2:] == ["failed", "workflow"]


def test_run_wait_timeout_exits_1_and_leaves_the_execution(testkube_cluster: Cluster, setup: tuple[str, str]) -> None:
    c = testkube_cluster
    ns, testkube = setup
    known = set(c.names(EXECUTIONS, testkube))
    follow = Follower(c, ns, testkube, "--timeout", "1s")
    try:
        code, record = follow.finish()
    finally:
        follow.kill()
    assert code == 1, follow.seen
    assert follow.seen[-1] == (f"error: execution ({record['name']}) still pending after 1s (--timeout); it keeps "
                               f"running: kubectl testbench status news -n {ns}")
    assert set(c.names(EXECUTIONS, testkube)) - known == {
        f"testworkflowexecution.testworkflows.testkube.io/{record['name']}"}  # still there, for Testkube to run


def test_run_server_dry_run_stores_no_execution(testkube_cluster: Cluster, setup: tuple[str, str]) -> None:
    """``--dry-run=server``: the server validates and names the execution (generateName), and stores nothing."""
    c = testkube_cluster
    ns, testkube = setup
    known = set(c.names(EXECUTIONS, testkube))
    done = c.cli("run", "news", "-n", ns, "--testkube-namespace", testkube, "--dry-run=server", "-o", "json")
    assert done.code == 0, done.err
    name = json.loads(done.out)["name"]
    assert name.startswith(f"news-{ns}-workflow-") and len(name) > len(f"news-{ns}-workflow-")
    assert done.lines()[0].startswith(f"testworkflowexecution.testworkflows.testkube.io/{name} created (server dry "
                                      "run)")
    assert set(c.names(EXECUTIONS, testkube)) == known

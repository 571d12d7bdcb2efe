"""``scripts/control-plane up DIR`` / ``down DIR`` end to end, as a user runs them: what they print, their exit
codes, and that nothing of theirs is left running after ``down`` or after a failed ``up``."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from tests.conftest import USER_CACHE_HOME
from tests.controlplane.fixture import SCRIPT, ControlPlane, processes_in, script, skip_unless_buildable
from tests.go_toolchain import NO_GO

SCRIPT_D = SCRIPT.with_name("control-plane.d")

MARKER = ".control-plane"


def pids(d: Path) -> dict[str, int]:
    return {f.stem: int(f.read_text().split()[0]) for f in sorted(d.glob("*.pid"))}


def alive(pid: int) -> bool:
    """Whether ``pid`` is a process that has not exited (a zombie has)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_up_down_up_again(tmp_path: Path) -> None:
    skip_unless_buildable()
    d = tmp_path / "cp"
    try:
        started = script("up", str(d))
        assert started.returncode == 0, started.stderr
        assert started.stdout == f"{d}/kubeconfig\n"
        assert "control-plane: ready in " in started.stderr
        plane = ControlPlane(d, d / "kubeconfig")
        ready = plane.kubectl("get", "--raw", "/readyz")
        assert (ready.returncode, ready.stdout) == (0, "ok"), ready.stderr
        running = pids(d)
        assert sorted(running) == ["etcd", "kube-apiserver"] and all(map(alive, running.values()))
        assert len(processes_in(d)) == 2

        again = script("up", str(d))
        assert again.returncode == 2
        assert again.stderr == (f"control-plane: error: {d}: already up (etcd pid {running['etcd']}, kube-apiserver "
                                f"pid {running['kube-apiserver']}); run `control-plane down {d}` first\n")
        kept = plane.kubectl("create", "configmap", "kept", "--from-literal=a=b")
        assert kept.returncode == 0, kept.stderr

        stopped = script("down", str(d), timeout=120)
        assert stopped.returncode == 0, stopped.stderr
        assert processes_in(d) == []
        assert not any(map(alive, running.values()))
        assert pids(d) == {}

        restarted = script("up", str(d))  # the same data and certificates, new ports
        assert restarted.returncode == 0, restarted.stderr
        got = plane.kubectl("get", "configmap", "kept", "-o", "jsonpath={.data.a}")
        assert (got.returncode, got.stdout) == (0, "b"), got.stderr
    finally:
        script("down", str(d), timeout=120)
    assert processes_in(d) == []


def test_etcd_that_exits_fails_up(tmp_path: Path) -> None:
    """etcd cannot use its data dir (a file is in the way): the error names it and shows its log's last lines."""
    skip_unless_buildable()
    d = tmp_path / "cp"
    d.mkdir()
    (d / MARKER).write_text("")
    (d / "etcd").write_text("not a directory\n")
    proc = script("up", str(d))
    assert (proc.returncode, proc.stdout) == (3, ""), proc.stderr
    assert f"control-plane: error: etcd exited with status 1; last lines of {d}/etcd.log:\n" in proc.stderr
    assert "failed to list data directory" in proc.stderr
    assert processes_in(d) == [] and pids(d) == {}


def test_apiserver_that_exits_fails_up_and_etcd_is_stopped(tmp_path: Path) -> None:
    """kube-apiserver cannot read its serving certificate: it exits, the error shows its log, and etcd, already
    running, is stopped."""
    skip_unless_buildable()
    d = tmp_path / "cp"
    assert script("up", str(d)).returncode == 0
    assert script("down", str(d)).returncode == 0
    (d / "apiserver.crt").write_text("not a certificate\n")
    proc = script("up", str(d))
    assert (proc.returncode, proc.stdout) == (3, ""), proc.stderr
    assert f"control-plane: error: kube-apiserver exited with status 1; last lines of {d}/kube-apiserver.log:\n" \
        in proc.stderr
    assert "control-plane: stopping etcd (pid " in proc.stderr
    assert processes_in(d) == [] and pids(d) == {}


def test_up_that_times_out_leaves_nothing_running(tmp_path: Path) -> None:
    skip_unless_buildable()
    d = tmp_path / "cp"
    proc = script("up", str(d), "--timeout", "0.5")
    assert (proc.returncode, proc.stdout) == (3, ""), proc.stderr
    assert "control-plane: error: not ready after 0.5s: " in proc.stderr
    assert f"last lines of {d}/etcd.log:\n" in proc.stderr
    assert processes_in(d) == [] and pids(d) == {}


def test_up_refuses_a_directory_it_did_not_make(tmp_path: Path) -> None:
    (tmp_path / "kubeconfig").write_text("mine\n")
    proc = script("up", str(tmp_path))
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (f"control-plane: error: {tmp_path}: not empty and not made by `control-plane up`; "
                           "give a new or empty directory\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kubeconfig"]
    assert (tmp_path / "kubeconfig").read_text() == "mine\n"


def test_up_refuses_a_file(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("")
    proc = script("up", str(tmp_path / "f"))
    assert (proc.returncode, proc.stderr) == (2, f"control-plane: error: {tmp_path}/f: not a directory\n")


def test_down_refuses_a_directory_it_did_not_make(tmp_path: Path) -> None:
    proc = script("down", str(tmp_path))
    assert (proc.returncode, proc.stderr) == (
        2, f"control-plane: error: {tmp_path}: not a directory made by `control-plane up`\n")


def test_down_never_signals_a_process_it_did_not_start(tmp_path: Path) -> None:
    """A pid file whose pid now belongs to another process (its start time differs) is ignored."""
    other = subprocess.Popen(["sleep", "60"])
    try:
        (tmp_path / MARKER).write_text("")
        (tmp_path / "etcd.pid").write_text(f"{other.pid} 1\n")
        proc = script("down", str(tmp_path))
        assert (proc.returncode, proc.stderr) == (0, "")
        assert other.poll() is None
        assert not (tmp_path / "etcd.pid").exists()
    finally:
        other.kill()
        other.wait()


def test_usage_error_exits_2() -> None:
    proc = script("up")
    assert proc.returncode == 2
    assert "the following arguments are required: dir" in proc.stderr


def test_sigterm_during_up_stops_what_it_started(tmp_path: Path) -> None:
    """A killed ``up`` (a CI timeout, a test runner giving up) leaves nothing running either."""
    skip_unless_buildable()
    script("build")  # the binaries, so that `up` is starting processes when it is signalled
    d = tmp_path / "cp"
    env = {**os.environ, "XDG_CACHE_HOME": str(USER_CACHE_HOME)}
    proc = subprocess.Popen([str(SCRIPT), "up", str(d)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.monotonic() + 60
    while not (d / "etcd.pid").exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.02)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert (proc.returncode, out) == (128 + signal.SIGTERM, ""), err
    assert "control-plane: stopping etcd (pid " in err
    assert processes_in(d) == [] and pids(d) == {}


def kubernetes_module() -> Path:
    """k8s.io/kubernetes at the version go.mod requires, from the Go module cache (downloaded if absent)."""
    version = re.search(r"^\s*k8s\.io/kubernetes (v\S+)", (SCRIPT_D / "kube-apiserver" / "go.mod").read_text(), re.M)
    assert version is not None
    env = {**os.environ, "GOWORK": "off", "GOFLAGS": "-mod=mod", "XDG_CACHE_HOME": str(USER_CACHE_HOME)}
    proc = subprocess.run(["go", "mod", "download", "-json", f"k8s.io/kubernetes@{version.group(1)}"], env=env,
                          cwd=tempfile.gettempdir(), capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return Path(json.loads(proc.stdout)["Dir"])


def test_etcd_is_the_version_that_kubernetes_names() -> None:
    """etcd/go.mod follows the Kubernetes release's build/dependencies.yaml (bump both together)."""
    skip_unless_buildable()
    deps = yaml.safe_load((kubernetes_module() / "build" / "dependencies.yaml").read_text())["dependencies"]
    etcd = next(dep["version"] for dep in deps if dep["name"] == "etcd")
    assert f"\tgo.etcd.io/etcd/server/v3 v{etcd} // indirect\n" in (SCRIPT_D / "etcd" / "go.mod").read_text()


def test_every_staging_module_is_replaced_by_its_published_release() -> None:
    """k8s.io/kubernetes's ``./staging`` replaces cannot be used from outside: each has its v0.MINOR.PATCH."""
    skip_unless_buildable()
    staging = re.findall(r"^\s*(k8s\.io/\S+) => \./staging/", (kubernetes_module() / "go.mod").read_text(), re.M)
    ours = (SCRIPT_D / "kube-apiserver" / "go.mod").read_text()
    version = re.search(r"^\s*k8s\.io/kubernetes v1\.(\d+\.\d+)", ours, re.M)
    assert version is not None and len(staging) > 20
    replaced = dict(re.findall(r"^\s*(k8s\.io/\S+) => \1 (v\S+)$", ours, re.M))
    assert replaced == {module: f"v0.{version.group(1)}" for module in staging}


def build_with(tmp_path: Path, path: str) -> subprocess.CompletedProcess[str]:
    """``control-plane build`` with an empty cache dir and ``PATH=path``."""
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "PATH": path}
    return subprocess.run([sys.executable, str(SCRIPT), "build"], env=env, capture_output=True, text=True,
                          timeout=60, check=False)


def test_build_without_go_says_where_to_get_it(tmp_path: Path) -> None:
    proc = build_with(tmp_path, str(tmp_path))
    assert (proc.returncode, proc.stdout) == (3, "")
    assert proc.stderr == f"control-plane: error: {NO_GO}\n"


def test_failed_build_leaves_no_partial_cache(tmp_path: Path) -> None:
    """The go build's own output ends the error; nothing half-built is left for a later start to trust."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "go").write_text("#!/bin/sh\necho 'cannot find module providing package' >&2\nexit 1\n")
    (bin_dir / "go").chmod(0o755)
    proc = build_with(tmp_path, str(bin_dir))
    assert (proc.returncode, proc.stdout) == (3, "")
    assert proc.stderr.endswith(f"control-plane: error: go build go.etcd.io/etcd/server/v3 failed (exit 1) in "
                                f"{SCRIPT_D / 'etcd'}:\ncannot find module providing package\n")
    assert list((tmp_path / "cache" / "kubectl-testbench" / "control-plane").iterdir()) == []


def test_unwritable_cache_is_one_line(tmp_path: Path) -> None:
    """The cache dir cannot be made (a file is in the way): one error line with the path, exit 3."""
    (tmp_path / "cache").write_text("")
    proc = build_with(tmp_path, os.environ["PATH"])
    assert (proc.returncode, proc.stdout) == (3, "")
    assert proc.stderr == (f"control-plane: error: [Errno 20] Not a directory: "
                           f"'{tmp_path}/cache/kubectl-testbench/control-plane'\n")

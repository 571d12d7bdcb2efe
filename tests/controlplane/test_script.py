"""``scripts/control-plane up DIR`` / ``down DIR`` end to end, as a user runs them: what they print, their exit
codes, and that nothing of theirs is left running after ``down`` or after a failed ``up``."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.controlplane.fixture import ControlPlane, processes_in, script, skip_unless_buildable

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

"""A real Kubernetes control plane (etcd + kube-apiserver) for tests: ``scripts/control-plane`` in a temporary dir.

The session fixture ``control_plane`` starts one per test session (the first run on a machine builds the
binaries, minutes; later runs take seconds) and stops it at the end. It is registered once, in tests/conftest.py,
so every test package sees the same one (imported into a package's own conftest.py it would be a second fixture
with its own session cache, and a second control plane).

Where Go is missing, every test that asks for it is skipped with ``tests.go_toolchain.NO_GO``; a control plane
that fails to build or start is a test failure, with the script's message and the logs' last lines.

The script is run as a user runs it, as a child process, so the fixture and its own CLI tests exercise one
mechanism. The tests point ``XDG_CACHE_HOME`` at a private dir (tests/conftest.py); the script is given the
user's own cache dir back, so its binaries (and Go's build cache) are built once per machine, not per session.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT, USER_CACHE_HOME
from tests.go_toolchain import NO_GO, go_binary

SCRIPT = ROOT / "scripts" / "control-plane"
BUILD_TIMEOUT = 3600.0
"""Seconds for ``up`` when the binaries are not cached yet (a cold build on two busy cores takes minutes)."""


def script(*args: str, timeout: float = BUILD_TIMEOUT) -> subprocess.CompletedProcess[str]:
    """Run ``scripts/control-plane ARGS`` with the user's own cache dir."""
    env = {**os.environ, "XDG_CACHE_HOME": str(USER_CACHE_HOME)}
    return subprocess.run([str(SCRIPT), *args], env=env, capture_output=True, text=True, timeout=timeout,
                          check=False)


def kubectl() -> str:
    path = shutil.which("kubectl")
    if path is None:
        pytest.skip("kubectl is not installed: the control-plane tests talk to the server with it")
    return path


def skip_unless_buildable() -> None:
    """Skip, with the reason, where the script cannot build or start a control plane."""
    if go_binary() is None:
        pytest.skip(NO_GO)
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed: scripts/control-plane makes the certificates with it")


def processes_in(d: Path) -> list[str]:
    """``pid command`` of every live process whose command line names ``d`` (both components are started with
    paths under it), read from /proc: what ``down`` must leave empty."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        ours = [arg for arg in cmdline if str(d).encode() in arg]
        if state != "Z" and ours and str(SCRIPT).encode() not in cmdline:  # the script itself is not left behind
            found.append(f"{entry.name} {cmdline[0].decode(errors='replace')}")
    return sorted(found)


@dataclass(frozen=True)
class ControlPlane:
    """A running control plane: its directory and the admin kubeconfig in it."""

    dir: Path
    kubeconfig: Path

    def kubectl(self, *args: str, input: str | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        """``kubectl --kubeconfig KUBECONFIG ARGS`` (text, never raises on a non-zero exit)."""
        return subprocess.run([kubectl(), "--kubeconfig", str(self.kubeconfig), *args], input=input,
                              capture_output=True, text=True, timeout=timeout, check=False)


def up(d: Path) -> ControlPlane:
    """Start a control plane in ``d`` (fail the test with the script's message when it does not start)."""
    skip_unless_buildable()
    try:
        proc = script("up", str(d))
    except subprocess.TimeoutExpired:  # the script was killed: stop what it may have started
        script("down", str(d), timeout=120)
        pytest.fail(f"scripts/control-plane up {d} took more than {BUILD_TIMEOUT:g}s", pytrace=False)
    if proc.returncode != 0:
        pytest.fail(f"scripts/control-plane up {d} exited {proc.returncode}:\n{proc.stderr}", pytrace=False)
    return ControlPlane(d, Path(proc.stdout.strip()))


def down(d: Path) -> None:
    """Stop the control plane in ``d``; an error if it failed to, or if anything of it is still running."""
    proc = script("down", str(d), timeout=120)
    left = processes_in(d)
    if proc.returncode != 0 or left:
        raise AssertionError(f"scripts/control-plane down {d} exited {proc.returncode}, left {left}:\n{proc.stderr}")


@pytest.fixture(scope="session")
def control_plane(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ControlPlane]:
    """One control plane for the whole session, stopped at its end."""
    d = tmp_path_factory.mktemp("control-plane")
    plane = up(d)
    try:
        yield plane
    finally:
        down(d)

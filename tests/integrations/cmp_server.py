"""Argo CD's real ``argocd-cmp-server`` with our plugin.yaml, and calls to it made by Argo CD's repo-server code.

``argocd_cmp/`` is a small Go program of ours (main.go, go.mod, go.sum): ``serve`` runs Argo CD's own
``argocd-cmp-server`` command (``cmd/argocd-cmp-server/commands``) and ``client`` makes one repo-server call
(discovery, parameters, generation) with Argo CD's client code, printing the answer as JSON. It is built in
module mode at the Argo CD release pinned in go.mod (:data:`ARGOCD_VERSION`) by
``tests.go_toolchain.build_module_program``, once per machine, into the user cache dir. Everything runs on
this machine: the server listens on a unix socket in a temporary directory, as the sidecar listens on
``/home/argocd/cmp-server/plugins/<plugin>.sock``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.conftest import ROOT
from tests.go_toolchain import build_module_program

HERE = Path(__file__).resolve().parent / "argocd_cmp"
FILES = (HERE / "main.go", HERE / "go.mod", HERE / "go.sum")
PLUGIN = ROOT / "integrations" / "argocd" / "plugin.yaml"


def argocd_version() -> str:
    """The Argo CD release go.mod pins (``github.com/argoproj/argo-cd/v3 vX.Y.Z``)."""
    found = re.search(r"^\s*(?:require\s+)?github\.com/argoproj/argo-cd/v3 (v\S+)", (HERE / "go.mod").read_text(),
                      re.MULTILINE)
    assert found, "go.mod does not require github.com/argoproj/argo-cd/v3"
    return found.group(1)


ARGOCD_VERSION = argocd_version()


def build() -> Path | str:
    """The binary, or why it cannot be built here (the tests skip with that reason)."""
    return build_module_program(HERE, FILES, "argocd-cmp")


@dataclass(frozen=True)
class Server:
    """A running cmp-server: the binary (also the client), its socket directory and its log."""

    binary: Path
    sockets: Path
    socket_name: str
    log: Path
    process: subprocess.Popen[bytes]

    def call(self, op: str, repo: Path, app: Path, timeout: float = 60.0, **fields: Any) -> dict[str, Any]:
        """One repo-server call for the Application at ``app`` inside the checkout ``repo``; the JSON answer.

        ``fields`` are the rest of the request (see ``request`` in main.go): ``plugin`` (the Application's
        ``spec.source.plugin``: name, env, parameters), ``namespace`` (its destination namespace), ``appName``…
        ``timeout`` is the repo-server's RPC deadline in seconds."""
        request = {"op": op, "repoPath": str(repo), "appPath": str(app), "timeoutSeconds": timeout,
                   "socket": self.socket_name, **fields}
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ARGOCD_", "PARAM_"))}
        env["ARGOCD_PLUGINSOCKFILEPATH"] = str(self.sockets)
        proc = subprocess.run([str(self.binary), "client"], input=json.dumps(request).encode(), env=env,
                              capture_output=True, timeout=timeout + 30, check=False)
        assert proc.returncode == 0, proc.stderr.decode(errors="replace")
        answer = json.loads(proc.stdout)
        assert isinstance(answer, dict)
        return answer

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")


@contextmanager
def cmp_server(binary: Path, workdir: Path, bin_dir: Path, plugin_yaml: str | None = None,
               env: dict[str, str] | None = None) -> Iterator[Server]:
    """``argocd-cmp-server`` as the repo-server sidecar runs it: plugin.yaml at ``<config dir>/plugin.yaml``
    (``--config-dir-path``, in the sidecar ``/home/argocd/cmp-server/config``), the socket in
    ``ARGOCD_PLUGINSOCKFILEPATH``, its work directory (where each request's repository is unpacked) in
    ``ARGOCD_CMP_WORKDIR``, and ``bin_dir`` first on PATH, holding ``kubectl-testbench``. ``env`` is the
    sidecar's own environment (``ARGOCD_EXEC_TIMEOUT``…)."""
    config = workdir / "config"
    work = workdir / "work"
    for directory in (config, work):
        directory.mkdir(parents=True)
    # a unix socket's path holds at most 107 bytes: a short directory of its own, not one under pytest's tmp_path
    sockets = Path(tempfile.mkdtemp(prefix="tb-cmp-"))
    text = PLUGIN.read_text() if plugin_yaml is None else plugin_yaml
    (config / "plugin.yaml").write_text(text)
    name = re.search(r"^  name: (\S+)$", text, re.MULTILINE)
    assert name, "plugin.yaml has no metadata.name"
    socket = sockets / f"{name.group(1)}.sock"
    server_env = {k: v for k, v in os.environ.items() if not k.startswith(("ARGOCD_", "PARAM_"))}
    server_env.update({"PATH": f"{bin_dir}{os.pathsep}{server_env.get('PATH', '')}",
                       "ARGOCD_PLUGINSOCKFILEPATH": str(sockets), "ARGOCD_CMP_WORKDIR": str(work),
                       **(env or {})})
    log = workdir / "cmp-server.log"
    with log.open("wb") as out:
        process = subprocess.Popen([str(binary), "serve", "--config-dir-path", str(config), "--logformat", "text"],
                                   env=server_env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        while not socket.exists():
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"argocd-cmp-server did not start:\n{log.read_text(errors='replace')}")
            time.sleep(0.05)
        yield Server(binary, sockets, socket.name, log, process)
    finally:
        # argocd-cmp-server catches SIGTERM, removes its socket and keeps serving (cmpserver.Run: nothing stops the
        # gRPC server), so the kubelet's SIGKILL after the grace period is what ends a sidecar: the same here, sooner
        process.terminate()
        try:
            process.wait(timeout=1)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(sockets, ignore_errors=True)

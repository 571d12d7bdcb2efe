"""Go for the tests: the one skip reason for a missing toolchain, and Go tools built once at pinned versions.

This project's machines have Go 1.26 in /usr/local/go/bin. Debian's ``golang-go`` is older and would shadow it,
so no reason ever tells anyone to install it. A tool is ``go install``-ed from the Go module proxy at the version
named here into the user cache dir (``…/kubectl-testbench/go/<binary>-<version>/``), once; later sessions find it
there. The module proxy's checksums (go.sum of the tool's own module, and the checksum database) make the build
reproducible. A program of ours with its own go.mod/go.sum (the CEL oracle, the Argo CD CMP server and client) is
built the same way by :func:`build_module_program`, keyed by a hash of its sources.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from collections.abc import Sequence
from functools import cache
from pathlib import Path

NO_GO = ("the Go toolchain is not installed (`go` is not on PATH; install Go >= 1.26 from go.dev, "
         "not Debian's golang-go)")

KUSTOMIZE = ("sigs.k8s.io/kustomize/kustomize/v5", "v5.7.1", "kustomize")
"""A kustomize whose ``build`` has ``--enable-exec`` (kubectl's built-in one does not)."""

KUBECONFORM = ("github.com/yannh/kubeconform/cmd/kubeconform", "v0.8.0", "kubeconform")
"""The schema-only Kubernetes validator CI pipelines use most: a peer in ``benchmarks/run.py``."""

KUBECTL_VALIDATE = ("sigs.k8s.io/kubectl-validate", "v0.0.4", "kubectl-validate")
"""The API server's own validation code run locally (CRDs from files): a peer in ``benchmarks/run.py``. v0.0.4 is
the only tagged version the module proxy serves."""


def go_binary() -> str | None:
    """The ``go`` command on PATH, or None."""
    return shutil.which("go")


@cache
def go_tool(module: str, version: str, binary: str) -> Path | str:
    """The built ``binary`` of ``module@version``, or why it cannot be had here (the caller skips with it)."""
    from tests.tool_cache import USER_CACHE_HOME, install_once, tool_cache_dir

    go = go_binary()
    if go is None:
        return NO_GO

    def install(directory: Path) -> str | None:
        env = {**os.environ, "GOBIN": str(directory), "CGO_ENABLED": "0", "GO111MODULE": "on", "GOFLAGS": "-mod=mod"}
        # Go's build cache follows XDG_CACHE_HOME, which the tests point at a private dir: keep it in the user's
        env.setdefault("GOCACHE", str(USER_CACHE_HOME / "go-build"))
        proc = subprocess.run([go, "install", f"{module}@{version}"], env=env, capture_output=True, text=True,
                              timeout=1200, check=False)
        return None if proc.returncode == 0 else f"go install {module}@{version} failed: {proc.stderr.strip()[-300:]}"

    found = install_once(tool_cache_dir("go") / f"{binary}-{version}", binary, install)
    return found / binary if isinstance(found, Path) else found


def build_stdlib_program(source: Path, out: Path, binary: str) -> Path:
    """``go build`` of a program in ``source`` that needs only Go's standard library (no module download, so
    no go.mod needed): the binary at ``out/binary``. The caller has checked :func:`go_binary`."""
    from tests.tool_cache import USER_CACHE_HOME

    go = go_binary()
    assert go is not None, NO_GO
    env = {**os.environ, "GO111MODULE": "off", "CGO_ENABLED": "0",
           "GOCACHE": os.environ.get("GOCACHE", str(USER_CACHE_HOME / "go-build")), "GOPATH": str(out / "gopath")}
    proc = subprocess.run([go, "build", "-o", str(out / binary), "."], cwd=source, env=env, capture_output=True,
                          text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr
    return out / binary


def module_hash(files: Sequence[Path]) -> str:
    """What a module-mode program is built from, in the order given: each file's name and bytes."""
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def build_module_program(source: Path, files: Sequence[Path], binary: str, timeout: float = 1800) -> Path | str:
    """``go build`` of the module in ``source`` (its committed go.mod/go.sum, nothing resolved anew: ``-mod=readonly``)
    into ``…/kubectl-testbench/go/<binary>-<hash of files>/<binary>``, once per machine; the binary, or why it
    cannot be had here (:data:`NO_GO`, or the build's error), for the caller to skip or fail with.

    The first build downloads the modules through the Go module proxy, checked against go.sum; Go's build cache
    stays in the user's cache dir, so a rebuild after a source change compiles only what changed."""
    from tests.conftest import USER_CACHE_HOME, tool_cache_dir
    from tests.tool_cache import install_once

    go = go_binary()
    if go is None:
        return NO_GO

    def install(directory: Path) -> str | None:
        env = {**os.environ, "GO111MODULE": "on", "GOFLAGS": "-mod=readonly", "CGO_ENABLED": "0", "GOWORK": "off"}
        # Go's build cache follows XDG_CACHE_HOME, which the tests point at a private dir: keep it in the user's
        env.setdefault("GOCACHE", str(USER_CACHE_HOME / "go-build"))
        proc = subprocess.run([go, "build", "-o", str(directory / binary), "."], cwd=source, env=env,
                              capture_output=True, text=True, timeout=timeout, check=False)
        return None if proc.returncode == 0 else f"building {binary} in {source} failed:\n{proc.stderr[-4000:]}"

    found = install_once(tool_cache_dir("go") / f"{binary}-{module_hash(files)}", binary, install)
    return found / binary if isinstance(found, Path) else found

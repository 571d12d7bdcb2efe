"""Build and drive the Go oracle (oracle.go): Kubernetes' own decoding and OpenAPI validation.

The binary is built once per test session into a private temporary directory, from Debian's packaged Go
sources in GOPATH mode (no module download). Where Go or a package is missing the tests that need it are
skipped, naming what to install. One oracle process answers every document of a session over a JSON-lines
pipe: thousands of documents cost one process start.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tests.go_toolchain import NO_GO, go_binary

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "oracle.go"
CRD = HERE.parent.parent / "kubectl_testbench" / "_generated" / "experiment-crd.json"
GOPATH_ROOT = Path("/usr/share/gocode")

DEBIAN_PACKAGES = ("golang-k8s-sigs-yaml-dev", "golang-gopkg-yaml.v2-dev", "golang-gopkg-yaml.v3-dev",
                   "golang-k8s-kube-openapi-dev", "golang-k8s-sigs-json-dev", "golang-golang-x-text-dev")
"""What .ci/run installs where apt-get is available: Go sources only; the toolchain is the machine's own Go (Debian's
golang-go would shadow it)."""

GO_PACKAGES = {
    "sigs.k8s.io/yaml": "golang-k8s-sigs-yaml-dev",
    "gopkg.in/yaml.v2": "golang-gopkg-yaml.v2-dev",
    "gopkg.in/yaml.v3": "golang-gopkg-yaml.v3-dev",
    "k8s.io/kube-openapi/pkg/validation/validate": "golang-k8s-kube-openapi-dev",
    "sigs.k8s.io/json": "golang-k8s-sigs-json-dev",
    "golang.org/x/text/encoding/unicode": "golang-golang-x-text-dev",
}


class OracleUnavailable(Exception):
    """Go or one of the packaged Go sources is missing: the reason names what to install."""


def missing() -> str | None:
    """Why the oracle cannot be built here, or None."""
    if go_binary() is None:
        return NO_GO
    gopath = _gopath()
    absent = [pkg for imp, pkg in GO_PACKAGES.items()
              if not any((Path(root) / "src" / imp).is_dir() for root in gopath.split(os.pathsep))]
    if absent:
        return "Go sources not installed: apt-get install " + " ".join(sorted(set(absent)))
    return None


def _gopath() -> str:
    return os.environ.get("TESTBENCH_ORACLE_GOPATH", str(GOPATH_ROOT))


def source_hash() -> str:
    return hashlib.sha256(SOURCE.read_bytes()).hexdigest()[:16]


VALIDATE = "k8s.io/kube-openapi/pkg/validation/validate"
_ITEMS_BEFORE = (
    "\t\tvalidator := NewSchemaValidator(s.Items.Schema, s.Root, s.Path, s.KnownFormats, s.Options.Options()...)\n"
    "\t\tfor i := 0; i < size; i++ {\n"
    '\t\t\tvalidator.SetPath(fmt.Sprintf("%s.%d", s.Path, i))\n'
)
_ITEMS_AFTER = (
    "\t\tfor i := 0; i < size; i++ {\n"
    '\t\t\tvalidator := NewSchemaValidator(s.Items.Schema, s.Root, fmt.Sprintf("%s[%d]", s.Path, i), '
    "s.KnownFormats, s.Options.Options()...)\n"
)


def overlay(directory: Path) -> Path:
    """A private GOPATH entry holding kube-openapi's validate package with upstream's list-index fix.

    Debian's snapshot (git 2021-10-14) builds one validator for all items of a list and only changes the
    path of the outer validator, so errors inside list items lose their index ("spec.env.name"). Upstream
    kube-openapi fixed that (the API server reports "spec.env[0].name"); we apply the same change to a copy
    of slice_validator.go, and fail loudly if the packaged source no longer has the old shape.
    """
    source = next(Path(root) / "src" / VALIDATE for root in _gopath().split(os.pathsep)
                  if (Path(root) / "src" / VALIDATE).is_dir())
    target = directory / "gopath" / "src" / VALIDATE
    shutil.copytree(source, target, dirs_exist_ok=True)
    slice_validator = target / "slice_validator.go"
    text = slice_validator.read_text()
    if _ITEMS_BEFORE in text:
        slice_validator.write_text(text.replace(_ITEMS_BEFORE, _ITEMS_AFTER))
    elif '"%s[%d]", s.Path, i' not in text:
        raise RuntimeError(f"unexpected {slice_validator}: cannot apply the list-index fix")
    return directory / "gopath"


def build(directory: Path) -> Path:
    """Compile oracle.go into ``directory`` (GOPATH mode, offline); raises OracleUnavailable or RuntimeError."""
    reason = missing()
    if reason:
        raise OracleUnavailable(reason)
    binary = directory / f"oracle-{source_hash()}"
    if binary.exists():
        return binary
    gopath = f"{overlay(directory)}{os.pathsep}{_gopath()}"
    env = {**os.environ, "GO111MODULE": "off", "GOPATH": gopath, "GOFLAGS": "", "GOPROXY": "off",
           "CGO_ENABLED": "0"}
    env.setdefault("GOCACHE", str(Path.home() / ".cache" / "go-build"))
    proc = subprocess.run(["go", "build", "-o", str(binary), str(SOURCE)], env=env, capture_output=True,
                          text=True, timeout=600, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"building the oracle failed:\n{proc.stderr[-4000:]}")
    return binary


class Oracle:
    """One oracle process; ``ask`` sends a batch of files and returns the answers in order."""

    def __init__(self, binary: Path, crd: Path = CRD) -> None:
        self.proc = subprocess.Popen([str(binary), str(crd)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, bufsize=1 << 20)
        self.counter = 0

    def ask(self, files: Iterable[bytes]) -> list[list[dict[str, Any]]]:
        """Each file's documents, as the oracle describes them (see ``Doc`` in oracle.go)."""
        batch = list(files)
        first = self.counter
        self.counter += len(batch)
        assert self.proc.stdin is not None and self.proc.stdout is not None

        def write() -> None:
            assert self.proc.stdin is not None
            for i, data in enumerate(batch):
                line = json.dumps({"id": str(first + i), "data": base64.b64encode(data).decode()})
                self.proc.stdin.write(line.encode() + b"\n")
            self.proc.stdin.flush()

        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        answers: list[list[dict[str, Any]]] = []
        for i in range(len(batch)):
            line = self.proc.stdout.readline()
            if not line:
                err = self.proc.stderr.read().decode(errors="replace") if self.proc.stderr else ""
                raise RuntimeError(f"the oracle stopped: {err[-2000:]}")
            answer = json.loads(line)
            assert answer["id"] == str(first + i)
            answers.append(answer["docs"] or [])
        writer.join()
        return answers

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def session_oracle() -> tuple[Oracle, Path]:
    """Build into a fresh private directory and start the process (the caller closes both)."""
    directory = Path(tempfile.mkdtemp(prefix="kubectl-testbench-oracle-"))
    return Oracle(build(directory)), directory

"""Build and drive the Go oracle (oracle.go): Kubernetes' own decoding, create path and CEL.

The binary is built in module mode from ``go.mod``/``go.sum`` beside it (the k8s.io modules of kube-apiserver
1.35.4, the release the test control plane runs), once per machine: it is kept in the user cache dir under a hash
of the Go source and the module files, like the tools of ``tests/go_toolchain.py``, and Go's build cache stays in
the user's cache too, so a later session starts at once. The first build downloads the modules through the Go
module proxy (checked against go.sum) and compiles for about five minutes on two cores. Where Go is missing the
tests that need it are skipped with ``tests.go_toolchain.NO_GO``. One oracle process answers every document of a
session over a JSON-lines pipe: thousands of documents cost one process start.
"""

from __future__ import annotations

import base64
import json
import subprocess
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tests.go_toolchain import NO_GO, build_module_program, go_binary, module_hash

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "oracle.go"
MODULE_FILES = (HERE / "go.mod", HERE / "go.sum")
CRD = HERE.parent.parent / "kubectl_testbench" / "_generated" / "experiment-crd.json"
KUBERNETES_VERSION = "1.35.4"
"""The release whose code the oracle runs (go.mod's k8s.io modules are its v0.35.4 staging modules)."""


class OracleUnavailable(Exception):
    """Go is missing: the reason says what to install."""


def missing() -> str | None:
    """Why the oracle cannot be built here, or None."""
    return NO_GO if go_binary() is None else None


def source_hash() -> str:
    """What the binary is built from: the Go source and the module files."""
    return module_hash((SOURCE, *MODULE_FILES))


def build() -> Path:
    """The oracle binary for the current sources, built on first use; raises OracleUnavailable or RuntimeError.

    The build writes into a private directory that is renamed into place only when complete, so an interrupted
    or failed build leaves nothing a later session would take for a binary."""
    if go_binary() is None:
        raise OracleUnavailable(NO_GO)
    found = build_module_program(HERE, (SOURCE, *MODULE_FILES), "oracle")
    if isinstance(found, str):
        raise RuntimeError(found)
    return found


class Oracle:
    """One oracle process; ``ask`` sends a batch of files, ``ask_cel`` a batch of CEL cases, in order."""

    def __init__(self, binary: Path, crd: Path = CRD) -> None:
        self.proc = subprocess.Popen([str(binary), str(crd)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, bufsize=1 << 20)
        self.counter = 0

    def ask(self, files: Iterable[bytes]) -> list[list[dict[str, Any]]]:
        """Each file's documents, as the oracle describes them (see ``Doc`` in oracle.go)."""
        answers = self._exchange([{"data": base64.b64encode(data).decode()} for data in files])
        return [answer.get("docs") or [] for answer in answers]

    def ask_cel(self, cases: Iterable[tuple[dict[str, Any], Any]]) -> list[list[dict[str, Any]]]:
        """The API server's CEL errors for each (schema, value): ``schema`` is a JSONSchemaProps whose
        ``x-kubernetes-validations`` hold the rules, ``value`` the field's value (see ``evaluateCEL``)."""
        answers = self._exchange([{"cel": {"schema": schema, "value": value}} for schema, value in cases])
        return [answer["cel"]["errors"] for answer in answers]

    def _exchange(self, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
        first = self.counter
        self.counter += len(requests)
        assert self.proc.stdin is not None and self.proc.stdout is not None

        def write() -> None:
            assert self.proc.stdin is not None
            for i, request in enumerate(requests):
                self.proc.stdin.write(json.dumps({"id": str(first + i), **request}).encode() + b"\n")
            self.proc.stdin.flush()

        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        answers: list[dict[str, Any]] = []
        for i in range(len(requests)):
            line = self.proc.stdout.readline()
            if not line:
                err = self.proc.stderr.read().decode(errors="replace") if self.proc.stderr else ""
                raise RuntimeError(f"the oracle stopped: {err[-2000:]}")
            answer = json.loads(line)
            assert answer["id"] == str(first + i)
            answers.append(answer)
        writer.join()
        return answers

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def session_oracle() -> Oracle:
    """Build (or find) the binary and start one process; the caller closes it."""
    return Oracle(build())

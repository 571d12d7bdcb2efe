"""Stand-in for MinIO/S3: moto's own server (``moto[server]``) on 127.0.0.1, in a cached virtualenv of its own.

moto pulls in botocore, which requires python-dateutil < 3 while our kubernetes client requires >= 3, so it
cannot share the test environment; it gets a small environment built by the same code as the phase
environment (``kubectl_testbench.phases.env.ensure_env``). The setup phase reads it through ``MINIO_ENDPOINT``.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Self

from kubectl_testbench.phases.env import EnvSpec
from tests.phases.standin_http import LOOPBACK, StandIn

MOTO_SPEC = EnvSpec(name="s3-stand-in", requirements=("moto[server]==5.2.5",))
USER = "standin-user"
PASSWORD = "standin-password"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind((LOOPBACK, 0))
        return int(sock.getsockname()[1])


class S3StandIn(StandIn):
    """Stand-in S3 (moto server process); ``url`` is what ``MINIO_ENDPOINT`` must be set to."""

    def __init__(self, python: Path) -> None:
        self.python = python
        self.port = _free_port()
        self.url = f"http://{LOOPBACK}:{self.port}"
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> Self:
        env = {**os.environ, "AWS_ACCESS_KEY_ID": USER, "AWS_SECRET_ACCESS_KEY": PASSWORD}
        self._process = subprocess.Popen([os.fspath(self.python), "-m", "moto.server", "-H", LOOPBACK,
                                          "-p", str(self.port)], env=env, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{self.url}/moto-api/", timeout=1):
                    return self
            except OSError:
                if self._process.poll() is not None:
                    break
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("the stand-in S3 (moto server) did not start within 30 s")

    def stop(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()

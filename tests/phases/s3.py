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

    def __init__(self, python: Path, *, authenticate: bool = False) -> None:
        self.python = python
        self.port = _free_port()
        self.url = f"http://{LOOPBACK}:{self.port}"
        self._process: subprocess.Popen[bytes] | None = None
        self.authenticate = authenticate
        """Check every request's signature (moto's IAM authentication): :meth:`credentials` makes a user."""

    def start(self) -> Self:
        env = {**os.environ, "AWS_ACCESS_KEY_ID": USER, "AWS_SECRET_ACCESS_KEY": PASSWORD}
        if self.authenticate:  # the first three requests are :meth:`credentials`' own; every later one is checked
            env["INITIAL_NO_AUTH_ACTION_COUNT"] = "3"
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

    def credentials(self) -> tuple[str, str]:
        """A user allowed every S3 action, made with moto's IAM API (the first requests of an authenticating
        server go unchecked): its access key id and secret key. Only once per server."""
        script = ("import json, sys, boto3\n"
                  "iam = boto3.client('iam', endpoint_url=sys.argv[1], region_name='us-east-1')\n"
                  "iam.create_user(UserName='pusher')\n"
                  "iam.put_user_policy(UserName='pusher', PolicyName='s3', PolicyDocument=json.dumps({'Version': "
                  "'2012-10-17', 'Statement': [{'Effect': 'Allow', 'Action': 's3:*', 'Resource': '*'}]}))\n"
                  "key = iam.create_access_key(UserName='pusher')['AccessKey']\n"
                  "print(key['AccessKeyId'], key['SecretAccessKey'])\n")
        env = {**os.environ, "AWS_ACCESS_KEY_ID": USER, "AWS_SECRET_ACCESS_KEY": PASSWORD, "NO_PROXY": "*"}
        done = subprocess.run([os.fspath(self.python), "-c", script, self.url], capture_output=True, text=True,
                              timeout=120, check=False, env=env)
        if done.returncode != 0:
            raise RuntimeError(f"creating an S3 user on the stand-in failed: {done.stderr[-2000:]}")
        user, secret = done.stdout.split()
        return user, secret

    def boto3(self, user: str, secret: str, code: str) -> subprocess.CompletedProcess[str]:
        """Run ``code`` with ``s3``, a boto3 client of this server as ``user``, in the stand-in's environment."""
        script = ("import sys, boto3\n"
                  "s3 = boto3.client('s3', endpoint_url=sys.argv[1], aws_access_key_id=sys.argv[2], "
                  "aws_secret_access_key=sys.argv[3], region_name='us-east-1')\n" + code)
        env = {**os.environ, "NO_PROXY": "*"}
        return subprocess.run([os.fspath(self.python), "-c", script, self.url, user, secret], capture_output=True,
                              text=True, timeout=120, check=False, env=env)

"""``dataset push`` against a real S3 server on 127.0.0.1 (moto's, checking every request's signature), read back
by the setup phase of agentic-layer-testbench 0.10.0 itself: what the push uploads is what the phase downloads.

The push runs as a real process (``python -m kubectl_testbench``) with only the MINIO_* variables the setup
phase reads; the setup step runs in the phase environment with the same variables.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from kubectl_testbench.phases.env import Env
from tests.conftest import EXAMPLES, run_process
from tests.phases.harness import PhaseStep, run_phase
from tests.phases.s3 import S3StandIn

BUCKET = "datasets"
KEY = "weather/experiment.json"


@pytest.fixture(scope="module")
def server(s3_env: Env) -> Iterator[tuple[S3StandIn, str, str]]:
    """An authenticating stand-in with one user and the bucket, for the module."""
    with S3StandIn(s3_env.python, authenticate=True) as standin:
        user, secret = standin.credentials()
        made = standin.boto3(user, secret, f"s3.create_bucket(Bucket={BUCKET!r})\n")
        assert made.returncode == 0, made.stderr[-2000:]
        yield standin, user, secret


def _env(url: str, user: str, secret: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MINIO_", "AWS_")) and "proxy" not in k.lower()}
    return {**env, "NO_PROXY": "*", "MINIO_ENDPOINT": url, "MINIO_ROOT_USER": user, "MINIO_ROOT_PASSWORD": secret}


def _exported(tmp_path: Path) -> Path:
    out = tmp_path / "experiment.json"
    done = run_process("dataset", "export", str(EXAMPLES / "experiments"), "--experiment", "weather-agent-smoke",
                       "-o", str(out))
    assert done.returncode == 0, done.stderr.decode()
    return out


def test_pushed_dataset_is_what_the_real_setup_phase_downloads(server: tuple[S3StandIn, str, str], phase_env: Env,
                                                                tmp_path: Path) -> None:
    standin, user, secret = server
    dataset = _exported(tmp_path)
    done = run_process("dataset", "push", str(dataset), f"s3://{BUCKET}/{KEY}", env=_env(standin.url, user, secret))
    assert done.returncode == 0, done.stderr.decode()
    size = len(dataset.read_bytes())
    assert done.stderr.decode() == f"s3://{BUCKET}/{KEY}: uploaded {size} bytes at {standin.url}\n"
    setup = PhaseStep("setup", ("-m", "testbench.setup", BUCKET, KEY),
                      {"MINIO_ENDPOINT": standin.url, "MINIO_ROOT_USER": user, "MINIO_ROOT_PASSWORD": secret,
                       "NO_PROXY": "*"})
    result = run_phase(phase_env, setup, tmp_path / "container")
    assert result.returncode == 0, result.explain()
    written = tmp_path / "container" / "data" / "datasets" / "experiment.json"
    assert json.loads(written.read_text(encoding="utf-8")) == json.loads(dataset.read_bytes())

    again = run_process("dataset", "push", str(dataset), f"s3://{BUCKET}/{KEY}", env=_env(standin.url, user, secret))
    assert again.returncode == 0
    assert again.stderr.decode() == f"s3://{BUCKET}/{KEY}: already up to date at {standin.url}\n"


def test_an_object_with_other_content_is_kept_unless_overwrite(server: tuple[S3StandIn, str, str],
                                                              tmp_path: Path) -> None:
    standin, user, secret = server
    key = "kept/experiment.json"
    placed = standin.boto3(user, secret,
                           f"s3.put_object(Bucket={BUCKET!r}, Key={key!r}, Body=b'{{\"scenarios\": []}}')")
    assert placed.returncode == 0, placed.stderr[-2000:]
    dataset = _exported(tmp_path)
    env = _env(standin.url, user, secret)
    refused = run_process("dataset", "push", str(dataset), f"s3://{BUCKET}/{key}", env=env)
    assert refused.returncode == 1
    assert refused.stderr.decode() == (f"error: s3://{BUCKET}/{key} already exists with other content: it was left as "
                                       "it is (replace it with --overwrite)\n")
    read = "print(s3.get_object(Bucket=sys.argv[4], Key=sys.argv[5])['Body'].read().decode())"
    kept = standin.boto3(user, secret, f"sys.argv[4:] = [{BUCKET!r}, {key!r}]\n" + read)
    assert kept.stdout == '{"scenarios": []}\n'
    replaced = run_process("dataset", "push", "--overwrite", str(dataset), f"s3://{BUCKET}/{key}", env=env)
    assert replaced.returncode == 0, replaced.stderr.decode()
    now = standin.boto3(user, secret, f"sys.argv[4:] = [{BUCKET!r}, {key!r}]\n" + read)
    assert now.stdout == dataset.read_text(encoding="utf-8") + "\n"


@pytest.mark.parametrize(("change", "expected"), [
    ({"MINIO_ROOT_PASSWORD": "not-the-secret"}, "SignatureDoesNotMatch: The request signature we calculated does "
                                                "not match the signature you provided"),
    ({"MINIO_ROOT_USER": "AKIANOSUCHUSER"}, "InvalidAccessKeyId"),
])
def test_wrong_credentials_fail_in_one_line_and_upload_nothing(server: tuple[S3StandIn, str, str], tmp_path: Path,
                                                               change: dict[str, str], expected: str) -> None:
    """The server checks the signature: a wrong secret is refused, which a stand-in without checks would miss."""
    standin, user, secret = server
    key = f"refused/{next(iter(change.values()))}.json"
    done = run_process("dataset", "push", str(_exported(tmp_path)), f"s3://{BUCKET}/{key}",
                       env={**_env(standin.url, user, secret), **change})
    assert done.returncode == 1
    lines = done.stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: uploading s3://{BUCKET}/{key} to {standin.url} failed: ")
    assert expected in lines[0]
    listed = standin.boto3(user, secret, f"print(s3.list_objects_v2(Bucket={BUCKET!r}, Prefix='refused/')['KeyCount'])")
    assert listed.stdout == "0\n"


def test_a_missing_bucket_is_named(server: tuple[S3StandIn, str, str], tmp_path: Path) -> None:
    standin, user, secret = server
    done = run_process("dataset", "push", str(_exported(tmp_path)), "s3://no-such-bucket/experiment.json",
                       env=_env(standin.url, user, secret))
    assert done.returncode == 1
    assert "NoSuchBucket" in done.stderr.decode() and len(done.stderr.decode().splitlines()) == 1


def test_an_endpoint_nobody_listens_on_fails_at_once_in_one_line(tmp_path: Path) -> None:
    with socket.socket() as sock:  # a port that was free a moment ago: connections are refused
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    started = time.monotonic()
    done = run_process("dataset", "push", str(_exported(tmp_path)), f"s3://{BUCKET}/x.json",
                       env=_env(f"http://127.0.0.1:{port}", "u", "p"))
    assert time.monotonic() - started < 20
    assert done.returncode == 1
    assert done.stderr.decode().startswith(f"error: cannot reach http://127.0.0.1:{port}: ")
    assert len(done.stderr.decode().splitlines()) == 1

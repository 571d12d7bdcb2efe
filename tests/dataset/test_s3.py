"""The push's S3 client without a server: AWS's published Signature Version 4 example, the setup phase's settings
and defaults, and what ``dataset push`` refuses before it connects (tests/phases/test_dataset_push.py pushes to
a real S3 server)."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest

from kubectl_testbench.dataset.s3 import UNSIGNED_EMPTY, S3Settings, object_url, parse_s3_url, signed_headers
from tests.conftest import EXAMPLES, run_process


def test_the_signature_is_aws_published_example() -> None:
    """docs.aws.amazon.com AmazonS3 "Signature Calculations for the Authorization Header", Example: GET Object."""
    settings = S3Settings("https://examplebucket.s3.amazonaws.com", "AKIAIOSFODNN7EXAMPLE",
                          "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", False)
    headers = signed_headers("GET", "https://examplebucket.s3.amazonaws.com/test.txt", {"Range": "bytes=0-9"},
                             UNSIGNED_EMPTY, settings, datetime.datetime(2013, 5, 24, tzinfo=datetime.UTC))
    assert headers["Authorization"] == (
        "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
        "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
        "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    assert headers["x-amz-date"] == "20130524T000000Z"


def test_settings_are_the_setup_phases_with_its_defaults() -> None:
    assert S3Settings.from_env({}) == S3Settings("http://testkube-minio-service-testkube.testkube:9000", "minio",
                                                 "minio123", True)
    given = S3Settings.from_env({"MINIO_ENDPOINT": "http://127.0.0.1:9000"})
    assert (given.endpoint, given.user, given.password, given.defaulted) == \
        ("http://127.0.0.1:9000", "minio", "minio123", False)


def test_object_urls_are_path_style_and_keys_keep_their_slashes() -> None:
    settings = S3Settings("http://127.0.0.1:9000/", "u", "p", False)
    assert object_url(settings, "datasets", "a b/ü+1.json") == "http://127.0.0.1:9000/datasets/a%20b/%C3%BC%2B1.json"
    assert parse_s3_url("s3://datasets/a/b.json") == ("datasets", "a/b.json")
    for bad in ("datasets/a.json", "s3://datasets", "s3://datasets/", "http://x/y.json", "s3://b/k.json?v=1"):
        with pytest.raises(ValueError):
            parse_s3_url(bad)


@pytest.mark.parametrize(("destination", "message"), [
    ("s3://datasets/experiment.yaml",
     "error: the key 'experiment.yaml' does not end in .json: the setup phase refuses any other file"),
    ("datasets/experiment.json", "error: 'datasets/experiment.json' is not an s3://BUCKET/KEY URL"),
])
def test_a_destination_the_setup_phase_cannot_read_is_refused_before_connecting(destination: str,
                                                                               message: str) -> None:
    done = run_process("dataset", "push", str(EXAMPLES / "experiments" / "weather-inline.yaml"), destination,
                       env={"MINIO_ENDPOINT": "http://192.0.2.1:9"})
    assert done.returncode == 2
    assert done.stderr.decode() == message + "\n"


def test_an_invalid_dataset_file_is_not_uploaded(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"default_threshold": 2, "scenarios": []}', encoding="utf-8")
    done = run_process("dataset", "push", str(bad), "s3://datasets/bad.json",
                       env={"MINIO_ENDPOINT": "http://192.0.2.1:9"})  # TEST-NET-1: never reached
    assert done.returncode == 1
    assert done.stderr.decode().splitlines() == [
        f"{bad}:1:23: error[dataset/schema] default_threshold: Invalid value: 2: must be less than or equal to 1",
        f"error: {bad} is not a valid dataset file: nothing was uploaded"]


def test_the_unreachable_default_endpoint_says_how_to_reach_it() -> None:
    from kubectl_testbench.cli.dataset import _reach_hint

    assert _reach_hint("http://testkube-minio-service-testkube.testkube:9000") == (
        " (the setup phase's default, inside the cluster: kubectl port-forward -n testkube "
        "svc/testkube-minio-service-testkube 9000:9000, then MINIO_ENDPOINT=http://127.0.0.1:9000)")
    assert _reach_hint("http://127.0.0.1:9000") == ""

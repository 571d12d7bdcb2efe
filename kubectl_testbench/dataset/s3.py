"""Uploading one dataset file to S3/MinIO: the settings the setup phase reads, and one signed PUT.

The setup phase (agentic-layer-testbench 0.10.0, ``testbench/setup.py``) downloads ``spec.dataset.s3`` with boto3
at ``MINIO_ENDPOINT`` as ``MINIO_ROOT_USER``/``MINIO_ROOT_PASSWORD`` (Signature Version 4, region us-east-1), with
Testkube's bundled MinIO and its default credentials where they are unset. The push reads the same variables with
the same defaults, so what it uploads is where the phase looks.

boto3 is not used: its botocore requires python-dateutil < 3 while our kubernetes client requires >= 3, so the
two cannot be installed together. A PUT and a HEAD with an AWS Signature Version 4 need only the standard library
(hashlib, hmac, urllib); tests/dataset/test_s3.py checks the signature against AWS's published example and the
upload against a real S3 server (moto's) read back with boto3.
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import os
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass

from kubectl_testbench.layout import (
    MINIO_DEFAULT,
    MINIO_DEFAULT_PASSWORD,
    MINIO_DEFAULT_USER,
    MINIO_ENDPOINT_ENV,
    MINIO_PASSWORD_ENV,
    MINIO_USER_ENV,
    S3_REGION,
)

TIMEOUT = 30.0
"""Seconds for connecting and for each read: an unreachable endpoint fails in bounded time."""
UNSIGNED_EMPTY = hashlib.sha256(b"").hexdigest()


class S3Error(Exception):
    """The upload did not happen: the message says why in one line (the server's code and message, or the
    connection's error)."""


@dataclass(frozen=True)
class S3Settings:
    """Where and as whom: what the setup phase reads from its environment."""

    endpoint: str
    user: str
    password: str
    defaulted: bool
    """None of the three variables was set: the setup phase's in-cluster defaults are used."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> S3Settings:
        env = os.environ if environ is None else environ
        given = [name for name in (MINIO_ENDPOINT_ENV, MINIO_USER_ENV, MINIO_PASSWORD_ENV) if env.get(name)]
        return cls(env.get(MINIO_ENDPOINT_ENV) or MINIO_DEFAULT, env.get(MINIO_USER_ENV) or MINIO_DEFAULT_USER,
                   env.get(MINIO_PASSWORD_ENV) or MINIO_DEFAULT_PASSWORD, not given)


def parse_s3_url(url: str) -> tuple[str, str]:
    """``s3://bucket/key`` → (bucket, key); ValueError with the reason otherwise."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme != "s3" or not parts.netloc:
        raise ValueError(f"{url!r} is not an s3://BUCKET/KEY URL")
    key = parts.path.lstrip("/")
    if not key or parts.query or parts.fragment:
        raise ValueError(f"{url!r} names no object key: write s3://BUCKET/path/experiment.json")
    return parts.netloc, key


def signed_headers(method: str, url: str, headers: Mapping[str, str], payload_sha256: str, settings: S3Settings,
                   now: datetime.datetime, region: str = S3_REGION) -> dict[str, str]:
    """``headers`` plus ``x-amz-date``, ``x-amz-content-sha256`` and the Signature Version 4 ``Authorization``
    for one request to S3 (docs.aws.amazon.com, "Signature Calculations for the Authorization Header")."""
    parts = urllib.parse.urlsplit(url)
    stamp = now.strftime("%Y%m%dT%H%M%SZ")
    day = stamp[:8]
    all_headers = {**headers, "host": parts.netloc, "x-amz-date": stamp, "x-amz-content-sha256": payload_sha256}
    canonical = {k.lower().strip(): " ".join(str(v).split()) for k, v in all_headers.items()}
    names = sorted(canonical)
    query = "&".join(f"{_quote(k)}={_quote(v)}" for k, v in sorted(urllib.parse.parse_qsl(parts.query,
                                                                                          keep_blank_values=True)))
    request = "\n".join([method, parts.path or "/", query, *(f"{n}:{canonical[n]}" for n in names), "",
                         ";".join(names), payload_sha256])
    scope = f"{day}/{region}/s3/aws4_request"
    to_sign = "\n".join(["AWS4-HMAC-SHA256", stamp, scope, hashlib.sha256(request.encode()).hexdigest()])
    key = ("AWS4" + settings.password).encode()
    for part in (day, region, "s3", "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    authorization = (f"AWS4-HMAC-SHA256 Credential={settings.user}/{scope},SignedHeaders={';'.join(names)},"
                     f"Signature={signature}")
    return {**{k: v for k, v in all_headers.items() if k != "host"}, "Authorization": authorization}


def _quote(text: str) -> str:
    """URI-encode as SigV4 does: everything but unreserved characters (and '/' in paths, see object_url)."""
    return urllib.parse.quote(text, safe="-_.~")


def object_url(settings: S3Settings, bucket: str, key: str) -> str:
    """Path-style address of the object (MinIO's and boto3's choice for a custom endpoint)."""
    return f"{settings.endpoint.rstrip('/')}/{_quote(bucket)}/{urllib.parse.quote(key, safe='-_.~/')}"


def _request(method: str, url: str, settings: S3Settings, body: bytes = b"",
             headers: Mapping[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    sent = signed_headers(method, url, headers or {}, hashlib.sha256(body).hexdigest() if body else UNSIGNED_EMPTY,
                          settings, datetime.datetime.now(datetime.UTC))
    request = urllib.request.Request(url, data=body if method == "PUT" else None, method=method, headers=sent)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler(_proxies(url)))
    try:
        with opener.open(request, timeout=TIMEOUT) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read(1 << 20)
    except urllib.error.HTTPError as err:
        return err.code, {k.lower(): v for k, v in err.headers.items()}, err.read(1 << 16)
    except (urllib.error.URLError, OSError) as err:
        reason = getattr(err, "reason", err)
        raise S3Error(f"cannot reach {settings.endpoint}: {reason}") from None


def _proxies(url: str) -> dict[str, str]:
    """The environment's proxies, except for hosts NO_PROXY names (urllib's own rule)."""
    host = urllib.parse.urlsplit(url).hostname or ""
    return {} if urllib.request.proxy_bypass(host) else urllib.request.getproxies()


def _error_text(status: int, body: bytes) -> str:
    """``Code: Message`` of an S3 error document, else the HTTP status."""
    import re

    text = body.decode("utf-8", "replace")
    code = re.search(r"<Code>([^<]{1,200})</Code>", text)
    message = re.search(r"<Message>([^<]{1,500})</Message>", text)
    if code:
        return f"{code.group(1)}" + (f": {message.group(1)}" if message else "") + f" (HTTP {status})"
    return f"HTTP {status}"


@dataclass(frozen=True)
class Pushed:
    """What happened: uploaded, or already there with the same bytes."""

    url: str
    size: int
    unchanged: bool


def push(data: bytes, bucket: str, key: str, settings: S3Settings, overwrite: bool = False) -> Pushed:
    """PUT ``data`` at ``bucket``/``key``. An object already there with other bytes is left alone unless
    ``overwrite`` (its ETag is compared with the MD5 of ``data``, what S3 and MinIO give a single-part upload)."""
    url = object_url(settings, bucket, key)
    md5 = hashlib.md5(data, usedforsecurity=False).hexdigest()
    status, headers, body = _request("HEAD", url, settings)
    if status == 200:
        if headers.get("etag", "").strip('"') == md5:
            return Pushed(f"s3://{bucket}/{key}", len(data), True)
        if not overwrite:
            raise S3Error(f"s3://{bucket}/{key} already exists with other content: it was left as it is (replace "
                          "it with --overwrite)")
    elif status not in (403, 404):  # 403: no right to read it (or wrong credentials: the PUT says which)
        raise S3Error(f"checking s3://{bucket}/{key} at {settings.endpoint} failed: {_error_text(status, body)}")
    status, _, body = _request("PUT", url, settings, data, {"content-type": "application/json",
                                                            "content-md5": _b64_md5(data)})
    if status != 200:
        raise S3Error(f"uploading s3://{bucket}/{key} to {settings.endpoint} failed: {_error_text(status, body)}")
    return Pushed(f"s3://{bucket}/{key}", len(data), False)


def _b64_md5(data: bytes) -> str:
    import base64

    return base64.b64encode(hashlib.md5(data, usedforsecurity=False).digest()).decode()

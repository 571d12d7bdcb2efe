"""Fetching an execution's ``evaluated_experiment.json`` straight from the Testkube API (``--execution ID``).

Talks plain HTTP to the Testkube API server (standard library only, imported only when asked):

* ``GET {api}/v1/test-workflow-executions/{id}/artifacts`` lists the artifacts (``[{"name": …}, …]``);
* ``GET {api}/v1/test-workflow-executions/{id}/artifacts/{name}`` returns one (the name URL-encoded,
  slashes included, as the Testkube CLI sends it; redirects to object storage are followed).

The API URL comes from ``--api-url`` or ``TESTKUBE_API_URL`` (e.g. ``http://localhost:8088`` after
``kubectl port-forward -n testkube svc/testkube-api-server 8088``); an optional bearer token from
``TESTKUBE_API_TOKEN``. There is no kubeconfig discovery: without a URL the error says how to fetch.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import quote

from kubectl_testbench.results.fetch import RESULT_FILE, Document

ENV_API_URL = "TESTKUBE_API_URL"
ENV_API_TOKEN = "TESTKUBE_API_TOKEN"
ARTIFACT_PATH = "data/experiments/evaluated_experiment.json"
"""Where the evaluate template stores the file (``spec.steps[].artifacts.paths``)."""
DEFAULT_TIMEOUT = 30.0
_EXECUTION_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,252}$")


class ApiError(Exception):
    """The API could not give us the file. ``exit_code`` is 2 (nothing to read) or 3 (cluster/API trouble)."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def how_to_fetch(execution_id: str) -> str:
    return (f"download it with `testkube download artifacts {execution_id} --download-dir DIR` and pass DIR, "
            f"or set --api-url / {ENV_API_URL} (e.g. after `kubectl port-forward -n testkube "
            "svc/testkube-api-server 8088`: http://localhost:8088)")


def api_base(url: str) -> str:
    """``http://host:8088``, ``http://host:8088/`` and ``http://host:8088/v1`` all mean the same API."""
    base = url.strip().rstrip("/")
    if not re.match(r"^https?://", base):
        raise ApiError(f"the Testkube API URL must start with http:// or https://, got {url!r}", 2)
    return base if base.endswith("/v1") else base + "/v1"


def _get(url: str, token: str | None, timeout: float, what: str, execution_id: str) -> bytes:
    import urllib.error
    import urllib.request

    request = urllib.request.Request(url, headers={"Accept": "application/json, */*"})
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body: bytes = response.read()
            return body
    except urllib.error.HTTPError as err:
        if err.code == 404:
            raise ApiError(f"Testkube API: {what} not found (HTTP 404 from {url})", 2) from None
        if err.code in (401, 403):
            raise ApiError(f"Testkube API refused {what} (HTTP {err.code}): set {ENV_API_TOKEN} or "
                           + how_to_fetch(execution_id), 3) from None
        raise ApiError(f"Testkube API answered HTTP {err.code} for {what} ({url})", 3) from None
    except (urllib.error.URLError, OSError) as err:
        reason = getattr(err, "reason", err)
        raise ApiError(f"cannot reach the Testkube API at {url} ({reason}); " + how_to_fetch(execution_id),
                       3) from None


def pick_artifact(names: list[str], execution_id: str) -> str:
    """The evaluate phase's artifact: its known path first, else the only file with the right name."""
    if ARTIFACT_PATH in names:
        return ARTIFACT_PATH
    found = sorted(n for n in names if n.rsplit("/", 1)[-1] == RESULT_FILE)
    if len(found) == 1:
        return found[0]
    if not found:
        listed = ", ".join(sorted(names)[:10]) or "none"
        raise ApiError(f"execution {execution_id} has no {RESULT_FILE} artifact (artifacts: {listed}); "
                       "did its evaluate step run?", 2)
    raise ApiError(f"execution {execution_id} has several {RESULT_FILE} artifacts ({', '.join(found)}); "
                   "download them and pass the one you mean", 2)


def _artifact_names(payload: Any) -> list[str]:
    if not isinstance(payload, list):
        raise ValueError("expected a JSON array")
    names = []
    for item in payload:
        name = item.get("name") if isinstance(item, dict) else None
        if isinstance(name, str):
            names.append(name)
    return names


def fetch_execution(execution_id: str, api_url: str | None, token: str | None = None,
                    timeout: float = DEFAULT_TIMEOUT) -> Document:
    """Download one execution's result file; raise :class:`ApiError` with a message that says what to do."""
    if not _EXECUTION_ID.match(execution_id):
        raise ApiError(f"not a Testkube execution id: {execution_id!r}", 2)
    if not api_url:
        raise ApiError(f"--execution {execution_id} needs the Testkube API, and no API URL is configured: "
                       + how_to_fetch(execution_id), 2)
    base = api_base(api_url)
    root = f"{base}/test-workflow-executions/{quote(execution_id, safe='')}/artifacts"
    listing = _get(root, token, timeout, f"execution {execution_id}", execution_id)
    try:
        names = _artifact_names(json.loads(listing.decode("utf-8")))
    except (ValueError, UnicodeDecodeError) as err:
        raise ApiError(f"Testkube API: unexpected artifact list for execution {execution_id} ({err})", 3) from None
    name = pick_artifact(names, execution_id)
    data = _get(f"{root}/{quote(name, safe='')}", token, timeout, f"artifact {name} of execution {execution_id}",
                execution_id)
    return Document(f"execution {execution_id}", data)

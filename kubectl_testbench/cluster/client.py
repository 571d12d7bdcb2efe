"""A thin REST client over the ``kubernetes`` package's connection pool, with typed one-line errors.

Why raw REST instead of ``DynamicClient.server_side_apply``: the DynamicClient discovers every API group
of the cluster before its first call (dozens of requests, plus a discovery cache file on disk), hides
the request it sends, and raises errors whose text we would have to take apart again. Here every call
is one visible request (method, path, query, content type, body bytes), discovery is one GET per API
group we actually use, and every failure becomes a :mod:`~kubectl_testbench.cluster.errors` type with
a message that names the server, verb, resource and namespace.

The ``kubernetes`` package still does what it is good at: reading kubeconfig (exec plugins, OIDC,
client certificates, in-cluster tokens) into a ``Configuration`` and building a TLS/proxy-aware urllib3
pool from it. Requests go through ``ApiClient(...).rest_client.pool_manager`` directly, because the
generated ``call_api`` changed signature and error behaviour across the client versions we support.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from kubectl_testbench import __version__
from kubectl_testbench.cluster.config import Connection
from kubectl_testbench.cluster.errors import (
    AlreadyExists,
    ClusterError,
    FieldConflict,
    Forbidden,
    Invalid,
    NotFound,
    NotServed,
    RequestTimeout,
    ServerError,
    Unauthorized,
    Unreachable,
)
from kubectl_testbench.cluster.resources import Kind, Ref

APPLY_PATCH = "application/apply-patch+yaml"
JSON = "application/json"
USER_AGENT = f"kubectl-testbench/{__version__}"
PAGE_SIZE = 500
MAX_RETRIES = 10
"""Retries of an answer that carries ``Retry-After`` (429, 5xx), as client-go's default ``maxRetries``."""
MAX_RETRY_WAIT = 10.0
"""The longest wait we honour per ``Retry-After``, so an overloaded server cannot stall a CI job for long."""

Query = Sequence[tuple[str, str]]


@dataclass(frozen=True, slots=True)
class Target:
    """What a request is about, for error messages: verb, kind, namespace, name."""

    verb: str
    kind: Kind | None = None
    namespace: str | None = None
    name: str | None = None

    def describe(self) -> str:
        if self.kind is None:
            return self.verb
        what = f'{self.kind.kind} "{self.name}"' if self.name else self.kind.resource
        where = f' in namespace "{self.namespace}"' if self.namespace else ""
        return f"{self.verb} {what}{where}"


@dataclass(slots=True)
class Client:
    """One connection; remembers which API groups the server serves."""

    connection: Connection
    _pool: Any = None
    _served: dict[str, set[str] | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        from kubernetes import client

        self._pool = client.ApiClient(self.connection.configuration).rest_client.pool_manager

    @property
    def server(self) -> str:
        return self.connection.server

    # --- verbs ---------------------------------------------------------------------------------------

    def get(self, ref: Ref) -> dict[str, Any] | None:
        """The live object, or None when it does not exist."""
        try:
            return self.request("GET", ref.path, target=Target("get", ref.kind, ref.namespace, ref.name))
        except NotFound:
            return None

    def list(self, kind: Kind, namespace: str | None, selector: str | None = None) -> list[dict[str, Any]]:
        """Items of a collection (all namespaces when ``namespace`` is None), optionally by label selector.

        Pages of :data:`PAGE_SIZE` items, following ``metadata.continue`` as kubectl does.
        """
        items: list[dict[str, Any]] = []
        token = ""
        while True:
            query = [("labelSelector", selector)] if selector else []
            query.append(("limit", str(PAGE_SIZE)))
            if token:
                query.append(("continue", token))
            body = self.request("GET", kind.collection(namespace), query=query,
                                target=Target("list", kind, namespace))
            for item in body.get("items") or []:
                if isinstance(item, dict):  # list items carry no apiVersion/kind
                    item.setdefault("apiVersion", kind.api_version)
                    item.setdefault("kind", kind.kind)
                    items.append(item)
            token = str((body.get("metadata") or {}).get("continue") or "")
            if not token:
                return items

    def apply(self, obj: dict[str, Any], *, field_manager: str, force: bool, dry_run: bool) -> dict[str, Any]:
        """Server-side apply: PATCH with ``application/apply-patch+yaml`` (a JSON body is valid YAML)."""
        ref = Ref.of(obj)
        return self.request("PATCH", ref.path, query=apply_query(field_manager, force, dry_run),
                            body=obj, content_type=APPLY_PATCH,
                            target=Target("patch", ref.kind, ref.namespace, ref.name))

    def create(self, kind: Kind, namespace: str, obj: dict[str, Any], *, field_manager: str,
               dry_run: bool = False) -> dict[str, Any]:
        query = [("fieldManager", field_manager)] + ([("dryRun", "All")] if dry_run else [])
        name = (obj.get("metadata") or {}).get("name")
        return self.request("POST", kind.collection(namespace), query=query, body=obj,
                            target=Target("create", kind, namespace, name))

    def delete(self, ref: Ref, *, uid: str | None = None, dry_run: bool = False) -> bool:
        """Delete (background propagation, only if the uid still matches); False when already gone."""
        options: dict[str, Any] = {"apiVersion": "v1", "kind": "DeleteOptions", "propagationPolicy": "Background"}
        if uid:
            options["preconditions"] = {"uid": uid}
        try:
            self.request("DELETE", ref.path, query=[("dryRun", "All")] if dry_run else [], body=options,
                         target=Target("delete", ref.kind, ref.namespace, ref.name))
        except NotFound:
            return False
        return True

    # --- discovery -----------------------------------------------------------------------------------

    def served(self, kind: Kind) -> bool:
        """Whether the server serves the kind (its group/version discovery document lists the plural)."""
        if not kind.group:
            return True
        gv = kind.discovery_path
        if gv not in self._served:
            try:
                doc = self.request("GET", gv, target=Target("discover", kind))
            except (NotFound, NotServed):
                self._served[gv] = None
            else:
                self._served[gv] = {str(r.get("name")) for r in doc.get("resources") or [] if isinstance(r, dict)}
        resources = self._served[gv]
        return resources is not None and kind.plural in resources

    def ensure_served(self, kind: Kind) -> None:
        if not self.served(kind):
            raise NotServed(f"{kind.kind} ({kind.api_version}) is not served by the cluster at {self.server}: "
                            f"{kind.missing_hint or 'install its CRD first'}", kind.kind)

    # --- the one request function ------------------------------------------------------------------

    def request(self, method: str, path: str, *, query: Query = (), body: dict[str, Any] | None = None,
                content_type: str = JSON, target: Target) -> dict[str, Any]:
        """Send one request and return the decoded JSON body, or raise a typed :class:`ClusterError`."""
        import urllib3

        url = self.server.rstrip("/") + path + ("?" + urlencode(list(query)) if query else "")
        headers = {"Accept": JSON, "User-Agent": USER_AGENT}
        data = None
        if body is not None:
            headers["Content-Type"] = content_type
            data = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
        headers.update(self._auth())
        timeout_s = self.connection.request_timeout
        timeout = urllib3.Timeout(total=timeout_s) if timeout_s else urllib3.Timeout(connect=None, read=None)
        for attempt in range(MAX_RETRIES + 1):
            try:
                response = self._pool.request(method, url, body=data, headers=headers, timeout=timeout,
                                              retries=False, redirect=False, preload_content=True)
            except urllib3.exceptions.HTTPError as err:
                raise self._transport_error(err) from None
            except OSError as err:
                raise Unreachable(f"cannot reach the Kubernetes API server at {self.server}: {err}") from None
            status = int(response.status)
            wait = retry_after(status, response.headers.get("Retry-After"))
            if wait is None or attempt == MAX_RETRIES:
                break
            time.sleep(wait)  # the server did not act on the request and asked us to come back (client-go does)
        payload = _decode(response.data)
        if 200 <= status < 300:
            if not isinstance(payload, dict):
                raise ServerError(f"the API server at {self.server} answered {method} {path} with something "
                                  "that is not a JSON object")
            return payload
        raise status_error(status, payload if isinstance(payload, dict) else {}, target, self.server,
                           _text(response.data), retries=attempt)

    def _auth(self) -> dict[str, str]:
        """The Authorization header from the loaded configuration (refreshing exec/OIDC tokens)."""
        settings = self.connection.configuration.auth_settings()
        bearer = settings.get("BearerToken") if isinstance(settings, dict) else None
        if bearer and bearer.get("value"):
            return {"Authorization": str(bearer["value"])}
        return {}

    def _transport_error(self, err: Exception) -> ClusterError:
        import urllib3.exceptions as ux

        reason: Any = err.reason if isinstance(err, ux.MaxRetryError) and err.reason is not None else err
        timeout = self.connection.request_timeout
        if isinstance(reason, ux.NameResolutionError):
            return Unreachable(f"cannot reach the Kubernetes API server at {self.server}: the host name does not "
                               "resolve (check the kubeconfig's server address)")
        if isinstance(reason, ux.NewConnectionError):
            return Unreachable(f"cannot reach the Kubernetes API server at {self.server}: connection refused "
                               "(is the cluster running? check --context and --kubeconfig)")
        if isinstance(reason, ux.TimeoutError):
            return RequestTimeout(f"the Kubernetes API server at {self.server} did not answer within "
                                  f"{timeout:g}s (--request-timeout)")
        if isinstance(reason, ux.SSLError):
            return Unreachable(f"TLS handshake with the Kubernetes API server at {self.server} failed: "
                               f"{_first_line(str(reason))}")
        if isinstance(reason, ux.ProtocolError):
            return Unreachable(f"the connection to the Kubernetes API server at {self.server} broke: "
                               f"{_first_line(str(reason))}")
        return Unreachable(f"cannot reach the Kubernetes API server at {self.server}: {_first_line(str(reason))}")


def retry_after(status: int, header: str | None) -> float | None:
    """Seconds to wait before sending the request again, or None: only a 429 or 5xx answer with a
    ``Retry-After`` of whole seconds is retried, as client-go does (capped at :data:`MAX_RETRY_WAIT`)."""
    if (status != 429 and status < 500) or header is None:
        return None
    text = header.strip()
    if not text.isdigit():
        return None
    return min(float(text), MAX_RETRY_WAIT)


def apply_query(field_manager: str, force: bool, dry_run: bool) -> list[tuple[str, str]]:
    """The query of a server-side apply PATCH; ``force`` and ``dryRun`` only when asked for."""
    query = [("fieldManager", field_manager)]
    if force:
        query.append(("force", "true"))
    if dry_run:
        query.append(("dryRun", "All"))
    return query


def status_error(status: int, payload: dict[str, Any], target: Target, server: str, raw: str = "",
                 retries: int = 0) -> ClusterError:
    """A typed error for a non-2xx answer, from its ``Status`` body (``retries``: Retry-After rounds spent)."""
    message = _first_line(str(payload.get("message") or raw or f"HTTP {status}"))
    raw_details = payload.get("details")
    details: dict[str, Any] = raw_details if isinstance(raw_details, dict) else {}
    kind = target.kind
    if status == 401:
        return Unauthorized(f"the Kubernetes API server at {server} rejected the credentials (401 Unauthorized): "
                            "log in again or fix the kubeconfig user")
    if status == 403:
        resource = kind.resource if kind else "the API"
        user = re.search(r'User "([^"]*)"', message)
        who = f'user "{user.group(1)}"' if user else "you"
        where = f' in namespace "{target.namespace}"' if target.namespace else " cluster-wide"
        return Forbidden(f"forbidden: RBAC does not allow {who} to {target.verb} {resource}{where}; ask for a Role "
                         "that grants it (see docs/cluster.md)", target.verb, resource, target.namespace)
    if status == 404:
        if details.get("kind") == "namespaces":
            return NotFound(f'namespace "{details.get("name", target.namespace)}" does not exist '
                            f"({target.describe()})")
        if kind is not None and target.verb != "discover" and not details.get("name"):
            return NotServed(f"{kind.kind} ({kind.api_version}) is not served by the cluster at {server}: "
                             f"{kind.missing_hint or 'install its CRD first'}", kind.kind)
        return NotFound(f"not found: {target.describe()}")
    if status == 409:
        causes = [c for c in details.get("causes") or [] if isinstance(c, dict)]
        conflicts = [(_manager(str(c.get("message", ""))), str(c.get("field", "")))
                     for c in causes if c.get("reason") == "FieldManagerConflict"]
        if conflicts:
            return FieldConflict(_conflict_message(target, conflicts), conflicts)
        if payload.get("reason") == "AlreadyExists":
            return AlreadyExists(f"already exists: {target.describe()}")
        return ServerError(f"conflict: {target.describe()}: {message}")
    if status in (400, 422):
        return Invalid(f"the API server refused to {target.describe()}: {message}")
    if status == 429 or status >= 500:
        after = f" (still failing after {retries} retries as Retry-After asked)" if retries else ""
        return ServerError(f"the Kubernetes API server at {server} failed to {target.describe()}: "
                           f"{status} {payload.get('reason') or ''}: {message}{after}")
    return ServerError(f"unexpected answer {status} from the Kubernetes API server at {server} to "
                       f"{target.describe()}: {message}")


def _conflict_message(target: Target, conflicts: list[tuple[str, str]]) -> str:
    by_manager: dict[str, list[str]] = {}
    for manager, path in conflicts:
        by_manager.setdefault(manager, []).append(path)
    parts = [f'field manager "{m}" owns {", ".join(p for p in paths if p) or "fields we set"}'
             for m, paths in by_manager.items()]
    obj = f"{target.kind.display}/{target.name}" if target.kind and target.name else target.describe()
    return (f"conflict applying {obj}: {'; '.join(parts)}. Another tool changed these fields; re-run with "
            "--force-conflicts to take them over")


def _manager(text: str) -> str:
    """``conflict with "kubectl-client-side-apply" using v1`` → ``kubectl-client-side-apply``."""
    match = re.search(r'conflict with "([^"]*)"', text)
    return match.group(1) if match else (text or "another manager")


def _decode(data: bytes | None) -> Any:
    if not data:
        return {}
    try:
        return json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return None


def _text(data: bytes | None) -> str:
    return (data or b"").decode("utf-8", "replace")[:300]


def _first_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return " ".join(lines)[:500] if lines else ""


def unique(items: Iterable[Kind]) -> list[Kind]:
    """Kinds in first-seen order without repeats."""
    seen: list[Kind] = []
    for item in items:
        if item not in seen:
            seen.append(item)
    return seen

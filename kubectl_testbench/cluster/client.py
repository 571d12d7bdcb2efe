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

The server is not trusted to behave. ``--request-timeout`` is a deadline for a whole request: connecting,
the headers, every byte of the body and the waits ``Retry-After`` asks for (urllib3's own timeout is per
socket read, so a server dripping a byte a second would hold us forever). An answer is read up to
:data:`MAX_RESPONSE_BYTES` and no further, decoded as Go's encoding/json would (no NaN, no lone surrogates)
and no deeper than :data:`MAX_RESPONSE_DEPTH`; a list ends after :data:`MAX_LIST_PAGES` pages,
:data:`MAX_LIST_ITEMS` items or a continue token seen before, and holds only objects of the kind asked for.
"""

from __future__ import annotations

import json
import math
import re
import socket
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from functools import cache
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
    redact,
)
from kubectl_testbench.cluster.resources import Kind, Ref, mapping, sequence
from kubectl_testbench.load.limits import DEFAULT_LIMITS, MiB

APPLY_PATCH = "application/apply-patch+yaml"
JSON = "application/json"
USER_AGENT = f"kubectl-testbench/{__version__}"
PAGE_SIZE = 500
MAX_RETRIES = 10
"""Retries of an answer that carries ``Retry-After`` (429, 5xx), as client-go's default ``maxRetries``."""
MAX_RETRY_WAIT = 10.0
"""The longest wait we honour per ``Retry-After``, so an overloaded server cannot stall a CI job for long; waits
also count against ``--request-timeout``, and one that would pass it is not waited at all."""
MAX_RESPONSE_BYTES = 64 * MiB
"""The most we read of one answer, and of all pages of one list together. A page of 500 large objects is a few
MiB; a misbehaving server's 3 GiB answer stops here, before it is decoded (which costs several times its size)."""
MAX_RESPONSE_DEPTH = DEFAULT_LIMITS.max_depth
"""Deepest nesting of an answer: what we do with objects (diff, YAML output) recurses over them."""
MAX_LIST_PAGES = 1000
"""Pages of one list. With a label selector the server may send short or even empty pages (it filters each chunk
of ``limit`` objects), so this allows scanning 500,000 objects, and stops a server that never ends its list."""
MAX_LIST_ITEMS = 100_000
"""Objects in one list."""
READ_CHUNK = MiB

Query = Sequence[tuple[str, str]]


@dataclass(frozen=True, slots=True)
class Target:
    """What a request is about, for error messages: verb, kind, namespace, name."""

    verb: str
    kind: Kind | None = None
    namespace: str | None = None
    name: str | None = None

    def describe(self) -> str:
        return f"{self.verb} {self.subject()}" if self.kind else self.verb

    def subject(self) -> str:
        """What the request is about, without the verb: ``TestWorkflow "x" in namespace "testkube"``."""
        if self.kind is None:
            return ""
        what = f'{self.kind.kind} "{self.name}"' if self.name else self.kind.resource
        where = f' in namespace "{self.namespace}"' if self.namespace else ""
        return f"{what}{where}"


@dataclass(slots=True)
class Client:
    """One connection; remembers which API groups the server serves."""

    connection: Connection
    _pool: Any = None
    _served: dict[str, set[str] | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        from kubernetes import client

        self._pool = client.ApiClient(self.connection.configuration).rest_client.pool_manager
        _watch(self._pool)

    @property
    def server(self) -> str:
        """The server's URL for messages: without the user name and password a kubeconfig may put in it."""
        return redact(self.connection.server)

    # --- verbs ---------------------------------------------------------------------------------------

    def get(self, ref: Ref) -> dict[str, Any] | None:
        """The live object, or None when it does not exist."""
        try:
            return self.request("GET", ref.path, target=Target("get", ref.kind, ref.namespace, ref.name))
        except NotFound:
            return None

    def list(self, kind: Kind, namespace: str | None, selector: str | None = None) -> list[dict[str, Any]]:
        """Items of a collection (all namespaces when ``namespace`` is None), optionally by label selector.

        Pages of :data:`PAGE_SIZE` items, following ``metadata.continue`` as kubectl does, within
        :data:`MAX_LIST_PAGES`, :data:`MAX_LIST_ITEMS` and :data:`MAX_RESPONSE_BYTES` for all pages together.
        Every item is an object of ``kind`` (anything else is a :class:`ServerError`).
        """
        target = Target("list", kind, namespace)
        items: list[dict[str, Any]] = []
        token = ""
        seen: set[str] = set()
        budget = MAX_RESPONSE_BYTES
        for _ in range(MAX_LIST_PAGES):
            query = [("labelSelector", selector)] if selector else []
            query.append(("limit", str(PAGE_SIZE)))
            if token:
                query.append(("continue", token))
            body, size = self._request("GET", kind.collection(namespace), query=query, target=target,
                                       max_bytes=budget)
            budget -= size
            items.extend(self._items(body, kind, target))
            if len(items) > MAX_LIST_ITEMS:
                raise self._odd(target, f"more than {MAX_LIST_ITEMS} objects")
            token = self._continue(body, target)
            if not token:
                return items
            if token in seen:
                raise ServerError(f"the Kubernetes API server at {self.server} sent the same continue token twice "
                                  f"to {target.describe()}: a list that never ends")
            seen.add(token)
        raise ServerError(f"the Kubernetes API server at {self.server} did not finish listing {target.subject()} "
                          f"within {MAX_LIST_PAGES} pages")

    def _items(self, body: dict[str, Any], kind: Kind, target: Target) -> Iterator[dict[str, Any]]:
        """The items of one page, each an object of ``kind`` with its apiVersion and kind filled in."""
        items = body.get("items")
        if items is not None and not isinstance(items, list):
            raise self._odd(target, "items that are not a list")
        for item in items or []:
            if not isinstance(item, dict) or not isinstance(item.get("metadata", {}), dict):
                raise self._odd(target, "an item that is not an object with metadata")
            claimed = (item.setdefault("apiVersion", kind.api_version), item.setdefault("kind", kind.kind))
            if claimed != (kind.api_version, kind.kind):  # list items usually carry no apiVersion/kind
                raise self._odd(target, f"a {claimed[1]} ({claimed[0]}) among them")
            yield item

    def _continue(self, body: dict[str, Any], target: Target) -> str:
        meta = body.get("metadata")
        if meta is not None and not isinstance(meta, dict):
            raise self._odd(target, "list metadata that is not an object")
        token = mapping(meta).get("continue")
        if token is not None and not isinstance(token, str):
            raise self._odd(target, "a continue token that is not a string")
        return token or ""

    def _odd(self, target: Target, what: str) -> ServerError:
        return ServerError(f"the Kubernetes API server at {self.server} answered {target.describe()} with {what}")

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
        """Delete (background propagation, only if the uid still matches); False when already gone.

        ``dryRun`` goes into the DeleteOptions body: kube-apiserver reads the options from the body when there is
        one and then ignores the query, so a ``?dryRun=All`` beside a body deletes for real. The query carries it
        too, for whoever reads the request line (an audit log, a proxy)."""
        options: dict[str, Any] = {"apiVersion": "v1", "kind": "DeleteOptions", "propagationPolicy": "Background"}
        if uid:
            options["preconditions"] = {"uid": uid}
        if dry_run:
            options["dryRun"] = ["All"]
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
                self._served[gv] = {str(r.get("name")) for r in sequence(doc.get("resources")) if isinstance(r, dict)}
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
        return self._request(method, path, query=query, body=body, content_type=content_type, target=target)[0]

    def _request(self, method: str, path: str, *, query: Query = (), body: dict[str, Any] | None = None,
                 content_type: str = JSON, target: Target,
                 max_bytes: int = MAX_RESPONSE_BYTES) -> tuple[dict[str, Any], int]:
        """:meth:`request`, also returning the size of the answer (lists add their pages up)."""
        url = self.connection.server.rstrip("/") + path + ("?" + urlencode(list(query)) if query else "")
        headers = {"Accept": JSON, "User-Agent": USER_AGENT}
        data = None
        if body is not None:
            headers["Content-Type"] = content_type
            data = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
        headers.update(self._auth())
        deadline = Deadline(self.connection.request_timeout)
        try:
            return self._send(method, url, data, headers, target, deadline, max_bytes)
        except ClusterError as err:
            err.conceal(headers.get("Authorization", "").partition(" ")[2])
            raise
        finally:
            deadline.cancel()

    def _send(self, method: str, url: str, data: bytes | None, headers: dict[str, str], target: Target,
              deadline: Deadline, max_bytes: int) -> tuple[dict[str, Any], int]:
        """Send, honouring ``Retry-After`` within the deadline; decode the final answer."""
        note = ""
        for attempt in range(MAX_RETRIES + 1):
            status, asked, raw = self._exchange(method, url, data, headers, target, deadline, max_bytes)
            wait = retry_after(status, asked)
            if wait is None or attempt == MAX_RETRIES:
                break
            left = deadline.left()
            if left is not None and wait >= left:
                note = _beyond_deadline(attempt, (asked or "").strip(), deadline.seconds)
                break
            time.sleep(wait)  # the server did not act on the request and asked us to come back (client-go does)
        if 200 <= status < 300:
            try:
                payload = decode(raw)
            except ValueError as err:
                raise ServerError(f"the API server at {self.server} answered {target.describe()} with {err}") from None
            if not isinstance(payload, dict):
                raise ServerError(f"the API server at {self.server} answered {target.describe()} with something "
                                  "that is not a JSON object")
            return payload, len(raw)
        try:
            payload = decode(raw)
        except ValueError:
            payload = None
        raise status_error(status, payload if isinstance(payload, dict) else {}, target, self.server,
                           _text(raw), retries=attempt, note=note)

    def _exchange(self, method: str, url: str, data: bytes | None, headers: dict[str, str], target: Target,
                  deadline: Deadline, max_bytes: int) -> tuple[int, str | None, bytes]:
        """One round trip within the deadline: status, ``Retry-After`` and at most ``max_bytes`` of body."""
        import urllib3

        left = deadline.left()
        if left is not None and left <= 0:
            raise self._timed_out()
        timeout = urllib3.Timeout(connect=left, read=left)
        with deadline.active():
            try:
                response = self._pool.request(method, url, body=data, headers=headers, timeout=timeout,
                                              retries=False, redirect=False, preload_content=False,
                                              decode_content=False)
            except urllib3.exceptions.HTTPError as err:
                raise self._timed_out() if deadline.expired else self._transport_error(err) from None
            except OSError as err:
                if deadline.expired:
                    raise self._timed_out() from None
                raise Unreachable(f"cannot reach the Kubernetes API server at {self.server}: {err}") from None
            raw = self._body(response, target, deadline, max_bytes)
        return int(response.status), response.headers.get("Retry-After"), raw

    def _body(self, response: Any, target: Target, deadline: Deadline, max_bytes: int) -> bytes:
        """The whole body, read in chunks so that neither the deadline nor the size limit can be outrun."""
        import urllib3

        length = str(response.headers.get("Content-Length") or "").strip()
        if length.isdigit() and int(length) > max_bytes:
            response.close()
            raise self._too_large(target)
        buffer = bytearray()
        complete = False
        try:
            while chunk := response.read(READ_CHUNK):
                buffer += chunk
                if len(buffer) > max_bytes:
                    raise self._too_large(target)
            complete = True
        except (urllib3.exceptions.HTTPError, OSError) as err:
            if deadline.expired:
                raise self._timed_out() from None
            raise Unreachable(f"the connection to the Kubernetes API server at {self.server} broke: "
                              f"{_first_line(str(err))}") from None
        finally:
            if not complete:
                response.close()  # never hand a half-read connection back to the pool
            response.release_conn()
        if deadline.expired:  # the socket was cut: what looks like the end of the body is not
            raise self._timed_out()
        return bytes(buffer)

    def _too_large(self, target: Target) -> ServerError:
        return ServerError(f"the Kubernetes API server at {self.server} answered {target.describe()} with more than "
                           f"{MAX_RESPONSE_BYTES // MiB} MiB: stopped reading (kubectl-testbench's limit for one "
                           "answer)")

    def _timed_out(self) -> RequestTimeout:
        timeout = self.connection.request_timeout
        within = f"within {timeout:g}s (--request-timeout)" if timeout else "in time (the connection timed out)"
        return RequestTimeout(f"the Kubernetes API server at {self.server} did not answer {within}")

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
        if isinstance(reason, ux.NameResolutionError):
            return Unreachable(f"cannot reach the Kubernetes API server at {self.server}: the host name does not "
                               "resolve (check the kubeconfig's server address)")
        if isinstance(reason, ux.NewConnectionError):
            return Unreachable(f"cannot reach the Kubernetes API server at {self.server}: connection refused "
                               "(is the cluster running? check --context and --kubeconfig)")
        if isinstance(reason, ux.TimeoutError):
            return self._timed_out()
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


def _beyond_deadline(retries: int, asked: str, timeout: float | None) -> str:
    """Why a request that ``Retry-After`` asked to repeat was not repeated: the wait would pass the deadline."""
    if retries:
        return (f" (still failing after {retries} retries as Retry-After asked; the next, after {asked}s, would pass "
                f"the --request-timeout of {timeout:g}s)")
    return f" (it asked to be retried after {asked}s, beyond the --request-timeout of {timeout:g}s)"


def apply_query(field_manager: str, force: bool, dry_run: bool) -> list[tuple[str, str]]:
    """The query of a server-side apply PATCH; ``force`` and ``dryRun`` only when asked for."""
    query = [("fieldManager", field_manager)]
    if force:
        query.append(("force", "true"))
    if dry_run:
        query.append(("dryRun", "All"))
    return query


def status_error(status: int, payload: dict[str, Any], target: Target, server: str, raw: str = "",
                 retries: int = 0, note: str = "") -> ClusterError:
    """A typed error for a non-2xx answer, from its ``Status`` body (``retries``: Retry-After rounds spent;
    ``note``: why no more were tried, instead of their count)."""
    message = _first_line(str(payload.get("message") or raw or f"HTTP {status}"))
    raw_details = payload.get("details")
    details: dict[str, Any] = raw_details if isinstance(raw_details, dict) else {}
    kind = target.kind
    if status == 401:
        return Unauthorized(f"the Kubernetes API server at {server} rejected the credentials (401 Unauthorized): "
                            "log in again or fix the kubeconfig user")
    if status == 403:
        return _forbidden(message, target)
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
        after = note or (f" (still failing after {retries} retries as Retry-After asked)" if retries else "")
        return ServerError(f"the Kubernetes API server at {server} failed to {target.describe()}: "
                           f"{status} {payload.get('reason') or ''}: {message}{after}")
    return ServerError(f"unexpected answer {status} from the Kubernetes API server at {server} to "
                       f"{target.describe()}: {message}")


_USER = re.compile(r'User "([^"]*)"')
_DENIED_VERB = re.compile(r'\bcannot ([a-z]+) resource ')
CREATE_BY_APPLY = "a server-side apply that creates an object needs create as well as patch"


def _forbidden(message: str, target: Target) -> Forbidden:
    """403: who may not do what, where. The verb is the one the authorizer denied, from its message
    (``User "jane" cannot create resource "configmaps" in API group "" in the namespace "testkube"``): a
    server-side apply (our ``patch``) of an object that does not exist yet is also authorized as ``create``, and
    without that permission it is ``create`` the server refuses."""
    resource = target.kind.resource if target.kind else "the API"
    user, denied = _USER.search(message), _DENIED_VERB.search(message)
    who = f'user "{user.group(1)}"' if user else "you"
    verb = denied.group(1) if denied else target.verb
    where = f' in namespace "{target.namespace}"' if target.namespace else " cluster-wide"
    why = f" ({CREATE_BY_APPLY})" if (target.verb, verb) == ("patch", "create") else ""
    return Forbidden(f"forbidden: RBAC does not allow {who} to {verb} {resource}{where}{why}; ask for a Role that "
                     "grants it (see docs/cluster.md)", verb, resource, target.namespace)


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


_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_ESCAPES = re.compile(rb"\\\\|\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|"
                      rb"(\\u[dD][89a-fA-F][0-9a-fA-F]{2})")


def decode(data: bytes) -> Any:
    """An answer's JSON as Go's encoding/json (and so kubectl) reads it, or ValueError saying what it is instead.

    Stricter than ``json.loads``: UTF-8 only, no ``NaN``/``Infinity``/out-of-range numbers (which ``json.dumps``
    would write back as invalid JSON), a lone surrogate escape becomes U+FFFD as in Go (a lone surrogate cannot
    be printed as UTF-8), and nesting stops at :data:`MAX_RESPONSE_DEPTH`.
    """
    if not data:
        return {}
    if _SURROGATE_ESCAPE.search(data):
        data = _ESCAPES.sub(lambda m: b"\\ufffd" if m.group(1) else m.group(0), data)
    try:
        value = json.loads(data.decode("utf-8"), parse_constant=_not_a_number, parse_float=_finite)
    except RecursionError:
        raise ValueError(f"JSON nested deeper than {MAX_RESPONSE_DEPTH} levels") from None
    except MemoryError:
        raise ValueError("JSON too large to decode") from None
    except (ValueError, UnicodeDecodeError):
        raise ValueError("something that is not JSON") from None
    if _deeper_than(value, MAX_RESPONSE_DEPTH):
        raise ValueError(f"JSON nested deeper than {MAX_RESPONSE_DEPTH} levels")
    return value


def _not_a_number(text: str) -> float:
    raise ValueError(text)


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(text)
    return value


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether objects and arrays nest more than ``limit`` levels (without recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)] if isinstance(value, dict | list) else []
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def _text(data: bytes | None) -> str:
    return (data or b"").decode("utf-8", "replace")[:300]


def _first_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return " ".join(lines)[:500] if lines else ""


class Deadline:
    """``--request-timeout`` as a deadline for one request, retries and body included (None: no deadline).

    urllib3 bounds each socket operation, not their sum. A timer thread cuts the socket of the request that is
    running when the deadline passes, which ends a blocked read at once; the request then reports a timeout.
    The connection learns which deadline it runs under from :meth:`active` (see :func:`_watch`).
    """

    _current = threading.local()

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self._at = None if seconds is None else time.monotonic() + seconds
        self._fired = False
        self._connection: Any = None
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        if seconds is not None:
            self._timer = threading.Timer(seconds, self._expire)
            self._timer.daemon = True
            self._timer.start()

    def left(self) -> float | None:
        """Seconds until the deadline (None: no deadline)."""
        return None if self._at is None else self._at - time.monotonic()

    @property
    def expired(self) -> bool:
        left = self.left()
        return self._fired or (left is not None and left <= 0)

    @contextmanager
    def active(self) -> Iterator[None]:
        """Connections used inside the block attach to this deadline."""
        Deadline._current.value = self
        try:
            yield
        finally:
            Deadline._current.value = None

    def attach(self, connection: Any) -> None:
        with self._lock:
            self._connection = connection
            if self._fired:
                _cut(connection)

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()

    def _expire(self) -> None:
        with self._lock:
            self._fired = True
            _cut(self._connection)

    @staticmethod
    def attach_current(connection: Any) -> None:
        deadline = getattr(Deadline._current, "value", None)
        if deadline is not None:
            deadline.attach(connection)


def _cut(connection: Any) -> None:
    """Shut the connection's socket down (from another thread: a blocked read returns at once)."""
    sock = getattr(connection, "sock", None)
    sock = getattr(sock, "socket", sock)  # urllib3's SSLTransport (TLS through an HTTPS proxy) wraps a socket
    if isinstance(sock, socket.socket):
        with suppress(OSError):  # already closed
            socket.socket.shutdown(sock, socket.SHUT_RDWR)  # the plain socket's shutdown, also for an SSLSocket


class _Watched:
    """Mixed into urllib3's connection classes: a connection attaches to the deadline of the running request."""

    def connect(self) -> None:
        Deadline.attach_current(self)
        super().connect()  # type: ignore[misc]

    def request(self, *args: Any, **kwargs: Any) -> Any:
        Deadline.attach_current(self)
        return super().request(*args, **kwargs)  # type: ignore[misc]


@cache
def _watched_pool(pool_cls: Any) -> Any:
    connection_cls = type(f"Watched{pool_cls.ConnectionCls.__name__}", (_Watched, pool_cls.ConnectionCls), {})
    return type(f"Watched{pool_cls.__name__}", (pool_cls,), {"ConnectionCls": connection_cls})


def _watch(manager: Any) -> None:
    """Make the pool manager's connections (plain, TLS, through proxies) attach to request deadlines."""
    manager.pool_classes_by_scheme = {scheme: _watched_pool(cls) for scheme, cls
                                      in manager.pool_classes_by_scheme.items()}


def unique(items: Iterable[Kind]) -> list[Kind]:
    """Kinds in first-seen order without repeats."""
    seen: list[Kind] = []
    for item in items:
        if item not in seen:
            seen.append(item)
    return seen

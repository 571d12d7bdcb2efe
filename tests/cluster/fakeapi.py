"""FakeApiServer: a local HTTP stand-in of the Kubernetes API server, for wire-contract tests.

It speaks just enough of the API to be honest about what the client sends: discovery documents per
group/version, GET/LIST with label selectors, server-side apply PATCH (content type, ``fieldManager``,
``force``, ``dryRun``), POST with ``generateName``, DELETE with ``uid`` preconditions, ``Status`` bodies
for errors, and namespaces that must exist. Every request is recorded. Tests override any answer
with hooks, or slow the server down to provoke timeouts; a hook may also answer with :class:`Raw` bytes
written as a misbehaving server writes them (a body dripped a byte a second, gigabytes, headers that
never end).
"""

from __future__ import annotations

import copy
import json
import re
import socket
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import yaml

TOKEN = "stand-in-token"
CREATED = "2024-05-01T10:00:00Z"

DEFAULT_SERVED: dict[str, dict[str, str]] = {
    "/api/v1": {"configmaps": "ConfigMap", "namespaces": "Namespace"},
    "/apis/testworkflows.testkube.io/v1": {"testworkflows": "TestWorkflow",
                                           "testworkflowexecutions": "TestWorkflowExecution",
                                           "testworkflowtemplates": "TestWorkflowTemplate"},
    "/apis/tests.testkube.io/v1": {"testtriggers": "TestTrigger"},
    "/apis/testbench.agentic-layer.ai/v1alpha1": {"experiments": "Experiment"},
}
_RESOURCE = re.compile(r"^(/api/v1|/apis/[^/]+/[^/]+)(?:/namespaces/([^/]+))?/([^/]+)(?:/([^/]+))?$")


@dataclass
class Recorded:
    """One request as the stand-in saw it."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any
    raw: bytes

    def q(self, name: str) -> str | None:
        values = self.query.get(name)
        return values[0] if values else None

    def __str__(self) -> str:
        query = "&".join(f"{k}={v}" for k, vs in sorted(self.query.items()) for v in vs)
        return f"{self.method} {self.path}" + (f"?{query}" if query else "")


@dataclass
class Raw:
    """An answer written byte for byte: the head (status line and headers) and then the body chunks, with
    ``pause`` seconds before each chunk. ``drip_head`` writes the head one byte per ``pause`` as well."""

    head: bytes
    chunks: Iterable[bytes] = field(default_factory=list)
    pause: float = 0.0
    drip_head: bool = False


def raw_head(code: int = 200, length: int | None = None, headers: dict[str, str] | None = None) -> bytes:
    """A status line and headers (``Content-Length`` when ``length`` is given) ending in the blank line."""
    lines = [f"HTTP/1.1 {code} X", "Content-Type: application/json"]
    if length is not None:
        lines.append(f"Content-Length: {length}")
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


Answer = tuple[int, Any] | tuple[int, Any, dict[str, str]] | Raw
"""Status code, JSON body and, optionally, extra response headers; or a :class:`Raw` answer."""
Hook = Callable[[Recorded], Answer | None]


def status(code: int, reason: str, message: str, details: dict[str, Any] | None = None) -> Answer:
    """A ``metav1.Status`` failure body, as the API server sends it."""
    body: dict[str, Any] = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                            "message": message, "reason": reason, "code": code}
    if details is not None:
        body["details"] = details
    return code, body


def retry_later(code: int, reason: str, message: str, seconds: str = "0") -> Answer:
    """A failure that asks the client to come back (``Retry-After``), as an overloaded API server does."""
    return (*status(code, reason, message), {"Retry-After": seconds})


class FakeApiServer:
    """A local HTTP stand-in of the Kubernetes API server (see the module docstring)."""

    def __init__(self) -> None:
        self.served: dict[str, dict[str, str]] = copy.deepcopy(DEFAULT_SERVED)
        self.namespaces: set[str] = {"default", "team-a", "testkube"}
        self.objects: dict[str, dict[str, Any]] = {}
        self.requests: list[Recorded] = []
        self.hooks: list[Hook] = []
        self.delay = 0.0
        self._lock = threading.Lock()
        self._counter = 0
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,), daemon=True)

    # --- lifecycle ----------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def start(self) -> FakeApiServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def kubeconfig(self, path: Path, namespace: str | None = "team-a", server: str | None = None) -> Path:
        context: dict[str, Any] = {"cluster": "stand-in", "user": "tester"}
        if namespace:
            context["namespace"] = namespace
        path.write_text(yaml.safe_dump({
            "apiVersion": "v1", "kind": "Config",
            "clusters": [{"name": "stand-in", "cluster": {"server": server or self.url}}],
            "users": [{"name": "tester", "user": {"token": TOKEN}}],
            "contexts": [{"name": "stand-in", "context": context},
                         {"name": "other", "context": {"cluster": "stand-in", "user": "tester",
                                                       "namespace": "other-ns"}}],
            "current-context": "stand-in",
        }))
        return path

    # --- test helpers -------------------------------------------------------------------------------

    def put(self, obj: dict[str, Any]) -> dict[str, Any]:
        """Store an object as if someone had created it earlier."""
        obj = copy.deepcopy(obj)
        path = self.path_of(obj)
        meta = obj.setdefault("metadata", {})
        meta.setdefault("uid", f"uid-{meta['name']}")
        meta.setdefault("resourceVersion", "1")
        meta.setdefault("creationTimestamp", CREATED)
        self.objects[path] = obj
        return obj

    def path_of(self, obj: dict[str, Any]) -> str:
        api = obj["apiVersion"]
        prefix = f"/api/{api}" if "/" not in api else f"/apis/{api}"
        plural = next(p for p, k in self.served.get(prefix, DEFAULT_SERVED.get(prefix, {})).items()
                      if k == obj["kind"])
        return f"{prefix}/namespaces/{obj['metadata']['namespace']}/{plural}/{obj['metadata']['name']}"

    def writes(self) -> list[Recorded]:
        return [r for r in self.requests if r.method in ("PATCH", "POST", "PUT", "DELETE")]

    def hook(self, method: str, pattern: str, answer: Callable[[Recorded], Answer | None]) -> None:
        """Answer requests whose method matches and whose path matches ``pattern`` (a regex)."""
        regex = re.compile(pattern)

        def fn(req: Recorded) -> Answer | None:
            if req.method == method and regex.search(req.path):
                return answer(req)
            return None

        self.hooks.append(fn)

    # --- the API ------------------------------------------------------------------------------------

    def handle(self, req: Recorded) -> Answer:
        for hook in self.hooks:
            answer = hook(req)
            if answer is not None:
                return answer
        if req.headers.get("authorization") != f"Bearer {TOKEN}":
            return status(401, "Unauthorized", "Unauthorized")
        if req.method == "GET" and req.path in self.served:
            return 200, {"kind": "APIResourceList", "groupVersion": req.path.split("/", 2)[-1],
                         "resources": [{"name": p, "kind": k, "namespaced": p != "namespaces"}
                                       for p, k in self.served[req.path].items()]}
        match = _RESOURCE.match(req.path)
        if not match or match.group(1) not in self.served or match.group(3) not in self.served[match.group(1)]:
            return status(404, "NotFound", "the server could not find the requested resource")
        prefix, namespace, plural, name = match.groups()
        with self._lock:
            if req.method == "GET":
                return self._get(req, prefix, namespace, plural, name)
            if namespace is not None and namespace not in self.namespaces:
                return status(404, "NotFound", f'namespaces "{namespace}" not found',
                              {"name": namespace, "kind": "namespaces"})
            if req.method == "PATCH" and name:
                return self._apply(req, plural, name)
            if req.method == "POST" and not name and namespace:
                return self._create(req, prefix, namespace, plural)
            if req.method == "DELETE" and name:
                return self._delete(req, plural, name)
        return status(405, "MethodNotAllowed", f"{req.method} is not supported here")

    def _get(self, req: Recorded, prefix: str, namespace: str | None, plural: str, name: str | None) -> Answer:
        if plural == "namespaces" and namespace is None and name is None:
            return 200, {"kind": "NamespaceList", "apiVersion": "v1",
                         "items": [{"metadata": {"name": n}} for n in sorted(self.namespaces)]}
        if name:
            obj = self.objects.get(req.path)
            if obj is None:
                return status(404, "NotFound", f'{plural} "{name}" not found', {"name": name, "kind": plural})
            return 200, obj
        base = f"{prefix}/namespaces/{namespace}/{plural}/" if namespace else None
        items = [o for p, o in sorted(self.objects.items())
                 if (p.startswith(base) if base else (p.startswith(prefix + "/") and f"/{plural}/" in p))]
        selector = req.q("labelSelector")
        if selector:
            items = [o for o in items if _matches(selector, (o.get("metadata") or {}).get("labels") or {})]
        return 200, {"kind": "List", "apiVersion": "v1", "metadata": {"resourceVersion": "99"},
                     "items": [{k: v for k, v in o.items() if k not in ("apiVersion", "kind")} for o in items]}

    def _apply(self, req: Recorded, plural: str, name: str) -> Answer:
        if req.headers.get("content-type") != "application/apply-patch+yaml":
            return status(415, "UnsupportedMediaType", f"the body of the request was in an unknown format: "
                          f"{req.headers.get('content-type')}")
        manager = req.q("fieldManager")
        if not manager:
            return status(400, "BadRequest", "PATCH requests of type application/apply-patch+yaml must have "
                          "a fieldManager")
        live = self.objects.get(req.path)
        merged = _merge(copy.deepcopy(live) if live else {}, req.body)
        meta = merged.setdefault("metadata", {})
        meta["uid"] = (live or {}).get("metadata", {}).get("uid") or f"uid-{name}"
        meta["creationTimestamp"] = (live or {}).get("metadata", {}).get("creationTimestamp") or CREATED
        meta["resourceVersion"] = str(int((live or {}).get("metadata", {}).get("resourceVersion", "0")) + 1)
        meta["managedFields"] = [{"manager": manager, "operation": "Apply", "apiVersion": merged.get("apiVersion")}]
        if req.q("dryRun") != "All":
            self.objects[req.path] = merged
        return (200 if live else 201), merged

    def _create(self, req: Recorded, prefix: str, namespace: str, plural: str) -> Answer:
        obj = copy.deepcopy(req.body)
        meta = obj.setdefault("metadata", {})
        if not meta.get("name"):
            self._counter += 1
            meta["name"] = f"{meta.get('generateName', 'x-')}{self._counter:05d}"
        meta.update({"namespace": namespace, "uid": f"uid-{meta['name']}", "resourceVersion": "1",
                     "creationTimestamp": CREATED, "generation": 1})
        path = f"{prefix}/namespaces/{namespace}/{plural}/{meta['name']}"
        if path in self.objects:
            return status(409, "AlreadyExists", f'{plural} "{meta["name"]}" already exists',
                          {"name": meta["name"], "kind": plural})
        if req.q("dryRun") != "All":
            self.objects[path] = obj
        return 201, obj

    def _delete(self, req: Recorded, plural: str, name: str) -> Answer:
        live = self.objects.get(req.path)
        if live is None:
            return status(404, "NotFound", f'{plural} "{name}" not found', {"name": name, "kind": plural})
        want = ((req.body or {}).get("preconditions") or {}).get("uid")
        have = live["metadata"].get("uid")
        if want and want != have:
            return status(409, "Conflict", f"Precondition failed: UID in precondition: {want}, UID in object "
                          f"meta: {have}", {"name": name, "kind": plural})
        # kube-apiserver reads DeleteOptions from the body when there is one, and then ignores the query: a
        # ?dryRun=All next to a body deletes for real
        dry_run = ((req.body or {}).get("dryRun") or []) if req.body else [req.q("dryRun")]
        if dry_run != ["All"]:
            del self.objects[req.path]
        return 200, {"kind": "Status", "apiVersion": "v1", "status": "Success", "details": {"name": name}}

    # --- HTTP plumbing ------------------------------------------------------------------------------

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self) -> None:
                super().setup()
                # answer in one go, as Go's net/http does; otherwise Nagle + delayed ACK add 40 ms per request
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                parts = urlsplit(self.path)
                body = yaml.safe_load(raw) if raw else None
                req = Recorded(self.command, parts.path, parse_qs(parts.query),
                               {k.lower(): v for k, v in self.headers.items()}, body, raw)
                server.requests.append(req)
                if server.delay:
                    time.sleep(server.delay)
                answer = server.handle(req)
                if isinstance(answer, Raw):
                    self._write_raw(answer)
                    return
                code, payload, *extra = answer
                data = json.dumps(payload).encode()
                try:
                    self.send_response(code)
                    for name, value in (extra[0] if extra else {}).items():
                        self.send_header(name, value)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass  # the client gave up (timeout tests)

            def _write_raw(self, answer: Raw) -> None:
                self.close_connection = True
                try:
                    if answer.drip_head:
                        for byte in answer.head:
                            time.sleep(answer.pause)
                            self.wfile.write(bytes([byte]))
                            self.wfile.flush()
                    else:
                        self.wfile.write(answer.head)
                    for chunk in answer.chunks:
                        if answer.pause:
                            time.sleep(answer.pause)
                        self.wfile.write(chunk)
                        self.wfile.flush()
                except OSError:
                    pass  # the client hung up, as it should

            do_GET = do_PATCH = do_POST = do_DELETE = do_PUT = _serve

        return Handler


def _merge(live: Any, patch: Any) -> Any:
    """Maps merge recursively, everything else is replaced: close enough to SSA for a stand-in."""
    if isinstance(live, dict) and isinstance(patch, dict):
        out = dict(live)
        for key, value in patch.items():
            out[key] = _merge(live.get(key), value)
        return out
    return copy.deepcopy(patch)


def _matches(selector: str, labels: dict[str, str]) -> bool:
    """Equality (``k=v``, ``k==v``, ``k!=v``) and existence (``k``, ``!k``) requirements, ANDed."""
    for term in selector.split(","):
        term = term.strip()
        if "!=" in term:
            key, value = term.split("!=", 1)
            if labels.get(key) == value:
                return False
        elif "=" in term:
            key, value = term.replace("==", "=").split("=", 1)
            if labels.get(key) != value:
                return False
        elif term.startswith("!"):
            if term[1:] in labels:
                return False
        elif term not in labels:
            return False
    return True

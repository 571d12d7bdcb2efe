"""Our validator judged by a real kube-apiserver: every file sent both ways users send it, dry run, strict.

For each file the Go oracle (``harness.Oracle``) plays kubectl's client side -- it splits the stream, converts
YAML to JSON with sigs.k8s.io/yaml, flattens lists and names the JSON kubectl would send for each object -- and
the server answers the rest:

- **create** (what ``kubectl create -f`` sends): ``POST`` of each Experiment's JSON, ``dryRun=All``,
  ``fieldValidation=Strict``;
- **apply** (what a server-side apply of the file itself sends): ``PATCH`` of the file's YAML as
  ``application/apply-patch+yaml`` when it holds a single named Experiment, so that the server parses the YAML
  and sees its duplicate keys.

A file is invalid for the server when kubectl's client side refuses it (a document it cannot parse, an object
without kind, a kind the server does not serve) or either request is refused. Its error field paths are read
from the answer: the causes of a 422 (``Invalid``), the fields a 400's strict decoding error names (``unknown
field "spec.x"``, ``duplicate field "x"``). Other refusals (a YAML error with a line number, a missing namespace)
give a verdict without paths. The comparison is ``compare.py``'s, with one difference that the server makes:
it stops at the first stage that fails (strict decoding, then validation, then storage), so our extra paths are
only counted when the server validated the whole object.

Plain ``http.client`` over TLS with the kubeconfig's admin certificate: the raw status and body of every answer
are what is compared, and a disagreement's report shows them.
"""

from __future__ import annotations

import base64
import http.client
import json
import re
import ssl
import tempfile
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from kubectl_testbench.load.positions import field_path
from kubectl_testbench.rules.metadata import METADATA_MANAGED_FIELDS_SET
from kubectl_testbench.rules.schema import SCHEMA_NULL_FIELD
from kubectl_testbench.rules.semantic import SEMANTIC_STATUS_IGNORED
from kubectl_testbench.validate.diagnostics import Severity
from kubectl_testbench.validate.engine import validate_bytes
from tests.oracle.compare import (
    DOCUMENT_LEVEL,
    NOT_CHECKED,
    Comparison,
    _oracle_only,
    allowed,
    normalise,
    ours_findings,
    ours_not_checked,
    without_deferred_cel,
)

GROUP = "testbench.agentic-layer.ai"
PLURAL = "experiments"
QUERY = "dryRun=All&fieldValidation=Strict"
FIELD_MANAGER = "kubectl-testbench-parity"
STRICT_FIELD = re.compile(r'(unknown|duplicate) field "((?:[^"\\]|\\.)*)"')
COMPOSITE = re.compile(r'^Invalid value: "": "(.+)" must validate ')


DRY_RUN_BLIND = {
    "metadata/resource-version": "a create with dryRun=All goes through DryRunnableStorage, which copies the "
    "object instead of calling etcd3's store, so the store's 'resourceVersion should not be set on objects to be "
    "created' is never reached; the oracle (tests/oracle) and a real create refuse the file.",
}
"""Our rules the dry-run server cannot judge, with the reason: they count as allow-listed here."""


@dataclass(frozen=True)
class Answer:
    way: str
    """``create`` or ``apply``."""
    status: int
    body: dict[str, Any]

    @property
    def exists(self) -> bool:
        """A create refused only because an object of that name is stored already (other tests of the session
        created the examples for real): the registry validates before it stores, so the object passed."""
        return self.way == "create" and self.status == 409 and self.body.get("reason") == "AlreadyExists"

    @property
    def refused(self) -> bool:
        return self.status >= 300 and not self.exists

    @property
    def validated(self) -> bool:
        """Did the server get as far as validating the whole object (accepted, or refused as Invalid)?"""
        return self.status < 300 or self.status == 422 or self.exists

    def findings(self) -> tuple[list[tuple[str, str]], bool]:
        """([(type, path)], paths comparable) of this answer."""
        if not self.refused:
            return [], True
        message = str(self.body.get("message", ""))
        if self.status == 422:
            causes = (self.body.get("details") or {}).get("causes") or []
            out = []
            for cause in causes:
                text, where = str(cause.get("message", "")), str(cause.get("field", ""))
                if "validation rules were not checked because the object was invalid" in text:
                    out.append(("CelNotChecked", NOT_CHECKED))
                    continue
                composite = COMPOSITE.match(text)
                if where in ("", "<nil>") and composite:
                    where = composite.group(1)
                out.append((str(cause.get("reason", "")), "" if where == "<nil>" else where))
            return out, bool(causes)
        found = STRICT_FIELD.findall(message) if self.status == 400 else []
        paths = [("FieldValueUnknown" if kind == "unknown" else "FieldValueDuplicate", path) for kind, path in found]
        return paths, bool(paths)

    def brief(self) -> str:
        return f"{self.way} {self.status} {json.dumps(self.body.get('message', ''))[:600]}"


class Server:
    """The API server of a kubeconfig (its first cluster and user, certificates inline), over one connection."""

    def __init__(self, kubeconfig: Path) -> None:
        config = yaml.safe_load(kubeconfig.read_text())
        cluster = config["clusters"][0]["cluster"]
        user = config["users"][0]["user"]
        url = urllib.parse.urlsplit(cluster["server"])
        self._dir = tempfile.TemporaryDirectory(prefix="kubectl-testbench-parity-")
        files = {}
        for name, key in (("ca.crt", "certificate-authority-data"), ("admin.crt", "client-certificate-data"),
                          ("admin.key", "client-key-data")):
            source = cluster if key.startswith("certificate-authority") else user
            files[name] = Path(self._dir.name) / name
            files[name].write_bytes(base64.b64decode(source[key]))
        context = ssl.create_default_context(cafile=str(files["ca.crt"]))
        context.load_cert_chain(str(files["admin.crt"]), str(files["admin.key"]))
        self._connect = lambda: http.client.HTTPSConnection(url.hostname or "127.0.0.1", url.port or 443,
                                                            context=context, timeout=60)
        self._conn = self._connect()
        self._namespaces: set[str] = set()

    def request(self, method: str, path: str, body: bytes, content_type: str) -> tuple[int, dict[str, Any]]:
        for attempt in (0, 1):
            try:
                self._conn.request(method, path, body=body, headers={"Content-Type": content_type,
                                                                     "Accept": "application/json"})
                response = self._conn.getresponse()
                data = response.read()
                break
            except (http.client.HTTPException, OSError):
                self._conn.close()
                self._conn = self._connect()
                if attempt:
                    raise
        try:
            decoded = json.loads(data) if data else {}
        except ValueError:
            decoded = {"message": data.decode("utf-8", "replace")}
        return response.status, decoded if isinstance(decoded, dict) else {"message": str(decoded)}

    def namespace(self, name: str) -> None:
        """Create the namespace an object names (for real: a dry-run create in a missing namespace is refused)."""
        if name in self._namespaces or not re.fullmatch(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?", name):
            return
        body = json.dumps({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}).encode()
        status, answer = self.request("POST", "/api/v1/namespaces", body, "application/json")
        assert status in (201, 409), answer
        self._namespaces.add(name)

    def create(self, body: bytes, namespace: str, version: str) -> Answer:
        self.namespace(namespace)
        path = f"/apis/{GROUP}/{version}/namespaces/{_q(namespace)}/{PLURAL}?{QUERY}"
        return Answer("create", *self.request("POST", path, body, "application/json"))

    def apply(self, text: bytes, namespace: str, name: str, version: str) -> Answer:
        self.namespace(namespace)
        path = (f"/apis/{GROUP}/{version}/namespaces/{_q(namespace)}/{PLURAL}/{_q(name)}?{QUERY}"
                f"&fieldManager={FIELD_MANAGER}&force=true")
        return Answer("apply", *self.request("PATCH", path, text, "application/apply-patch+yaml"))

    def close(self) -> None:
        self._conn.close()
        self._dir.cleanup()


def _q(segment: str) -> str:
    return urllib.parse.quote(segment, safe="")


@dataclass
class Judgement:
    """What the server said of one file, and how it compares with us."""

    comparison: Comparison
    answers: list[Answer] = field(default_factory=list)
    client_side: str = ""
    """Why kubectl's client side refuses the file without asking the server ("" when it sends it)."""

    def explain(self, data: bytes) -> str:
        said = "; ".join(a.brief() for a in self.answers) or "(nothing sent)"
        return f"{self.comparison.explain(data)}\n  server: {said}\n  client side: {self.client_side or '-'}"


def _target(obj: dict[str, Any]) -> tuple[str, str, str] | None:
    """(namespace, name, version) the object is sent to."""
    body = json.loads(obj["body"])
    meta = body.get("metadata") if isinstance(body.get("metadata"), dict) else {}
    namespace = meta.get("namespace") if isinstance(meta.get("namespace"), str) and meta.get("namespace") else "default"
    name = meta.get("name") if isinstance(meta.get("name"), str) else ""
    return namespace, name, obj["apiVersion"].partition("/")[2]


SERVER_DIFFERENCES = {
    "apply-refuses-null": "a server-side apply keeps an explicit null of a field that is not nullable and its "
    "validation refuses it (\"must be of type object: \\\"null\\\"\"), while a create prunes such nulls while "
    "decoding (PruneNonNullableNullsWithoutDefaults) and accepts the file. We follow the create for the verdict "
    "and warn at every such field (schema/null-field, with a fix that removes it): kubectl apply --server-side, "
    "Flux and Argo CD with ServerSideApply send the null and are refused. The class requires the warning at "
    "every path the server refuses (or an error of ours there: a required field's null is reported missing).",
    "create-replaces-managed-fields": "a create's field manager (FieldManager.UpdateNoErrors) replaces the "
    "request's metadata.managedFields before validation, so their content is never refused on create (nor does "
    "a manager name over 128 bytes keep the CEL rules from running); the oracle, which has no field manager, and "
    "we report an invalid entry (metadata/managed-fields).",
    "apply-parses-resource-version": "a server-side apply parses metadata.resourceVersion as a precondition and "
    "answers 500 (strconv.ParseUint) for one that is not a number, which a create ignores; we follow the create. "
    "Open: refuse every resourceVersion in a file meant for apply.",
    "apply-uid-precondition": "a server-side apply takes metadata.uid as a precondition and answers 409 (uid "
    "mismatch) when no such object exists, which a create wipes (WipeObjectMetaSystemFields); we follow the create. "
    "Open: warn of a uid in a file meant for apply.",
    "apply-refuses-managed-fields": "a server-side apply refuses any metadata.managedFields in the request (400 "
    "\"metadata.managedFields must be nil\"), which a create replaces with the server's record. We follow the "
    "create for the verdict and warn (metadata/managed-fields-set, with a fix that removes them); the class "
    "requires the warning.",
    "apply-types-status": "a server-side apply builds a typed patch of the whole object, status included, and "
    "answers 500 (\"failed to create typed patch object: .status...\") for a status of the wrong shape; a create "
    "drops status before validating. We follow the create and warn that status is ignored (semantic/status-ignored, "
    "with a fix that removes it); the class requires the warning.",
    "duplicate-key-unsent": "kubectl reads YAML with the lenient YAMLToJSON (the last value of a duplicate key "
    "wins) and a list or a stream cannot be server-side applied as it is, so no request shows the server the "
    "duplicate; we refuse it (yaml/duplicate-key), as the server does when the YAML itself is applied.",
}
"""Disagreements the real server shows and the oracle's create path does not, with their reasons: the test
counts them per class and fails on any other."""


def difference(judgement: Judgement) -> str | None:
    """The SERVER_DIFFERENCES class of a disagreement, or None (an unexplained disagreement)."""
    cmp = judgement.comparison
    create = [a for a in judgement.answers if a.way == "create"]
    apply = [a for a in judgement.answers if a.way == "apply"]
    if apply and apply[0].status == 422 and not cmp.extra_paths:
        causes = (apply[0].body.get("details") or {}).get("causes") or []
        nulls = {NOT_CHECKED} | {normalise(field_path(_segments(str(c.get("field", ""))))) for c in causes
                                 if '"null"' in str(c.get("message", ""))}
        said = cmp.warned_nulls | {normalise(p) for _, p in cmp.ours}  # warned, or an error there (required)
        if len(nulls) > 1 and cmp.missing_paths <= nulls and nulls - {NOT_CHECKED} <= said and (
                cmp.missing_paths or all(not a.refused for a in create)):
            return "apply-refuses-null"
    ours = {r for r, _ in cmp.ours}
    if (not cmp.missing_paths and "metadata/managed-fields" in ours
            and all(p.startswith("metadata.managedFields") or p == NOT_CHECKED for p in cmp.extra_paths)
            and (cmp.extra_paths or cmp.ours_invalid != cmp.oracle_invalid)):
        return "create-replaces-managed-fields"
    warned = cmp.warned_rules
    message = str(apply[0].body.get("message", "")) if apply else ""
    if (apply and apply[0].status == 400 and message == "metadata.managedFields must be nil"
            and METADATA_MANAGED_FIELDS_SET.id in warned):
        return "apply-refuses-managed-fields"
    if (apply and apply[0].status == 500 and "failed to create typed patch object" in message
            and ".status." in message and SEMANTIC_STATUS_IGNORED.id in warned):
        return "apply-types-status"
    if apply and apply[0].status == 500 and "ParseUint" in str(apply[0].body.get("message", "")):
        return "apply-parses-resource-version"
    if apply and apply[0].status == 409 and "uid mismatch" in str(apply[0].body.get("message", "")):
        return "apply-uid-precondition"
    duplicates = {normalise(p) for r, p in cmp.ours if r == "yaml/duplicate-key"}
    if not apply and not cmp.missing_paths and duplicates and (cmp.extra_paths <= duplicates) and (
            cmp.extra_paths or cmp.ours_invalid != cmp.oracle_invalid):
        return "duplicate-key-unsent"
    return None


def judge(server: Server, name: str, data: bytes, docs: list[dict[str, Any]]) -> Judgement:
    """Send the file both ways and compare the server's verdict and paths with ours."""
    answers: list[Answer] = []
    client_side = ""
    for doc in docs:
        if doc.get("parse_error"):
            client_side = client_side or f"document {doc['index']}: {doc['parse_error']}"
            continue
        for obj in doc.get("objects") or ():
            if obj["class"] == "rejected" and not _oracle_only(obj):
                client_side = client_side or f"{obj['errors'][0]['type']}: {obj['errors'][0]['detail']}"
            elif obj["class"] == "experiment":
                namespace, _, version = _target(obj)
                answers.append(server.create(obj["body"].encode(), namespace, version))
    single = [o for d in docs for o in d.get("objects") or () if not d.get("parse_error")]
    if (len(docs) == 1 and not docs[0].get("json") and len(single) == 1 and single[0]["class"] == "experiment"
            and not client_side and _is_utf8(data)):  # JSON files reach the server as kubectl re-encodes them
        namespace, object_name, version = _target(single[0])
        if object_name and not docs[0].get("list"):  # a List cannot be applied: "invalid object type"
            answers.append(server.apply(data, namespace, object_name, version))
    return Judgement(_compare(name, data, answers, client_side), answers, client_side)


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return not data.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff"))


def _compare(name: str, data: bytes, answers: list[Answer], client_side: str) -> Comparison:
    result = validate_bytes(data, name)
    ours = [(r, p) for r, p in ours_findings(result) if r not in DRY_RUN_BLIND]
    strict_ours = [(r, p) for r, p in ours if not allowed(r)]
    server_invalid = bool(client_side) or any(a.refused for a in answers)
    found: list[tuple[str, str]] = []
    comparable = not client_side
    for answer in answers:
        paths, ok = answer.findings()
        found.extend(paths)
        comparable = comparable and (ok or not answer.refused)
    server_paths = {normalise(field_path(_segments(p))) if p != NOT_CHECKED else p for _, p in found}
    ours = without_deferred_cel(ours, server_paths)
    strict_ours = without_deferred_cel(strict_ours, server_paths)
    ours_all = {normalise(p) for r, p in ours if r not in DOCUMENT_LEVEL}
    ours_strict = {normalise(p) for r, p in strict_ours if r not in DOCUMENT_LEVEL}
    if ours_not_checked(result):
        ours_all.add(NOT_CHECKED)
        ours_strict.add(NOT_CHECKED)
    cmp = Comparison(name, bool(ours) if server_invalid else bool(strict_ours), server_invalid, ours=ours,
                     oracle=found, warned_nulls={normalise(d.path) for d in result.diagnostics
                                                 if d.rule == SCHEMA_NULL_FIELD.id},
                     warned_rules={d.rule for d in result.diagnostics if d.severity is Severity.WARNING})
    if comparable:
        cmp.missing_paths = server_paths - ours_all
        if all(a.validated for a in answers):
            cmp.extra_paths = ours_strict - server_paths
    cmp.allowed_only = bool(ours) and not server_invalid and not strict_ours
    return cmp


_SEGMENT = re.compile(r"\[(\d+)\]|\.?([^.\[]+)|\[([^\]]*)\]")


def _segments(text: str) -> list[Any]:
    """The server's field text ("spec.env[0].name") as path segments, for our path syntax."""
    out: list[Any] = []
    for index, key, bracketed in _SEGMENT.findall(text):
        out.append(int(index) if index else key or bracketed)
    return out

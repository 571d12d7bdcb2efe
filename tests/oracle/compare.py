"""Compare our verdict and field paths with the oracle's, for one input file, under the allow-list."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from kubectl_testbench.load.positions import field_path
from kubectl_testbench.validate.diagnostics import Severity
from kubectl_testbench.validate.engine import FileResult, validate_bytes

ALLOWLIST: dict[str, Any] = yaml.safe_load((Path(__file__).parent / "allowlist.yaml").read_text())
ALLOWED = [entry["rule"] for entry in ALLOWLIST["rules"]]
METADATA_DEPTH: int = ALLOWLIST["metadata_depth"]

DOCUMENT_LEVEL = frozenset({
    "input/not-found", "input/unreadable", "input/not-a-file", "input/too-large", "input/binary",
    "input/encoding", "input/empty", "yaml/syntax", "yaml/document-separator", "yaml/not-an-object",
    "yaml/key-type", "yaml/merge", "yaml/tag", "yaml/alias", "yaml/alias-limit", "yaml/too-deep",
    "yaml/too-many-nodes", "yaml/non-finite", "kind/api-version", "kind/group", "kind/missing",
})
"""Findings about a whole document (it cannot be read, or is not an object the CRD serves): no field path."""


NOT_CHECKED = "(CEL rules not checked)"
"""Where the server's "some validation rules were not checked because the object was invalid" stands (its path
is the object's root) and where our cel/not-evaluated notes for the same reason are compared."""
_NOT_CHECKED_TEXT = "validation rules were not checked because the object was invalid"


def allowed(rule: str) -> bool:
    return any(fnmatch.fnmatchcase(rule, pattern) for pattern in ALLOWED)


def normalise(path: str) -> str:
    """A field path as compared: inside metadata, only the ObjectMeta field (see allowlist.yaml)."""
    if path.startswith("metadata.") or path.startswith("metadata["):
        parts = path.replace("[", ".[").split(".")
        return ".".join(p for p in parts[:METADATA_DEPTH] if not p.startswith("["))
    return path


@dataclass
class Comparison:
    name: str
    ours_invalid: bool
    oracle_invalid: bool
    missing_paths: set[str] = field(default_factory=set)
    """Errors the oracle reports that we do not (false negatives at a path)."""
    extra_paths: set[str] = field(default_factory=set)
    """Errors we report (not allow-listed) that the oracle does not (false positives at a path)."""
    allowed_only: bool = False
    """We agree only thanks to allow-listed rules."""
    ours: list[tuple[str, str]] = field(default_factory=list)
    oracle: list[tuple[str, str]] = field(default_factory=list)
    warned_nulls: set[str] = field(default_factory=set)
    """Where we warn that a null is refused under a server-side apply (schema/null-field)."""
    warned_rules: set[str] = field(default_factory=set)
    """The rules of our warnings (the known server differences require some of them)."""

    @property
    def agrees(self) -> bool:
        return self.ours_invalid == self.oracle_invalid and not self.missing_paths and not self.extra_paths

    def explain(self, data: bytes) -> str:
        text = data.decode("utf-8", "replace")
        if len(text) > 1500:
            text = text[:1500] + "\n..."
        return (f"{self.name}: ours invalid={self.ours_invalid} {self.ours}\n"
                f"  oracle invalid={self.oracle_invalid} {self.oracle}\n"
                f"  missing={sorted(self.missing_paths)} extra={sorted(self.extra_paths)}\n---\n{text}\n---")


def oracle_findings(docs: list[dict[str, Any]]) -> tuple[bool, list[tuple[str, str]], bool]:
    """(invalid, [(type, path)], paths comparable) from the oracle's answer for one file."""
    invalid = False
    comparable = True
    found: list[tuple[str, str]] = []
    for doc in docs:
        if doc.get("parse_error"):
            invalid, comparable = True, False
            found.append(("ParseError", ""))
            continue
        objects = doc.get("objects") or []
        for dup in doc.get("duplicates") or ():
            if _in_foreign_object(dup["path"], objects):
                continue  # we validate Experiments only; other objects are skipped whole
            invalid = True
            found.append((dup["type"], field_path(_in_item(dup["path"]))))
        for obj in doc.get("objects") or ():
            if obj["class"] == "rejected" and _oracle_only(obj):
                found.append(("allowed:" + obj["errors"][0]["type"], ""))
                continue
            if obj["class"] == "rejected":
                invalid, comparable = True, False
                found.append((obj["errors"][0]["type"], ""))
                continue
            for err in obj["errors"]:
                invalid = True
                if err["type"] == "Decode":
                    comparable = False
                if _NOT_CHECKED_TEXT in err["detail"]:
                    found.append(("CelNotChecked", NOT_CHECKED))
                    continue
                found.append((err["type"], field_path(err["path"])))
    return invalid, found, comparable


def _in_item(path: list[Any]) -> list[Any]:
    """A path inside a list document, relative to its item (as we report findings per object)."""
    while len(path) >= 2 and path[0] == "items" and isinstance(path[1], int):
        path = path[2:]
    return path


def _in_foreign_object(path: list[Any], objects: list[dict[str, Any]]) -> bool:
    if len(path) >= 2 and path[0] == "items" and isinstance(path[1], int):
        return path[1] < len(objects) and objects[path[1]]["class"] != "experiment"
    return len(objects) == 1 and objects[0]["class"] != "experiment"


def _oracle_only(obj: dict[str, Any]) -> bool:
    """An oracle rejection the allow-list's ``oracle_only`` section lets us skip."""
    for entry in ALLOWLIST.get("oracle_only", ()):
        if obj["errors"][0]["type"] == entry["type"] and entry["when"] == "no-apiVersion" and not obj["apiVersion"]:
            return True
    return False


def ours_findings(result: FileResult) -> list[tuple[str, str]]:
    return [(d.rule, d.path) for d in result.diagnostics if d.severity is Severity.ERROR]


def without_deferred_cel(ours: list[tuple[str, str]], reported: set[str]) -> list[tuple[str, str]]:
    """``ours`` without the CEL findings the server defers: where it says its rules were not checked (an error
    blocked them), we still run those whose field is intact (issue 33, every finding in one pass) and the server
    reports them once the blocking errors are fixed. In a stream another object may have had its rules run: a CEL
    finding at a path the server reports stays."""
    if NOT_CHECKED not in reported:
        return ours
    return [(r, p) for r, p in ours if not r.startswith("cel/") or normalise(p) in reported]


def ours_not_checked(result: FileResult) -> bool:
    """Did we say that CEL rules were not checked because of blocking errors (a note, as the server's is no
    verdict of its own: it only follows other errors)?"""
    return any(d.rule == "cel/not-evaluated" and "not checked because the object was invalid" in d.message
               for d in result.diagnostics)


def compare(name: str, data: bytes, docs: list[dict[str, Any]], result: FileResult | None = None) -> Comparison:
    """Our verdict and paths against the oracle's answer ``docs`` for the file ``data``."""
    if result is None:
        result = validate_bytes(data, name)
    ours = ours_findings(result)
    oracle_invalid, oracle, comparable = oracle_findings(docs)
    ours = without_deferred_cel(ours, {normalise(p) if p != NOT_CHECKED else p for _, p in oracle})
    strict_ours = [(r, p) for r, p in ours if not allowed(r)]
    oracle_paths = {normalise(p) for t, p in oracle if not t.startswith("allowed:")}
    ours_paths_all = {normalise(p) for r, p in ours if r not in DOCUMENT_LEVEL}
    ours_paths_strict = {normalise(p) for r, p in strict_ours if r not in DOCUMENT_LEVEL}
    if ours_not_checked(result):
        ours_paths_all.add(NOT_CHECKED)
        ours_paths_strict.add(NOT_CHECKED)
    ours_invalid = bool(ours) if oracle_invalid else bool(strict_ours)
    cmp = Comparison(name, ours_invalid, oracle_invalid, ours=ours, oracle=oracle)
    if comparable:
        cmp.missing_paths = oracle_paths - ours_paths_all
        cmp.extra_paths = ours_paths_strict - oracle_paths
    cmp.allowed_only = (bool(ours) and not oracle_invalid and not strict_ours) or any(
        t.startswith("allowed:") for t, _ in oracle)
    return cmp

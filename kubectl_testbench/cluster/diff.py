"""Live objects against what ``apply`` would make of them, as unified diffs with kubectl diff's headers.

By default the "after" side is the API server's own answer to a server-side apply with ``dryRun=All``:
defaults, admission webhooks and fields owned by others are all accounted for, exactly as
``kubectl diff --server-side`` does it. ``local`` mode needs no write permission: it compares only the
fields we set (the live object projected onto the shape of ours), with no request but GETs.

Both sides drop what the server maintains on its own (managedFields, resourceVersion, uid,
creationTimestamp, generation, status), and map keys are sorted as kubectl prints them.
"""

from __future__ import annotations

import copy
import difflib
from dataclasses import dataclass
from typing import Any

from kubectl_testbench.cluster.apply import FIELD_MANAGER
from kubectl_testbench.cluster.client import Client
from kubectl_testbench.cluster.resources import Ref
from kubectl_testbench.emit.order import sorted_keys
from kubectl_testbench.emit.yamlout import dump

SERVER_METADATA = ("managedFields", "resourceVersion", "uid", "creationTimestamp", "generation", "selfLink")


@dataclass(frozen=True, slots=True)
class ObjectDiff:
    ref: Ref
    change: str
    """``create``, ``update``, ``delete`` or ``none``."""
    text: str
    """The unified diff with its ``diff -u -N`` header; empty when nothing changes."""


def normalize(obj: dict[str, Any] | None) -> dict[str, Any] | None:
    """Drop server-maintained fields and sort keys, so that only intent shows in a diff."""
    if obj is None:
        return None
    out = copy.deepcopy(obj)
    out.pop("status", None)
    meta = out.get("metadata")
    if isinstance(meta, dict):
        for key in SERVER_METADATA:
            meta.pop(key, None)
        if meta.get("annotations") == {}:
            meta.pop("annotations")
    result: dict[str, Any] = sorted_keys(out)
    return result


def project(live: Any, ours: Any) -> Any:
    """The part of ``live`` at the keys ``ours`` sets (maps recursively; lists and scalars whole)."""
    if isinstance(ours, dict) and isinstance(live, dict):
        return {k: project(live[k], v) for k, v in ours.items() if k in live}
    return live


def file_name(ref: Ref) -> str:
    """kubectl diff's per-object file name: ``group.version.Kind.namespace.name``."""
    return f"{ref.kind.file_id}.{ref.namespace}.{ref.name}"


def kubectl_order(diffs: list[ObjectDiff]) -> list[ObjectDiff]:
    """Diffs in the order ``kubectl diff`` prints them: it writes every object to a file named :func:`file_name` in
    two directories and runs ``diff -u -N`` on the directories, which goes through the files sorted by name (byte
    order, as under ``LC_ALL=C``), whatever the order of the input."""
    return sorted(diffs, key=lambda d: file_name(d.ref).encode())


def unified(ref: Ref, before: dict[str, Any] | None, after: dict[str, Any] | None) -> str:
    """``diff -u -N LIVE/<file> MERGED/<file>`` output for one object (empty when equal)."""
    a = dump(before).splitlines(keepends=True) if before is not None else []
    b = dump(after).splitlines(keepends=True) if after is not None else []
    if a == b:
        return ""
    name = file_name(ref)
    body = "".join(difflib.unified_diff(a, b, f"LIVE/{name}", f"MERGED/{name}"))
    return f"diff -u -N LIVE/{name} MERGED/{name}\n{body}"


def diff_object(client: Client, obj: dict[str, Any], *, force: bool = False, local: bool = False) -> ObjectDiff:
    """One rendered object against the cluster."""
    ref = Ref.of(obj)
    live = client.get(ref)
    if local:
        after = normalize(obj)
        before = normalize(project(live, obj)) if live is not None else None
    else:
        merged = client.apply(obj, field_manager=FIELD_MANAGER, force=force, dry_run=True)
        before, after = normalize(live), normalize(merged)
    text = unified(ref, before, after)
    change = "none" if not text else ("create" if live is None else "update")
    return ObjectDiff(ref, change, text)


def diff_deletion(ref: Ref, live: dict[str, Any]) -> ObjectDiff:
    """What pruning ``live`` would look like."""
    return ObjectDiff(ref, "delete", unified(ref, normalize(live), None))

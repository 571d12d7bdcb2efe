"""Find and delete what we applied earlier and no longer generate, and nothing else.

Safety rules, each enforced here on every object the server lists, rather than trusted to the server:

- only the kinds we create (TestTrigger, TestWorkflow, ConfigMap), only in the Testkube namespaces
  the input renders into (plus the one given on the command line): the DELETE goes to the kind and
  namespace we listed, never to what an object claims, and an object that claims another namespace (or
  kind), or whose name is not a Kubernetes name (``..``), is skipped with a warning;
- listed with the label selector ``app.kubernetes.io/managed-by=kubectl-testbench`` (optionally also
  ``testbench.agentic-layer.ai/experiment-namespace=<ns>``), and every listed object's labels are
  checked again, so an object without our label is never deleted even if a server ignored the selector;
- deleted with a ``uid`` precondition, so an object re-created by someone else meanwhile survives.

An object is stale when it is not among the objects just rendered: either its Experiment is gone
from the input, or the Experiment no longer produces it (e.g. its trigger was disabled).
Experiments themselves are never pruned: they are the user's objects, not ours.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from kubectl_testbench.cluster.client import Client
from kubectl_testbench.cluster.resources import CONFIGMAP, TESTTRIGGER, TESTWORKFLOW, Kind, Ref, mapping, text
from kubectl_testbench.k8snames import dns1123_subdomain_error
from kubectl_testbench.model import naming

PRUNE_KINDS: tuple[Kind, ...] = (TESTTRIGGER, TESTWORKFLOW, CONFIGMAP)
"""Reverse dependency order: nothing is left pointing at an object that is already gone."""

REASON_REMOVED = "its Experiment is no longer in the input"
REASON_UNUSED = "its Experiment no longer generates it"


@dataclass(frozen=True, slots=True)
class Stale:
    ref: Ref
    uid: str
    experiment: tuple[str, str]
    """(namespace, name) of the Experiment the object was generated for."""
    reason: str
    live: dict[str, Any]


def owned(obj: dict[str, Any]) -> bool:
    """Carries our management label and names its Experiment: the only objects prune may delete."""
    labels = mapping(mapping(obj.get("metadata")).get("labels"))
    return labels.get(naming.K8S_MANAGED_BY) == naming.MANAGER and bool(labels.get(naming.LABEL_NAME))


def experiments_of(objects: Iterable[dict[str, Any]]) -> set[tuple[str, str]]:
    """(namespace, name) of the Experiments behind rendered objects, from their labels."""
    out = set()
    for obj in objects:
        labels = (obj.get("metadata") or {}).get("labels") or {}
        if naming.LABEL_NAME in labels:
            out.add((str(labels.get(naming.LABEL_NAMESPACE, "")), str(labels[naming.LABEL_NAME])))
        elif obj.get("kind") == "Experiment":
            meta = obj.get("metadata") or {}
            out.add((str(meta.get("namespace", "")), str(meta.get("name", ""))))
    return out


def find_stale(client: Client, rendered: list[dict[str, Any]], namespaces: Iterable[str], *,
               experiment_namespace: str | None = None,
               warn: Callable[[str], None] = lambda message: None) -> list[Stale]:
    """Objects in scope that carry our labels but are not among ``rendered``, in deletion order.

    ``warn`` hears about each listed object that breaks the rules in the module docstring (and is skipped).
    """
    keep = {Ref.of(o) for o in rendered}
    present = experiments_of(rendered)
    selector = naming.selector(namespace=experiment_namespace)
    stale: list[Stale] = []
    for kind in PRUNE_KINDS:
        if not client.served(kind):
            continue  # nothing of this kind can exist
        for namespace in sorted(set(namespaces)):
            for item in client.list(kind, namespace, selector):
                ref = _in_scope(item, kind, namespace, warn)
                if ref is None or ref in keep:
                    continue
                labels = mapping(mapping(item.get("metadata")).get("labels"))
                experiment = (text(labels.get(naming.LABEL_NAMESPACE)), text(labels.get(naming.LABEL_NAME)))
                if experiment_namespace is not None and experiment[0] != experiment_namespace:
                    continue
                reason = REASON_UNUSED if experiment in present else REASON_REMOVED
                uid = text(mapping(item.get("metadata")).get("uid"))
                stale.append(Stale(ref, uid, experiment, reason, item))
    return stale


def _in_scope(item: dict[str, Any], kind: Kind, namespace: str, warn: Callable[[str], None]) -> Ref | None:
    """The object's identity when prune may delete it: ours, not being deleted, of the kind and in the namespace
    we listed, with a valid name; else None (with a warning when the server listed what it should not have)."""
    meta = mapping(item.get("metadata"))
    if not owned(item) or meta.get("deletionTimestamp"):
        return None  # not ours (a server may ignore the selector), or already on its way out
    claimed = (text(item.get("apiVersion") or kind.api_version), text(item.get("kind") or kind.kind))
    name, where = text(meta.get("name")), text(meta.get("namespace"))
    if claimed != (kind.api_version, kind.kind):
        warn(f'the API server listed a {claimed[1]} ({claimed[0]}) among {kind.resource} in namespace "{namespace}": '
             "not pruned")
    elif not isinstance(meta.get("name"), str) or dns1123_subdomain_error(name):
        warn(f'the API server listed a {kind.display} named "{name}" in namespace "{namespace}", which is not a '
             "valid name: not pruned")
    elif where != namespace:
        warn(f'the API server listed {kind.display}/{name} in namespace "{where}" when asked for namespace '
             f'"{namespace}": not pruned')
    else:
        return Ref(kind, namespace, name)
    return None


def delete_stale(client: Client, item: Stale, *, dry_run: bool = False) -> bool:
    """Delete one stale object (uid precondition); False when it was already gone."""
    return client.delete(item.ref, uid=item.uid or None, dry_run=dry_run)


def prune_namespaces(rendered: Iterable[dict[str, Any]], extra: str) -> list[str]:
    """The Testkube namespaces prune looks in: where the input renders to, plus the flag/default one."""
    namespaces = {str((o.get("metadata") or {}).get("namespace")) for o in rendered
                  if o.get("kind") in ("ConfigMap", "TestWorkflow", "TestTrigger")}
    namespaces.add(extra)
    return sorted(n for n in namespaces if n and n != "None")

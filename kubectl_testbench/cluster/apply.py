"""Server-side apply of rendered objects, in dependency order, reporting exactly what got applied.

Order: dataset ConfigMap → TestWorkflow (mounts the ConfigMap) → TestTrigger (runs the workflow) →
Experiment (with ``--include-experiment``). The Experiment goes last so that an operator watching it
finds its parts already in place, and so that a cluster without the Experiment CRD still receives
everything else when the CRD check is skipped. Every kind is checked with discovery before the first
write, so a missing Testkube fails before anything changes.

Server-side apply is idempotent: after a failure half-way, running the same command again is safe.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from kubectl_testbench.cluster.client import Client, unique
from kubectl_testbench.cluster.errors import ClusterError
from kubectl_testbench.cluster.resources import Kind, Ref, kind_of
from kubectl_testbench.model.naming import MANAGER

FIELD_MANAGER = MANAGER
APPLY_ORDER = ("ConfigMap", "TestWorkflow", "TestTrigger", "Experiment")


def apply_order(objects: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Objects sorted for applying: by kind in :data:`APPLY_ORDER`, then namespace, then name."""
    def key(obj: dict[str, Any]) -> tuple[int, str, str]:
        kind = str(obj.get("kind", ""))
        meta = obj.get("metadata") or {}
        rank = APPLY_ORDER.index(kind) if kind in APPLY_ORDER else len(APPLY_ORDER)
        return rank, str(meta.get("namespace", "")), str(meta.get("name", ""))

    return sorted(objects, key=key)


def kinds_of(objects: Iterable[dict[str, Any]]) -> list[Kind]:
    return unique(kind_of(o) for o in objects)


def preflight(client: Client, kinds: Iterable[Kind]) -> None:
    """Fail before the first write when the cluster does not serve a kind we are about to apply."""
    for kind in kinds:
        client.ensure_served(kind)


@dataclass(frozen=True, slots=True)
class Applied:
    ref: Ref
    result: dict[str, Any]
    """The object as the API server returned it (the merged result under ``dryRun=All``)."""


class ApplyError(ClusterError):
    """A write failed part-way: what was applied before it, which object failed, what was not tried."""

    def __init__(self, cause: ClusterError, applied: list[Ref], failed: Ref, pending: list[Ref]) -> None:
        super().__init__(cause.message)
        self.cause = cause
        self.applied = applied
        self.failed = failed
        self.pending = pending


def apply_objects(client: Client, objects: list[dict[str, Any]], *, force: bool = False,
                  dry_run: bool = False) -> Iterator[Applied]:
    """Apply each object (already in :func:`apply_order`); yield as each one lands.

    On the first failure raise :class:`ApplyError`, which says what was and was not applied.
    """
    done: list[Ref] = []
    for index, obj in enumerate(objects):
        ref = Ref.of(obj)
        try:
            result = client.apply(obj, field_manager=FIELD_MANAGER, force=force, dry_run=dry_run)
        except ClusterError as err:
            raise ApplyError(err, list(done), ref, [Ref.of(o) for o in objects[index + 1:]]) from None
        done.append(ref)
        yield Applied(ref, result)

"""Deterministic order: objects in the order ``kubectl apply -f`` needs, then namespace, then name; keys sorted."""

from __future__ import annotations

from typing import Any

KIND_ORDER = (
    "Namespace", "CustomResourceDefinition", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role",
    "RoleBinding", "Service", "ConfigMap", "Deployment", "TestWorkflowTemplate", "Experiment", "TestWorkflow",
    "TestTrigger",
)
_RANK = {kind: i for i, kind in enumerate(KIND_ORDER)}


def sort_key(obj: dict[str, Any]) -> tuple[int, str, str, str]:
    meta = obj.get("metadata") or {}
    kind = str(obj.get("kind", ""))
    return (_RANK.get(kind, len(KIND_ORDER)), kind, str(meta.get("namespace", "")), str(meta.get("name", "")))


def file_name(obj: dict[str, Any], extension: str = "yaml") -> str:
    """``<kind>_<namespace>_<name>.yaml``: unique, because ``_`` cannot occur in Kubernetes names."""
    meta = obj.get("metadata") or {}
    parts = [str(obj.get("kind", "object")).lower()]
    if meta.get("namespace"):
        parts.append(str(meta["namespace"]))
    parts.append(str(meta.get("name", "unnamed")))
    return "_".join(parts) + "." + extension


def sorted_keys(value: Any) -> Any:
    """``value`` with the keys of every mapping sorted, at every depth (lists keep their order).

    The one spelling of three orders that happen to be the same: how controller-gen writes a CRD, how the API
    server stores a raw (preserve-unknown-fields) value, and how kubectl diff prints an object."""
    if isinstance(value, dict):
        return {key: sorted_keys(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [sorted_keys(item) for item in value]
    return value

"""Names and labels of generated resources, exactly as the upstream operator derives them."""

from __future__ import annotations

MAX_NAME = 253
SUFFIX_DATASET = "experiment"
SUFFIX_WORKFLOW = "workflow"
SUFFIX_TRIGGER = "trigger"

LABEL_PREFIX = "testbench.agentic-layer.ai"
LABEL_NAME = f"{LABEL_PREFIX}/experiment-name"
LABEL_NAMESPACE = f"{LABEL_PREFIX}/experiment-namespace"
LABEL_MANAGED_BY = f"{LABEL_PREFIX}/managed-by"
LABEL_RESOURCE_TYPE = f"{LABEL_PREFIX}/resource-type"
K8S_MANAGED_BY = "app.kubernetes.io/managed-by"
MANAGER = "kubectl-testbench"
OPERATOR_MANAGER = "experiment-controller"
"""The operator's value of testbench.agentic-layer.ai/managed-by, kept for parity (selectors key on it)."""

RESOURCE_DATASET = "dataset"
RESOURCE_WORKFLOW = "workflow"
RESOURCE_TRIGGER = "trigger"


def resource_name(name: str, namespace: str, suffix: str) -> str:
    """``<name>-<namespace>-<suffix>``; above 253 characters the base is cut and an 8-hex hash added."""
    base = f"{name}-{namespace}"
    full = f"{base}-{suffix}"
    if len(full) <= MAX_NAME:
        return full
    import hashlib  # only names over 253 characters need it; loading OpenSSL costs validate's start-up

    digest = hashlib.sha256(base.encode()).hexdigest()[:8]
    keep = max(MAX_NAME - len(suffix) - len(digest) - 2, 0)
    return f"{base[:keep]}-{digest}-{suffix}"


def labels(name: str, namespace: str, resource_type: str) -> dict[str, str]:
    """Labels on every generated object: the operator's four, values unchanged, plus
    ``app.kubernetes.io/managed-by: kubectl-testbench``, which marks what prune may delete."""
    return {
        K8S_MANAGED_BY: MANAGER,
        LABEL_NAME: name,
        LABEL_NAMESPACE: namespace,
        LABEL_MANAGED_BY: OPERATOR_MANAGER,
        LABEL_RESOURCE_TYPE: resource_type,
    }


def selector(name: str | None = None, namespace: str | None = None) -> str:
    """Label selector for what we generated, optionally for one Experiment."""
    parts = [f"{K8S_MANAGED_BY}={MANAGER}"]
    if name is not None:
        parts.append(f"{LABEL_NAME}={name}")
    if namespace is not None:
        parts.append(f"{LABEL_NAMESPACE}={namespace}")
    return ",".join(parts)

"""Recognise objects that ``render`` wrote earlier, so ``apply``, ``diff`` and ``prune`` take them as input.

A GitOps repository often commits the rendered directory next to (or instead of) the Experiments.
Those files are ours when they carry ``app.kubernetes.io/managed-by: kubectl-testbench`` and are one of
the kinds we generate; anything else (a kustomization, a hand-written ConfigMap) is not ours to send
and is skipped as before. Only these objects are passed through: prune's label checks keep working
because the labels are the ones render wrote.
"""

from __future__ import annotations

from typing import Any

from kubectl_testbench.model.naming import K8S_MANAGED_BY, MANAGER
from kubectl_testbench.render.compiled_objects import TESTTRIGGER_API, TESTWORKFLOW_API

GENERATED_KINDS = {("v1", "ConfigMap"), (TESTWORKFLOW_API, "TestWorkflow"), (TESTTRIGGER_API, "TestTrigger")}
"""(apiVersion, kind) of the objects render generates for an Experiment."""


def is_rendered(data: dict[str, Any]) -> bool:
    """A kind render generates, labelled as managed by kubectl-testbench."""
    if (data.get("apiVersion"), data.get("kind")) not in GENERATED_KINDS:
        return False
    meta = data.get("metadata")
    labels = meta.get("labels") if isinstance(meta, dict) else None
    return isinstance(labels, dict) and labels.get(K8S_MANAGED_BY) == MANAGER


def manifest_problem(data: dict[str, Any]) -> str | None:
    """Why a rendered object cannot be applied as it is (render always writes both), or None."""
    meta = data["metadata"]
    for key in ("name", "namespace"):
        value = meta.get(key)
        if not isinstance(value, str) or not value:
            return (f"{data['kind']} labelled {K8S_MANAGED_BY}={MANAGER} has no metadata.{key}: it was not "
                    "written by kubectl testbench render, or was edited since")
    return None

"""Resolve every TestWorkflow among rendered objects (what ``render --resolve`` prints)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kubectl_testbench.render.resolve.model import ExecutionContext, ResolvedWorkflow
from kubectl_testbench.render.resolve.sources import configmaps_in, installed_templates
from kubectl_testbench.render.resolve.workflow import ResolveError, resolve_workflow


@dataclass(slots=True)
class Resolved:
    workflows: list[ResolvedWorkflow] = field(default_factory=list)
    failures: list[tuple[dict[str, Any], ResolveError]] = field(default_factory=list)
    """(the TestWorkflow, why it does not resolve)."""


def resolve_objects(objects: Iterable[dict[str, Any]], templates: Mapping[str, dict[str, Any]] | None = None,
                    execution: ExecutionContext | None = None) -> Resolved:
    """Each TestWorkflow in ``objects`` resolved against ``templates`` (default: the ones ``install`` ships, in
    the workflow's namespace), with the ConfigMaps among ``objects`` for mounted files."""
    objects = list(objects)
    configmaps = configmaps_in(objects)
    out = Resolved()
    for obj in objects:
        if obj.get("kind") != "TestWorkflow":
            continue
        namespace = str((obj.get("metadata") or {}).get("namespace", ""))
        available = templates if templates is not None else installed_templates(namespace)
        try:
            out.workflows.append(resolve_workflow(obj, available, execution=execution, configmaps=configmaps))
        except ResolveError as err:
            out.failures.append((obj, err))
    return out

"""Compose the render steps for one Experiment: settings, objects, GitOps annotations. Pure."""

from __future__ import annotations

import copy
import json
from typing import Any

from kubectl_testbench.render.compiled_objects import dataset_configmap, test_trigger, test_workflow
from kubectl_testbench.render.settings import Defaults, Flags, resolve

FLUX_SUBSTITUTE = "kustomize.toolkit.fluxcd.io/substitute"


def render_experiment(experiment: dict[str, Any], flags: Flags,
                      defaults: Defaults | None = None) -> list[dict[str, Any]]:
    """The manifests for one valid Experiment (ConfigMap, TestWorkflow, TestTrigger as applicable)."""
    settings = resolve(experiment, flags, defaults)
    objects = [dataset_configmap(experiment, settings), test_workflow(experiment, settings),
               test_trigger(experiment, settings)]
    out = [o for o in objects if o is not None]
    if flags.include_experiment:
        out.append(experiment_as_applied(experiment, settings.namespace))
    for obj in out:
        mark_flux_substitution(obj)
    return out


def experiment_as_applied(experiment: dict[str, Any], namespace: str) -> dict[str, Any]:
    """The Experiment itself, as the API server would store it: namespace set, no status."""
    exp = copy.deepcopy(experiment)
    exp.pop("status", None)
    exp["metadata"]["namespace"] = namespace
    ordered = {"apiVersion": exp.pop("apiVersion"), "kind": exp.pop("kind"), "metadata": exp.pop("metadata")}
    ordered.update(exp)
    return ordered


def mark_flux_substitution(obj: dict[str, Any]) -> None:
    """Flux post-build substitution would rewrite ``${VAR}`` in our text; opt such objects out."""
    if "${" in json.dumps(obj, ensure_ascii=False):
        obj["metadata"].setdefault("annotations", {})[FLUX_SUBSTITUTE] = "disabled"

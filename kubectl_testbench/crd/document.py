"""The Experiment CustomResourceDefinition document, generated from the models."""

from __future__ import annotations

from typing import Any

from kubectl_testbench.crd.openapi import Schema, model_schema
from kubectl_testbench.emit.order import sorted_keys
from kubectl_testbench.model import constants as names
from kubectl_testbench.model import experiment as exp

_API_VERSION_DOC = exp.Experiment.model_fields["api_version"].description
_KIND_DOC = exp.Experiment.model_fields["kind"].description

PRINTER_COLUMNS: list[dict[str, str]] = [
    {"jsonPath": ".spec.agentRef.name", "name": "Agent", "type": "string"},
    {"jsonPath": '.status.conditions[?(@.type=="Ready")].status', "name": "Status", "type": "string"},
    {"jsonPath": ".metadata.creationTimestamp", "name": "Age", "type": "date"},
]


def experiment_open_api_schema() -> Schema:
    """``openAPIV3Schema`` of the Experiment: apiVersion, kind, free metadata, spec and status."""
    spec = model_schema(exp.ExperimentSpec)
    status = model_schema(exp.ExperimentStatus)
    return {
        "description": (exp.Experiment.__doc__ or "").strip(),
        "properties": {
            "apiVersion": {"description": _API_VERSION_DOC, "type": "string"},
            "kind": {"description": _KIND_DOC, "type": "string"},
            "metadata": {"type": "object"},
            "spec": spec,
            "status": status,
        },
        "type": "object",
    }


def experiment_crd() -> dict[str, Any]:
    """The full CRD, in the shape and key order controller-gen writes."""
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {
            "annotations": {"testbench.agentic-layer.ai/generated-by": "kubectl-testbench"},
            "name": f"{names.PLURAL}.{names.GROUP}",
        },
        "spec": {
            "group": names.GROUP,
            "names": {
                "kind": names.KIND,
                "listKind": f"{names.KIND}List",
                "plural": names.PLURAL,
                "shortNames": list(names.SHORT_NAMES),
                "singular": names.SINGULAR,
            },
            "scope": "Namespaced",
            "versions": [
                {
                    "additionalPrinterColumns": PRINTER_COLUMNS,
                    "name": names.VERSION,
                    "schema": {"openAPIV3Schema": experiment_open_api_schema()},
                    "served": True,
                    "storage": True,
                    "subresources": {"status": {}},
                }
            ],
        },
    }


def crd_document() -> dict[str, Any]:
    """The CRD as ``kubectl testbench crd`` prints it, ``install`` ships it and ``schemas/`` holds it."""
    doc: dict[str, Any] = sorted_keys(experiment_crd())
    return doc


def crd_yaml() -> str:
    from kubectl_testbench.emit.yamlout import dump  # (the YAML writer is for this text only)

    return "---\n" + dump(crd_document())

"""The schema node at a document path: the generated CRD's, and for ``metadata`` the editors' JSON Schema's
(the CRD leaves ObjectMeta to the API server, so its schema there is just ``type: object``)."""

from __future__ import annotations

from functools import cache
from typing import Any

from kubectl_testbench.lsp.context import Segment
from kubectl_testbench.validate.crdschema import open_api_schema

Schema = dict[str, Any]


@cache
def metadata_schema() -> Schema:
    """ObjectMeta as the JSON Schema for editors describes it (generated from the models on first use)."""
    from kubectl_testbench.crd.jsonschema import experiment_json_schema

    node: Schema = experiment_json_schema()["properties"]["metadata"]
    return node


def node_at(path: tuple[Segment, ...]) -> Schema | None:
    """The schema of the value at ``path``; None outside the schema (unknown fields, free-form values)."""
    node: Schema | None = open_api_schema()
    if path[:1] == ("metadata",):
        node, path = metadata_schema(), path[1:]
    for seg in path:
        if node is None:
            return None
        if isinstance(seg, int):
            items = node.get("items")
            node = items if isinstance(items, dict) else None
            continue
        props = node.get("properties") or {}
        extra = node.get("additionalProperties")
        node = props.get(seg) if seg in props else (extra if isinstance(extra, dict) else None)
    return node


def object_node(node: Schema | None) -> Schema | None:
    """The mapping a key completes in: an array's items for a list item, the node itself otherwise."""
    while node is not None and node.get("type") == "array" and isinstance(node.get("items"), dict):
        node = node["items"]
    return node


def explain_path(path: tuple[Segment, ...]) -> str:
    """``path`` as ``kubectl testbench explain`` takes it: keys only, list items dropped."""
    return ".".join(["experiment", *(seg for seg in path if isinstance(seg, str))])


def is_metric_name(path: tuple[Segment, ...]) -> bool:
    """``spec.dataset.inline.scenarios[i].steps[j].metrics[k].metricName``."""
    keys = tuple(seg for seg in path if isinstance(seg, str))
    return keys == ("spec", "dataset", "inline", "scenarios", "steps", "metrics", "metricName")

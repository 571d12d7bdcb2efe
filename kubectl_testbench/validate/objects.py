"""The objects of a document as kubectl sees them: lists flattened, each object's kind classified.

kubectl's unstructured decoder treats every object with an ``items`` field as a list, whatever its kind
(``List`` with or without apiVersion, ``ExperimentList``); items that name neither kind nor apiVersion take
the list's apiVersion and its kind without the ``List`` suffix (k8s.io/apimachinery unstructured/helpers.go).
A list inside a list is not flattened: cli-runtime's FlattenListVisitor (resource/visitor.go) asks
meta.ExtractList for the inner list's items, which an Unstructured does not have, and kubectl fails on the file.
A document that is not an object, an item that is not an object or is itself a list, or an object without
kind makes ``kubectl apply`` fail.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kubectl_testbench.load.builder import Remark
from kubectl_testbench.load.positions import Path
from kubectl_testbench.model.constants import GROUP
from kubectl_testbench.rules.yaml import YAML_NOT_AN_OBJECT


@dataclass(slots=True)
class Item:
    """One object of a document, the path to it (``items[2]`` inside a list) and the remarks inside it."""

    data: dict[str, Any]
    at: Path
    remarks: list[Remark]


@dataclass(slots=True)
class Problem:
    """Why (part of) a document is not something kubectl can apply."""

    rule: str
    at: Path
    message: str
    hint: str = ""


def objects(data: Any, remarks: list[Remark]) -> Iterator[Item | Problem]:
    """The objects in a document, with list items flattened as kubectl flattens them."""
    if not isinstance(data, dict):
        kind = "a list" if isinstance(data, list) else "a scalar"
        yield Problem(YAML_NOT_AN_OBJECT.id, (), f"the document is {kind}, not a Kubernetes object: kubectl "
                      "rejects it", "a document must be a mapping with apiVersion, kind and metadata")
        return
    yield from _flatten(data, (), remarks, top=True)


NESTED_LIST = ("a list item is itself a list (its items are a list): kubectl cannot flatten it and rejects the list "
               '("*unstructured.Unstructured is not a list")')


def _flatten(data: dict[str, Any], at: Path, remarks: list[Remark], top: bool = False) -> Iterator[Item | Problem]:
    if "items" not in data or (not top and not isinstance(data["items"], list)):
        yield Item(data, at, remarks)
        return
    if not top:
        yield Problem(YAML_NOT_AN_OBJECT.id, at, NESTED_LIST)
        return
    items = data["items"]
    if items is None:
        return
    if not isinstance(items, list):
        yield Problem(YAML_NOT_AN_OBJECT.id, (*at, "items"), "items of a list must be a list of objects: kubectl "
                      "reads every object with an items field as a list")
        return
    api_version, kind = data.get("apiVersion"), data.get("kind")
    item_kind = kind.removesuffix("List") if isinstance(kind, str) else ""
    for i, item in enumerate(items):
        where = (*at, "items", i)
        if item is None:
            item = {}
        if not isinstance(item, dict):
            yield Problem(YAML_NOT_AN_OBJECT.id, where, "a list item is not an object: kubectl rejects the list")
            continue
        if top and not item.get("kind") and not item.get("apiVersion"):
            item["kind"] = item_kind
            item["apiVersion"] = api_version if isinstance(api_version, str) else ""
        inner = [_relative(r, len(where)) for r in remarks if r.path[: len(where)] == where]
        yield from _flatten(item, where, inner)


def _relative(remark: Remark, depth: int) -> Remark:
    return Remark(remark.rule, remark.message, remark.mark, remark.path[depth:], remark.text)


def group_of(api_version: Any) -> str:
    """The API group of an ``apiVersion`` (``""`` for the core group's ``v1`` and for anything not a string):
    the one reading of it, for validation, the KRM function and Argo CD's plugin."""
    return api_version.partition("/")[0] if isinstance(api_version, str) and "/" in api_version else ""


def near_miss_group(group: str) -> bool:
    """A group one slip away from ours (testbench.agentic-layer.io, testbench.agentic-layer.ai.)."""
    if not group or group == GROUP:
        return False
    import difflib

    ratio = difflib.SequenceMatcher(None, group.lower(), GROUP).ratio()
    return ratio >= 0.85 or group.lower().rstrip(".") == GROUP

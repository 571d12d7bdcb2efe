"""Pydantic models → structural OpenAPI v3 schema, the dialect CRDs use.

We walk the models ourselves instead of post-processing ``model_json_schema()``: a structural schema
has no ``$ref``, no ``anyOf`` for optional fields and carries Kubernetes extensions, and walking the
field annotations gives exactly that with no guesswork.
"""

from __future__ import annotations

import types
import typing
from typing import Any, Literal, Union

import annotated_types
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from kubectl_testbench.model.base import KubeModel
from kubectl_testbench.model.schema_meta import K8s

Schema = dict[str, Any]


def model_schema(model: type[BaseModel], description: str | None = None) -> Schema:
    """The schema node of one object type: properties, required fields and the type's extensions."""
    properties: dict[str, Schema] = {}
    required: list[str] = []
    for name, field in model.model_fields.items():
        alias = field.alias or name
        properties[alias] = field_schema(field)
        if field.is_required():
            required.append(alias)
    node: Schema = {"type": "object", "properties": properties}
    doc = description if description is not None else _doc(model)
    if doc:
        node["description"] = doc
    if required:
        node["required"] = sorted(required)
    if issubclass(model, KubeModel):
        node.update(model.k8s_schema)
        if model.cel_rules:
            node["x-kubernetes-validations"] = [{"message": r.message, "rule": r.rule} for r in model.cel_rules]
    return node


def field_schema(field: FieldInfo) -> Schema:
    """The schema node of one field: its type's node, the field's doc, constraints and default."""
    node = type_schema(field.annotation, field.metadata, field_level=True)
    if field.description:
        node["description"] = field.description
    default = field.default
    if not field.is_required() and isinstance(default, (str, bool, int, float)):
        node["default"] = default
    return node


def type_schema(annotation: Any, metadata: list[Any] | tuple[Any, ...] = (), field_level: bool = False) -> Schema:
    """The schema node for a Python type annotation plus constraint metadata."""
    annotation, metadata = _unwrap(annotation, list(metadata))
    origin = typing.get_origin(annotation)
    node: Schema
    if annotation is Any:
        node = {}
    elif origin is Literal:
        values = list(typing.get_args(annotation))
        node = {"type": _json_type(type(values[0])), "enum": values}
    elif origin in (list, tuple):
        (item,) = typing.get_args(annotation)[:1]
        node = {"type": "array", "items": _item_schema(item)}
    elif origin is dict:
        _, value = typing.get_args(annotation)
        node = {"type": "object", "additionalProperties": type_schema(value)}
    elif isinstance(annotation, type) and issubclass(annotation, BaseModel):
        node = model_schema(annotation, description=None if not field_level else "")
        if field_level:
            node.pop("description", None)
    elif annotation in (str, int, float, bool):
        node = {"type": _json_type(annotation)}
    elif _is_union(annotation):
        # int | str is Kubernetes' int-or-string; the IntOrString marker adds the extension.
        node = {"anyOf": [type_schema(a) for a in typing.get_args(annotation)]}
    else:
        raise TypeError(f"no OpenAPI mapping for {annotation!r}")
    _apply_constraints(node, metadata)
    return node


def _item_schema(item: Any) -> Schema:
    """Array items carry their type's own doc, as controller-gen writes them."""
    item, meta = _unwrap(item, [])
    if isinstance(item, type) and issubclass(item, BaseModel):
        node = model_schema(item)
        _apply_constraints(node, meta)
        return node
    return type_schema(item, meta)


def _unwrap(annotation: Any, metadata: list[Any]) -> tuple[Any, list[Any]]:
    """Strip ``Optional`` and ``Annotated`` layers, collecting their metadata."""
    while True:
        if typing.get_origin(annotation) is typing.Annotated:
            args = typing.get_args(annotation)
            annotation = args[0]
            for extra in args[1:]:
                if isinstance(extra, FieldInfo):
                    metadata.extend(extra.metadata)
                else:
                    metadata.append(extra)
            continue
        if _is_union(annotation):
            members = [a for a in typing.get_args(annotation) if a is not type(None)]
            if len(members) == 1:
                annotation = members[0]
                continue
            annotation = Union[tuple(members)]  # noqa: UP007 - rebuilding a runtime union
        return annotation, metadata


def _is_union(annotation: Any) -> bool:
    return typing.get_origin(annotation) in (Union, types.UnionType)


def _apply_constraints(node: Schema, metadata: list[Any]) -> None:
    is_array = node.get("type") == "array"
    for item in metadata:
        if isinstance(item, K8s):
            node.update(item.extra)
        elif isinstance(item, annotated_types.Ge):
            node["minimum"] = item.ge
        elif isinstance(item, annotated_types.Le):
            node["maximum"] = item.le
        elif isinstance(item, annotated_types.Gt):
            node["minimum"], node["exclusiveMinimum"] = item.gt, True
        elif isinstance(item, annotated_types.Lt):
            node["maximum"], node["exclusiveMaximum"] = item.lt, True
        elif isinstance(item, annotated_types.MinLen):
            node["minItems" if is_array else "minLength"] = item.min_length
        elif isinstance(item, annotated_types.MaxLen):
            node["maxItems" if is_array else "maxLength"] = item.max_length
        elif getattr(item, "pattern", None):
            node["pattern"] = item.pattern


def _json_type(py: type) -> str:
    return {str: "string", int: "integer", float: "number", bool: "boolean"}[py]


def _doc(model: type[BaseModel]) -> str:
    doc = model.__doc__ or ""
    return "\n".join(line.strip() for line in doc.strip().splitlines())

"""ObjectMeta checks: the API server validates metadata itself, not through the CRD schema."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kubectl_testbench.k8snames import (
    dns1123_label_error,
    dns1123_subdomain_error,
    label_value_error,
    qualified_name_error,
)
from kubectl_testbench.load.positions import MapKey, Path
from kubectl_testbench.validate.diagnostics import Fix, FixKind
from kubectl_testbench.validate.fixes import rename_fix
from kubectl_testbench.validate.schema import SchemaError, show

ANNOTATIONS_MAX_BYTES = 256 * 1024
_STRING_FIELDS = ("name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "creationTimestamp",
                  "deletionTimestamp")
_KNOWN = frozenset((*_STRING_FIELDS, "generation", "deletionGracePeriodSeconds", "labels", "annotations",
                    "ownerReferences", "finalizers", "managedFields"))


def check_metadata(meta: Any) -> Iterator[SchemaError]:
    """Findings for ``metadata`` of an Experiment about to be created or applied."""
    base = ("metadata",)
    if not isinstance(meta, dict):
        yield SchemaError(base, "metadata/type", "Invalid value: metadata must be an object")
        return
    for key in meta:
        if key not in _KNOWN:
            yield SchemaError((*base, key), "metadata/unknown-field", f'unknown field "metadata.{key}"', key=True,
                              fix=_rename_fix(key, meta))
    for key in _STRING_FIELDS:
        if key in meta and not isinstance(meta[key], str):
            yield SchemaError((*base, key), "metadata/type", f"Invalid value: metadata.{key} must be a string",
                              hint="quote the value" if meta[key] is not None else "",
                              fix=_quote_fix((*base, key), meta[key]))
    name = meta.get("name")
    if name is None or name == "":
        yield SchemaError((*base, "name"), "metadata/name-required", 'Required value: "name" must be set',
                          hint="generateName cannot be used: GitOps tools and apply need a fixed name"
                          if meta.get("generateName") else "")
    elif isinstance(name, str):
        err = dns1123_subdomain_error(name)
        if err:
            yield SchemaError((*base, "name"), "metadata/name", f"Invalid value: {show(name)}: {err}")
    namespace = meta.get("namespace")
    if isinstance(namespace, str) and namespace:
        err = dns1123_label_error(namespace)
        if err:
            yield SchemaError((*base, "namespace"), "metadata/namespace", f"Invalid value: {show(namespace)}: {err}")
    yield from _check_labels(meta.get("labels"))
    yield from _check_annotations(meta.get("annotations"))


def _check_labels(labels: Any) -> Iterator[SchemaError]:
    base = ("metadata", "labels")
    if labels is None:
        return
    if not isinstance(labels, dict):
        yield SchemaError(base, "metadata/type", "Invalid value: labels must be a map of strings")
        return
    for key, value in labels.items():
        err = qualified_name_error(key)
        if err:
            yield SchemaError((*base, MapKey(key)), "metadata/labels", f"Invalid value: {show(key)}: {err}", key=True)
        if not isinstance(value, str):
            yield SchemaError((*base, MapKey(key)), "metadata/type", f"Invalid value: label {key} must be a string",
                              hint="quote the value", fix=_quote_fix((*base, MapKey(key)), value))
            continue
        err = label_value_error(value)
        if err:
            yield SchemaError((*base, MapKey(key)), "metadata/labels", f"Invalid value: {show(value)}: {err}")


def _check_annotations(annotations: Any) -> Iterator[SchemaError]:
    base = ("metadata", "annotations")
    if annotations is None:
        return
    if not isinstance(annotations, dict):
        yield SchemaError(base, "metadata/type", "Invalid value: annotations must be a map of strings")
        return
    size = 0
    for key, value in annotations.items():
        err = qualified_name_error(key)
        if err:
            yield SchemaError((*base, MapKey(key)), "metadata/annotations", f"Invalid value: {show(key)}: {err}",
                              key=True)
        if not isinstance(value, str):
            yield SchemaError((*base, MapKey(key)), "metadata/type",
                              f"Invalid value: annotation {key} must be a string",
                              hint="quote the value", fix=_quote_fix((*base, MapKey(key)), value))
            continue
        size += len(key.encode()) + len(value.encode())
    if size > ANNOTATIONS_MAX_BYTES:
        yield SchemaError(base, "metadata/annotations", f"Too long: must have at most {ANNOTATIONS_MAX_BYTES} bytes")


def _quote_fix(path: Path, value: Any) -> Fix | None:
    """Metadata values are strings: a plain number or boolean there (``namespace: no``) is quoted as written."""
    if isinstance(value, (bool, int, float)):
        return Fix(FixKind.QUOTE, path, None, "quote the value as written")
    return None


def _rename_fix(key: str, meta: dict[str, Any]) -> Fix:
    """``lables`` -> ``labels``: a slip of exactly one ObjectMeta field that is not set already."""
    return rename_fix(("metadata",), key, sorted(_KNOWN), meta)

"""ObjectMeta checks: the API server decodes and validates metadata itself, not through the CRD schema.

Decoding follows metav1.ObjectMeta's JSON shape with strict field validation (unknown fields are errors,
``null`` means unset, timestamps are RFC 3339); validation follows ``ValidateObjectMetaAccessor``
(k8s.io/apimachinery/pkg/api/validation/objectmeta.go) for an object about to be created: name and
generateName, namespace, labels, annotations (keys checked lower-cased), owner references, finalizers and
managed fields. The create path sets generation, uid and creationTimestamp itself, so only their types
matter; a resourceVersion makes the create fail.

Two findings have a safe fix (``kubectl testbench fix``): a field name that is a slip of exactly one known
field is renamed, and a plain number or boolean where ObjectMeta wants a string is quoted as written.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from kubectl_testbench.k8snames import (
    dns1123_label_error,
    dns1123_subdomain_error,
    label_value_error,
    mask_trailing_dash,
    qualified_name_error,
)
from kubectl_testbench.load.positions import MapKey, Path
from kubectl_testbench.rules.metadata import (
    METADATA_ANNOTATIONS,
    METADATA_FINALIZERS,
    METADATA_LABELS,
    METADATA_MANAGED_FIELDS,
    METADATA_MANAGED_FIELDS_SET,
    METADATA_NAME,
    METADATA_NAME_REQUIRED,
    METADATA_NAMESPACE,
    METADATA_OWNER_REFERENCES,
    METADATA_RESOURCE_VERSION,
    METADATA_TIMESTAMP,
    METADATA_TYPE,
    METADATA_UNKNOWN_FIELD,
)
from kubectl_testbench.validate.diagnostics import Fix, FixKind
from kubectl_testbench.validate.fix_choices import rename_fix
from kubectl_testbench.validate.schema import SchemaError, show

ANNOTATIONS_MAX_BYTES = 256 * 1024
FIELD_MANAGER_MAX = 128
SUBRESOURCE_MAX = 256

_STRING = frozenset(("name", "generateName", "namespace", "selfLink", "uid", "resourceVersion"))
_TIME = frozenset(("creationTimestamp", "deletionTimestamp"))
_INT = frozenset(("generation", "deletionGracePeriodSeconds"))
_KNOWN = _STRING | _TIME | _INT | {"labels", "annotations", "ownerReferences", "finalizers", "managedFields"}
_OWNER_STRINGS = ("apiVersion", "kind", "name", "uid")
_OWNER_BOOLS = ("controller", "blockOwnerDeletion")
_MANAGED_STRINGS = ("manager", "operation", "apiVersion", "fieldsType", "subresource")
_MANAGED_KNOWN = frozenset((*_MANAGED_STRINGS, "time", "fieldsV1"))
_RFC3339 = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})")
_INT64 = 2**63

META: Path = ("metadata",)


def check_metadata(meta: Any) -> Iterator[SchemaError]:
    """Findings for ``metadata`` of an Experiment about to be created or applied."""
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        yield SchemaError(META, METADATA_TYPE.id, f"Invalid value: {show(meta)}: metadata must be an object")
        return
    yield from _decode(meta)
    yield from _check_names(meta)
    yield from _check_labels(meta.get("labels"))
    yield from _check_annotations(meta.get("annotations"))
    yield from _check_owner_references(meta.get("ownerReferences"))
    yield from _check_finalizers(meta.get("finalizers"))
    yield from _check_managed_fields(meta.get("managedFields"))
    yield from _managed_fields_set(meta.get("managedFields"))
    version = meta.get("resourceVersion")
    if isinstance(version, str) and version.isdigit() and int(version) != 0:
        yield SchemaError((*META, "resourceVersion"), METADATA_RESOURCE_VERSION.id,
                          "resourceVersion should not be set on objects to be created",
                          hint="remove metadata.resourceVersion (it was copied from a cluster)")


def _managed_fields_set(managed: Any) -> Iterator[SchemaError]:
    """A manifest with managedFields: a create replaces them, a server-side apply refuses the object."""
    if isinstance(managed, list) and managed:
        at = (*META, "managedFields")
        yield SchemaError(at, METADATA_MANAGED_FIELDS_SET.id, "metadata.managedFields is set: a create replaces it "
                          "with the server's record, a server-side apply refuses the object (metadata.managedFields "
                          "must be nil)", hint="remove metadata.managedFields (it was copied from a cluster)",
                          key=True, fix=Fix(FixKind.DELETE, at, None, "remove metadata.managedFields"))


# --- decoding: types, unknown fields, timestamps ------------------------------------------------------------


def _decode(meta: dict[str, Any]) -> Iterator[SchemaError]:
    for key, value in meta.items():
        at = (*META, key)
        if key not in _KNOWN:
            yield SchemaError(at, METADATA_UNKNOWN_FIELD.id, f'unknown field "metadata.{key}"', key=True,
                              hint=_case_hint(key, _KNOWN), fix=rename_fix(META, key, sorted(_KNOWN), meta))
        elif value is None:
            continue  # null is "unset" for every ObjectMeta field
        elif key in _STRING:
            yield from _expect_string(at, value)
        elif key in _INT:
            if not _is_int64(value):
                yield SchemaError(at, METADATA_TYPE.id, f"Invalid value: {show(value)}: metadata.{key} must be an "
                                  "integer", hint="remove the quotes" if isinstance(value, str) else "")
        elif key in _TIME:
            yield from _expect_time(at, value)
        elif key in ("labels", "annotations"):
            if not isinstance(value, dict):
                yield SchemaError(at, METADATA_TYPE.id, f"Invalid value: {show(value)}: {key} must be a map of "
                                  "strings")
                continue
            for k, v in value.items():
                if v is not None and not isinstance(v, str):
                    yield SchemaError((*at, MapKey(k)), METADATA_TYPE.id,
                                      f"Invalid value: {show(v)}: {key[:-1]} {k} must be a string",
                                      hint="quote the value", fix=_quote_fix((*at, MapKey(k)), v))
        elif key == "finalizers":
            if not isinstance(value, list):
                yield SchemaError(at, METADATA_TYPE.id, f"Invalid value: {show(value)}: finalizers must be a list "
                                  "of strings")
                continue
            for i, item in enumerate(value):
                if item is not None and not isinstance(item, str):
                    yield SchemaError((*at, i), METADATA_TYPE.id, f"Invalid value: {show(item)}: a finalizer must "
                                      "be a string", fix=_quote_fix((*at, i), item))
        else:  # ownerReferences, managedFields: lists of objects with known fields
            yield from _decode_entries(key, at, value)


def _decode_entries(key: str, at: Path, value: Any) -> Iterator[SchemaError]:
    if not isinstance(value, list):
        yield SchemaError(at, METADATA_TYPE.id, f"Invalid value: {show(value)}: {key} must be a list of objects")
        return
    strings, bools = (_OWNER_STRINGS, _OWNER_BOOLS) if key == "ownerReferences" else (_MANAGED_STRINGS, ())
    known = frozenset((*strings, *bools)) if key == "ownerReferences" else _MANAGED_KNOWN
    for i, entry in enumerate(value):
        if entry is None:
            continue
        if not isinstance(entry, dict):
            yield SchemaError((*at, i), METADATA_TYPE.id, f"Invalid value: {show(entry)}: must be an object")
            continue
        for field, item in entry.items():
            where = (*at, i, field)
            if field not in known:
                yield SchemaError(where, METADATA_UNKNOWN_FIELD.id, f'unknown field "metadata.{key}[{i}].{field}"',
                                  key=True, hint=_case_hint(field, known),
                                  fix=rename_fix((*at, i), field, sorted(known), entry))
            elif item is None or field == "fieldsV1":
                continue
            elif field in strings:
                yield from _expect_string(where, item)
            elif field in bools:
                if not isinstance(item, bool):
                    yield SchemaError(where, METADATA_TYPE.id, f"Invalid value: {show(item)}: must be a boolean")
            else:
                yield from _expect_time(where, item)


def _expect_string(at: Path, value: Any) -> Iterator[SchemaError]:
    if not isinstance(value, str):
        yield SchemaError(at, METADATA_TYPE.id, f"Invalid value: {show(value)}: {_dotted(at)} must be a string",
                          hint="quote the value", fix=_quote_fix(at, value))


def _quote_fix(at: Path, value: Any) -> Fix | None:
    """A plain number or boolean where ObjectMeta wants a string (``namespace: no``) is quoted as written."""
    if isinstance(value, (bool, int, float)):
        return Fix(FixKind.QUOTE, at, None, "quote the value as written")
    return None


def metadata_type_at(path: Path) -> str | None:
    """The JSON type ObjectMeta decodes at ``path`` (``metadata``, ...) where it is certain: "string" for the
    string fields, label and annotation values, finalizers and the string fields of owner references and
    managed fields; "boolean" for an owner reference's flags. Timestamps are strings with a format of their
    own, so None, like every other place."""
    rest = path[1:]
    if len(rest) == 1:
        return "string" if rest[0] in _STRING else None
    if len(rest) == 2 and rest[0] in ("labels", "annotations"):
        return "string"
    if len(rest) == 2 and rest[0] == "finalizers" and isinstance(rest[1], int):
        return "string"
    if len(rest) == 3 and isinstance(rest[1], int) and rest[0] in ("ownerReferences", "managedFields"):
        strings, bools = (_OWNER_STRINGS, _OWNER_BOOLS) if rest[0] == "ownerReferences" else (_MANAGED_STRINGS, ())
        return "string" if rest[2] in strings else "boolean" if rest[2] in bools else None
    return None


def _expect_time(at: Path, value: Any) -> Iterator[SchemaError]:
    if not isinstance(value, str) or not is_rfc3339(value):
        yield SchemaError(at, METADATA_TIMESTAMP.id, f"Invalid value: {show(value)}: {_dotted(at)} must be an "
                          "RFC 3339 date-time such as 2024-01-02T15:04:05Z", hint="or remove it: the API server "
                          "sets it")


def is_rfc3339(value: str) -> bool:
    """What Go's ``time.Parse(time.RFC3339, value)`` accepts (metav1.Time's UnmarshalJSON)."""
    m = _RFC3339.fullmatch(value)
    if m is None:
        return False
    year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
    try:
        datetime(year, month, day, hour, minute, second)
    except ValueError:
        return False
    zone = m.group(8)
    return zone == "Z" or (int(zone[1:3]) < 24 and int(zone[4:]) < 60)


def _is_int64(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and -_INT64 <= value < _INT64


def _dotted(at: Path) -> str:
    from kubectl_testbench.load.positions import field_path

    return field_path(at)


def _case_hint(key: str, known: frozenset[str]) -> str:
    lower = {k.lower(): k for k in known}
    return f'did you mean "{lower[key.lower()]}"? Field names are case-sensitive' if key.lower() in lower else ""


# --- validation (ValidateObjectMetaAccessor) -----------------------------------------------------------------


def _check_names(meta: dict[str, Any]) -> Iterator[SchemaError]:
    name = meta.get("name")
    generate = meta.get("generateName")
    if isinstance(generate, str) and generate:
        err = dns1123_subdomain_error(mask_trailing_dash(generate))
        if err:
            yield SchemaError((*META, "generateName"), METADATA_NAME.id, f"Invalid value: {show(generate)}: {err}")
    if name is None or name == "":
        yield SchemaError((*META, "name"), METADATA_NAME_REQUIRED.id, 'Required value: "name" must be set',
                          hint="generateName cannot be used: GitOps tools and apply need a fixed name"
                          if generate else "")
    elif isinstance(name, str):
        err = dns1123_subdomain_error(name)
        if err:
            yield SchemaError((*META, "name"), METADATA_NAME.id, f"Invalid value: {show(name)}: {err}")
    namespace = meta.get("namespace")
    if isinstance(namespace, str) and namespace:
        err = dns1123_label_error(namespace)
        if err:
            yield SchemaError((*META, "namespace"), METADATA_NAMESPACE.id, f"Invalid value: {show(namespace)}: {err}")


def _check_labels(labels: Any) -> Iterator[SchemaError]:
    if not isinstance(labels, dict):
        return
    base = (*META, "labels")
    for key, value in labels.items():
        err = qualified_name_error(key)
        if err:
            yield SchemaError((*base, MapKey(key)), METADATA_LABELS.id, f"Invalid value: {show(key)}: {err}", key=True)
        if isinstance(value, str):
            err = label_value_error(value)
            if err:
                yield SchemaError((*base, MapKey(key)), METADATA_LABELS.id, f"Invalid value: {show(value)}: {err}")


def _check_annotations(annotations: Any) -> Iterator[SchemaError]:
    """Annotation keys are qualified names compared without case: the server lower-cases them first."""
    if not isinstance(annotations, dict):
        return
    base = (*META, "annotations")
    size = 0
    for key, value in annotations.items():
        err = qualified_name_error(key.lower())
        if err:
            yield SchemaError((*base, MapKey(key)), METADATA_ANNOTATIONS.id, f"Invalid value: {show(key)}: {err}",
                              key=True)
        size += len(key.encode()) + (len(value.encode()) if isinstance(value, str) else 0)
    if size > ANNOTATIONS_MAX_BYTES:
        yield SchemaError(base, METADATA_ANNOTATIONS.id, f"Too long: must have at most {ANNOTATIONS_MAX_BYTES} bytes")


def _check_owner_references(refs: Any) -> Iterator[SchemaError]:
    if not isinstance(refs, list):
        return
    base = (*META, "ownerReferences")
    controller = ""
    for i, ref in enumerate(refs):
        if not isinstance(ref, dict):
            continue
        api_version = _text(ref.get("apiVersion"))
        kind = _text(ref.get("kind"))
        if not _version_of(api_version):
            yield SchemaError((*base, i, "apiVersion"), METADATA_OWNER_REFERENCES.id,
                              f"Invalid value: {show(api_version)}: version must not be empty")
        for field in ("kind", "name", "uid"):
            value = ref.get(field)
            if not isinstance(value, str) or not value:
                yield SchemaError((*base, i, field), METADATA_OWNER_REFERENCES.id,
                                  f'Invalid value: "": {field} must not be empty')
        if api_version == "v1" and kind == "Event":
            yield SchemaError((*base, i), METADATA_OWNER_REFERENCES.id,
                              "Invalid value: /v1, Kind=Event is disallowed from being an owner")
        if ref.get("controller") is True:
            current = f"{kind}/{ref.get('name')}"
            if controller:
                yield SchemaError((*base, i, "controller"), METADATA_OWNER_REFERENCES.id,
                                  f'Only one reference can have Controller set to true. Found "true" in references '
                                  f"for {controller} and {current}")
            else:
                controller = current


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _version_of(api_version: str) -> str:
    """The version part of ``group/version`` as schema.ParseGroupVersion reads it ("" when malformed)."""
    slashes = api_version.count("/")
    if slashes == 0:
        return api_version
    return api_version.partition("/")[2] if slashes == 1 else ""


def _check_finalizers(finalizers: Any) -> Iterator[SchemaError]:
    if not isinstance(finalizers, list):
        return
    base = (*META, "finalizers")
    names = [f if isinstance(f, str) else "" for f in finalizers if f is None or isinstance(f, str)]
    for i, name in enumerate(finalizers):
        if name is not None and not isinstance(name, str):
            continue
        err = qualified_name_error(name or "")
        if err:
            yield SchemaError((*base, i), METADATA_FINALIZERS.id, f"Invalid value: {show(name or '')}: {err}")
    if "orphan" in names and "foregroundDeletion" in names:
        yield SchemaError(base, METADATA_FINALIZERS.id, "Invalid value: finalizer orphan and foregroundDeletion cannot "
                          "be both set")


def _check_managed_fields(entries: Any) -> Iterator[SchemaError]:
    if not isinstance(entries, list):
        return
    base = (*META, "managedFields")
    for i, entry in enumerate(entries):
        if entry is None:
            entry = {}
        if not isinstance(entry, dict):
            continue
        operation = entry.get("operation")
        if operation not in ("Apply", "Update"):
            yield SchemaError((*base, i, "operation"), METADATA_MANAGED_FIELDS.id,
                              f"Invalid value: {show(operation or '')}: must be `Apply` or `Update`")
        fields_type = entry.get("fieldsType")
        if isinstance(fields_type, str) and fields_type and fields_type != "FieldsV1":
            yield SchemaError((*base, i, "fieldsType"), METADATA_MANAGED_FIELDS.id,
                              f"Invalid value: {show(fields_type)}: must be `FieldsV1`")
        manager = entry.get("manager")
        if isinstance(manager, str):
            if len(manager.encode()) > FIELD_MANAGER_MAX:
                yield SchemaError((*base, i, "manager"), METADATA_MANAGED_FIELDS.id,
                                  f"Too long: may not be longer than {FIELD_MANAGER_MAX}")
            bad = next((c for c in manager if not c.isprintable()), None)
            if bad is not None:
                yield SchemaError((*base, i, "manager"), METADATA_MANAGED_FIELDS.id,
                                  f"Invalid value: {show(manager)}: invalid character U+{ord(bad):04X}")
        subresource = entry.get("subresource")
        if isinstance(subresource, str) and len(subresource.encode()) > SUBRESOURCE_MAX:
            yield SchemaError((*base, i, "subresource"), METADATA_MANAGED_FIELDS.id,
                              f"Too long: may not be longer than {SUBRESOURCE_MAX}")

"""Structural OpenAPI v3 validation, with the semantics the Kubernetes API server applies to CRs.

Compiled once per process from the generated CRD into a tree of nodes; each document is then a single
walk. What differs from a JSON Schema validator, on purpose, to match the API server:

- strict decoding: fields the schema does not declare are errors (unless preserve-unknown-fields);
- ``null`` for a non-nullable field is dropped before validation, as the API server prunes it;
- defaults are applied to absent fields before validation;
- ``integer`` accepts integral floats (``1.0``), which JSON cannot tell apart;
- ``pattern`` is RE2: ``$`` matches only at the very end;
- type/required/enum/maxLength/maxItems errors are "blocking": CEL rules are then not evaluated.
"""

from __future__ import annotations

import json
import math
import re
import threading
from dataclasses import dataclass
from typing import Any

from kubectl_testbench.load.positions import MapKey, Path, PathSegment
from kubectl_testbench.rules.schema import (
    SCHEMA_ANY_OF,
    SCHEMA_DUPLICATE,
    SCHEMA_ENUM,
    SCHEMA_FORMAT,
    SCHEMA_MAX_ITEMS,
    SCHEMA_MAX_LENGTH,
    SCHEMA_MAX_PROPERTIES,
    SCHEMA_MAXIMUM,
    SCHEMA_MIN_ITEMS,
    SCHEMA_MIN_LENGTH,
    SCHEMA_MIN_PROPERTIES,
    SCHEMA_MINIMUM,
    SCHEMA_MULTIPLE_OF,
    SCHEMA_NOT,
    SCHEMA_NULL_FIELD,
    SCHEMA_PATTERN,
    SCHEMA_REQUIRED,
    SCHEMA_TYPE,
    SCHEMA_UNKNOWN_FIELD,
)
from kubectl_testbench.validate.diagnostics import Fix, FixKind
from kubectl_testbench.validate.fix_choices import NUMBER_TEXT, rename_fix
from kubectl_testbench.words import plural

Schema = dict[str, Any]

BLOCKING = frozenset({SCHEMA_REQUIRED.id, SCHEMA_TYPE.id, SCHEMA_ENUM.id, SCHEMA_MAX_LENGTH.id, SCHEMA_MAX_ITEMS.id})


@dataclass(slots=True)
class SchemaError:
    """One violation: where (a path into the document), which rule, and the API server's wording."""

    path: Path
    rule: str
    message: str
    hint: str = ""
    key: bool = False
    """The position of the key, not of the value, is the best place to point (unknown fields)."""
    fix: Fix | None = None


@dataclass(slots=True)
class CelTarget:
    """A node carrying CEL rules, met during the walk, to be evaluated after schema validation."""

    path: Path
    value: Any
    schema: Schema


class _Node:
    """One compiled schema node."""

    __slots__ = (
        "additional", "all_of", "any_of", "defaults", "enum", "fmt", "int_or_string", "items", "list_keys",
        "list_type", "max_items", "max_len", "max_props", "maximum", "min_items", "min_len", "min_props",
        "minimum", "multiple_of", "not_", "nullable", "one_of", "pattern", "pattern_text", "preserve", "props",
        "required", "rules", "schema", "type", "xmax", "xmin",
    )

    def __init__(self, schema: Schema) -> None:
        self.schema = schema
        self.type: str | None = schema.get("type")
        self.nullable: bool = bool(schema.get("nullable"))
        self.preserve: bool = bool(schema.get("x-kubernetes-preserve-unknown-fields"))
        self.int_or_string: bool = bool(schema.get("x-kubernetes-int-or-string"))
        self.enum: list[Any] | None = schema.get("enum")
        self.minimum = schema.get("minimum")
        self.maximum = schema.get("maximum")
        self.xmin: bool = bool(schema.get("exclusiveMinimum"))
        self.xmax: bool = bool(schema.get("exclusiveMaximum"))
        self.multiple_of = schema.get("multipleOf")
        self.min_len = schema.get("minLength")
        self.max_len = schema.get("maxLength")
        self.min_items = schema.get("minItems")
        self.max_items = schema.get("maxItems")
        self.min_props = schema.get("minProperties")
        self.max_props = schema.get("maxProperties")
        self.pattern_text: str | None = schema.get("pattern")
        self.pattern = re.compile(re2_to_python(self.pattern_text)) if self.pattern_text else None
        self.fmt: str | None = schema.get("format")
        self.required: tuple[str, ...] = tuple(schema.get("required", ()))
        self.props: dict[str, _Node] | None = (
            {k: _Node(v) for k, v in schema["properties"].items()} if "properties" in schema else None
        )
        add = schema.get("additionalProperties")
        self.additional: _Node | bool | None = _Node(add) if isinstance(add, dict) else add
        self.items: _Node | None = _Node(schema["items"]) if isinstance(schema.get("items"), dict) else None
        self.list_type: str | None = schema.get("x-kubernetes-list-type")
        self.list_keys: tuple[str, ...] = tuple(schema.get("x-kubernetes-list-map-keys", ()))
        self.all_of = [_Node(s) for s in schema.get("allOf", ())]
        self.any_of = [_Node(s) for s in schema.get("anyOf", ())]
        self.one_of = [_Node(s) for s in schema.get("oneOf", ())]
        self.not_ = _Node(schema["not"]) if "not" in schema else None
        self.rules: bool = bool(schema.get("x-kubernetes-validations"))
        self.defaults: dict[str, Any] = {
            k: v["default"] for k, v in schema.get("properties", {}).items() if "default" in v
        }


class SchemaValidator:
    """Validates documents against one structural schema; build once, call per document."""

    def __init__(self, schema: Schema, skip_root_fields: tuple[str, ...] = ()) -> None:
        self.root = _Node(schema)
        self.skip_root_fields = frozenset(skip_root_fields)

    def unknown_fields(self, field: str, value: Any) -> list[SchemaError]:
        """The fields strict decoding rejects in a root field that is then dropped (``status`` on create)."""
        errors: list[SchemaError] = []
        node = self.root.props.get(field) if self.root.props is not None else None
        if node is not None:
            _pruned(node, value, (field,), errors)
        return errors

    def validate(self, value: Any) -> tuple[list[SchemaError], list[CelTarget]]:
        """All violations in ``value`` and the nodes whose CEL rules must run afterwards."""
        errors: list[SchemaError] = []
        targets: list[CelTarget] = []
        _check(self.root, value, (), errors, targets, self.skip_root_fields)
        return errors, targets

    def validate_noting_nulls(self, value: Any) -> tuple[list[SchemaError], list[CelTarget], list[SchemaError]]:
        """:meth:`validate`, and the nulls it pruned that a server-side apply refuses (``schema/null-field``)."""
        notes = _Nulls()
        outer, _COLLECTING.nulls = _collecting(), notes
        try:
            errors, targets = self.validate(value)
        finally:
            _COLLECTING.nulls = outer
        return errors, targets, notes.found


MAX_ERRORS = 1_000
"""Stop walking a hopeless document; the engine reports a bounded number of findings anyway."""


def _check(node: _Node, value: Any, path: Path, errors: list[SchemaError], targets: list[CelTarget],
           skip: frozenset[str] = frozenset()) -> None:
    if len(errors) >= MAX_ERRORS:
        return
    if value is None:
        if not node.nullable and not node.preserve:
            errors.append(SchemaError(path, SCHEMA_TYPE.id, f"Invalid value: null: must be of type {_type_word(node)}"))
        return
    t = node.type
    if node.int_or_string:
        if isinstance(value, bool) or not isinstance(value, (int, float, str)) or (
                isinstance(value, float) and not value.is_integer()):
            errors.append(SchemaError(path, SCHEMA_TYPE.id,
                                      f"Invalid value: {show(value)}: must be an integer or a string"))
            _pruned(node, value, path, errors)
            return
    elif t is not None and not _is_type(value, t):
        errors.append(SchemaError(path, SCHEMA_TYPE.id, f"Invalid value: {show(value)}: must be of type {t}",
                                  hint=_type_hint(value, t), fix=_type_fix(value, t, path)))
        _pruned(node, value, path, errors)
        return
    if node.enum is not None and value not in node.enum:
        allowed = ", ".join(json.dumps(v, ensure_ascii=False) for v in node.enum)  # as strconv.Quote writes them
        hint = ""
        fix = None
        if isinstance(value, str):
            close = [v for v in node.enum if isinstance(v, str) and v.lower() == value.lower()]
            if close:
                hint = f'did you mean "{close[0]}"? Values are case-sensitive'
            fix = Fix(FixKind.REPLACE, path, close[0], f'write "{close[0]}"') if len(close) == 1 else \
                Fix(FixKind.REPLACE, path, blocked="no allowed value matches it ignoring case")
        errors.append(SchemaError(path, SCHEMA_ENUM.id,
                                  f"Unsupported value: {show(value)}: supported values: {allowed}", hint=hint, fix=fix))
    if isinstance(value, dict):
        _check_object(node, value, path, errors, targets, skip)
    elif isinstance(value, list):
        _check_array(node, value, path, errors, targets)
    elif isinstance(value, str):
        _check_string(node, value, path, errors)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        _check_number(node, value, path, errors)
    for sub in node.all_of:
        _check(sub, value, path, errors, targets)
    if node.any_of and not node.int_or_string and not any(_passes(s, value) for s in node.any_of):
        errors.append(SchemaError(path, SCHEMA_ANY_OF.id, f"Invalid value: {show(value)}: must match at least one "
                                  "of the allowed schemas (anyOf)"))
    if node.one_of and sum(_passes(s, value) for s in node.one_of) != 1:
        errors.append(SchemaError(path, SCHEMA_ANY_OF.id, f"Invalid value: {show(value)}: must match exactly one "
                                  "of the allowed schemas (oneOf)"))
    if node.not_ is not None and _passes(node.not_, value):
        errors.append(SchemaError(path, SCHEMA_NOT.id, f"Invalid value: {show(value)}: must not match the schema"))
    if node.rules:
        targets.append(CelTarget(path, value, node.schema))


def _pruned(node: _Node | None, value: Any, path: Path, errors: list[SchemaError]) -> None:
    """Fields the API server's pruning removes from a value of the wrong type, reported as unknown fields.

    Pruning runs before validation and does not look at types (apiextensions-apiserver
    pkg/apiserver/schema/pruning/algorithm.go): an object where a list is expected loses every key, the
    items of a list where an object is expected are pruned as if they had no schema.
    """
    if node is not None and node.preserve:
        if isinstance(value, dict) and node.props:
            for key, item in value.items():
                if key in node.props:
                    _pruned(node.props[key], item, (*path, key), errors)
        elif isinstance(value, list) and node.items is not None:
            for i, item in enumerate(value):
                _pruned(node.items, item, (*path, i), errors)
        return
    if isinstance(value, dict):
        for key, item in value.items():
            child = node.props.get(key) if node is not None and node.props else None
            if child is None and node is not None and isinstance(node.additional, _Node):
                child = node.additional
            if child is None:
                if len(errors) < MAX_ERRORS:
                    errors.append(SchemaError((*path, key), SCHEMA_UNKNOWN_FIELD.id,
                                              f'unknown field "{_dotted(path, key)}"', key=True))
            else:
                _pruned(child, item, (*path, key), errors)
    elif isinstance(value, list):
        items = node.items if node is not None else None
        for i, item in enumerate(value):
            _pruned(items, item, (*path, i), errors)


def _check_object(node: _Node, value: dict[str, Any], path: Path, errors: list[SchemaError],
                  targets: list[CelTarget], skip: frozenset[str]) -> None:
    props = node.props
    _note_nulls_pruned_before(value, path)
    for key in list(value):
        if key in skip:
            continue
        item = value[key]
        child = props.get(key) if props is not None else None
        if child is None:
            if isinstance(node.additional, _Node):
                if item is None and not node.additional.nullable:
                    del value[key]
                    _note_null(value, key, MapKey(key), path, node.additional)
                    continue
                _check(node.additional, item, (*path, MapKey(key)), errors, targets)
            elif node.additional is not True and not node.preserve and len(errors) < MAX_ERRORS:
                message = f'unknown field "{_dotted(path, key)}"'
                errors.append(SchemaError((*path, key), SCHEMA_UNKNOWN_FIELD.id, message,
                                          hint=_suggest(key, props), key=True,
                                          fix=_rename_fix(key, props, value, path)))
            continue
        if item is None and not child.nullable:
            del value[key]  # a create prunes nulls of non-nullable fields (a server-side apply refuses them)
            if key not in node.required:  # a required one is reported missing
                _note_null(value, key, key, path, child)
            continue
        _check(child, item, (*path, key), errors, targets)
    for key, default in node.defaults.items():
        if key not in value:
            value[key] = default
    for key in node.required:
        if key not in value:
            errors.append(SchemaError((*path, key), SCHEMA_REQUIRED.id, f'Required value: "{key}" must be set'))
    n = len(value)
    if node.min_props is not None and n < node.min_props:
        errors.append(SchemaError(path, SCHEMA_MIN_PROPERTIES.id, f"must have at least {node.min_props} properties"))
    if node.max_props is not None and n > node.max_props:
        errors.append(SchemaError(path, SCHEMA_MAX_PROPERTIES.id, f"must have at most {node.max_props} properties"))


def _check_array(node: _Node, value: list[Any], path: Path, errors: list[SchemaError],
                 targets: list[CelTarget]) -> None:
    n = len(value)
    if node.min_items is not None and n < node.min_items:
        errors.append(SchemaError(path, SCHEMA_MIN_ITEMS.id, f"Invalid value: {n} items: must have at least "
                                  f"{plural(node.min_items, 'item')}"))
    if node.max_items is not None and n > node.max_items:
        errors.append(SchemaError(path, SCHEMA_MAX_ITEMS.id,
                                  f"Too many: {n}: must have at most {node.max_items} items"))
    items = node.items
    if items is not None:
        for i, item in enumerate(value):
            _check(items, item, (*path, i), errors, targets)
    if node.list_type == "set":
        seen: set[str] = set()
        for i, item in enumerate(value):
            k = json.dumps(item, sort_keys=True)
            if k in seen:
                errors.append(SchemaError((*path, i), SCHEMA_DUPLICATE.id, f"Duplicate value: {show(item)}"))
            seen.add(k)
    elif node.list_type == "map" and node.list_keys:
        keys: set[str] = set()
        for i, item in enumerate(value):
            if isinstance(item, dict):
                k = json.dumps([item.get(f) for f in node.list_keys])
                if k in keys:
                    errors.append(SchemaError((*path, i), SCHEMA_DUPLICATE.id, f"Duplicate value: {k}"))
                keys.add(k)


def _check_string(node: _Node, value: str, path: Path, errors: list[SchemaError]) -> None:
    if node.max_len is not None and len(value) > node.max_len:
        errors.append(SchemaError(path, SCHEMA_MAX_LENGTH.id, f"Too long: may not be longer than {node.max_len}"))
    if node.min_len is not None and len(value) < node.min_len:
        errors.append(SchemaError(path, SCHEMA_MIN_LENGTH.id, f"Invalid value: {show(value)}: must be at least "
                                  f"{plural(node.min_len, 'character')} long"))
    if node.pattern is not None and not node.pattern.search(value):
        errors.append(SchemaError(path, SCHEMA_PATTERN.id, f"Invalid value: {show(value)}: must match "
                                  f"'{node.pattern_text}'"))
    if node.fmt == "date-time" and not _is_datetime(value):
        message = f"Invalid value: {show(value)}: must be an RFC 3339 date-time"
        errors.append(SchemaError(path, SCHEMA_FORMAT.id, message))


def _check_number(node: _Node, value: float, path: Path, errors: list[SchemaError]) -> None:
    if node.minimum is not None and (value < node.minimum or (node.xmin and value == node.minimum)):
        word = "greater than" if node.xmin else "greater than or equal to"
        message = f"Invalid value: {show(value)}: must be {word} {node.minimum}"
        errors.append(SchemaError(path, SCHEMA_MINIMUM.id, message))
    if node.maximum is not None and (value > node.maximum or (node.xmax and value == node.maximum)):
        word = "less than" if node.xmax else "less than or equal to"
        message = f"Invalid value: {show(value)}: must be {word} {node.maximum}"
        errors.append(SchemaError(path, SCHEMA_MAXIMUM.id, message))
    if node.multiple_of and (value / node.multiple_of) % 1 != 0:
        errors.append(SchemaError(path, SCHEMA_MULTIPLE_OF.id, f"Invalid value: {show(value)}: must be a multiple of "
                                  f"{node.multiple_of}"))


def _passes(node: _Node, value: Any) -> bool:
    errors: list[SchemaError] = []
    _check(node, json.loads(json.dumps(value)), (), errors, [])  # on a copy: defaults and pruning change it
    return not errors


def _is_type(value: Any, t: str) -> bool:
    if t == "string":
        return isinstance(value, str)
    if t == "object":
        return isinstance(value, dict)
    if t == "array":
        return isinstance(value, list)
    if t == "boolean":
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if t == "integer":
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if t == "number":
        return isinstance(value, (int, float))
    return True


class _Nulls:
    """The pruned nulls of one validation, and the objects they were pruned from: an object reached again
    through a YAML alias no longer holds them, but a server-side apply sees them at every path."""

    __slots__ = ("found", "pruned")

    def __init__(self) -> None:
        self.found: list[SchemaError] = []
        self.pruned: dict[int, list[tuple[str, PathSegment, _Node]]] = {}


_COLLECTING = threading.local()
"""Where :meth:`SchemaValidator.validate_noting_nulls` collects pruned nulls, per thread (the LSP validates
off its main thread); ``threading`` is imported anyway, ``contextvars`` would cost a cold start 0.2 ms."""


def _collecting() -> _Nulls | None:
    """The current thread's collection of pruned nulls (None: not collecting)."""
    notes: _Nulls | None = getattr(_COLLECTING, "nulls", None)
    return notes


def _note_null(value: dict[str, Any], key: str, segment: PathSegment, path: Path, node: _Node) -> None:
    notes = _collecting()
    if notes is None or node.type is None:  # an untyped field (preserve-unknown-fields) takes null
        return
    notes.pruned.setdefault(id(value), []).append((key, segment, node))
    notes.found.append(_null_field((*path, segment), node))


def _note_nulls_pruned_before(value: dict[str, Any], path: Path) -> None:
    notes = _collecting()
    if notes is None or not notes.pruned:  # the common case, once per object: nothing was pruned
        return
    for _, segment, node in notes.pruned.get(id(value), ()):
        notes.found.append(_null_field((*path, segment), node))


def _null_field(at: Path, node: _Node) -> SchemaError:
    """A pruned null, as a warning: the create path drops it, a server-side apply refuses it in these words."""
    from kubectl_testbench.load.positions import field_path

    where = field_path(at)
    return SchemaError(at, SCHEMA_NULL_FIELD.id, f'Invalid value: "null": {where} in body must be of type '
                       f'{_type_word(node)}: "null" (under a server-side apply; kubectl apply drops the field)',
                       hint="remove the line (kubectl testbench fix does), or give the field a value", key=True,
                       fix=Fix(FixKind.DELETE, at, None, f"remove {where}"))


def _type_word(node: _Node) -> str:
    return node.type or ("integer or string" if node.int_or_string else "value")


def _type_hint(value: Any, expected: str) -> str:
    if expected == "string" and isinstance(value, bool):
        return "YAML reads unquoted true/false/yes/no/on/off as booleans: quote the value"
    if expected == "string" and isinstance(value, (int, float)):
        return "YAML reads unquoted numbers as numbers: quote the value"
    if expected in ("number", "integer") and isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return ""
        if not math.isfinite(number):
            return "the number is out of range for a 64-bit float, so YAML reads it as text"
        return "remove the quotes to write a number"
    if expected == "array" and isinstance(value, dict):
        return "start each list item with '- '"
    if expected == "object" and isinstance(value, str) and ":" in value:
        return "put a space after the colon (key: value)"
    return ""


def _type_fix(value: Any, expected: str, path: Path) -> Fix | None:
    """A plain number or boolean in a string field is quoted as written (``yes``, ``0777``, ``1.10``); a number
    written as a string in a number field is unquoted. Never the other way round: a quoted ``"yes"`` in a
    boolean field stays an error, since what the user meant is not certain."""
    if expected == "string" and isinstance(value, (bool, int, float)):
        return Fix(FixKind.QUOTE, path, title="quote the value as written")
    if expected in ("number", "integer") and isinstance(value, str):
        if not NUMBER_TEXT.fullmatch(value):
            return Fix(FixKind.REPLACE, path, blocked=f"{show(value)} is not a number as JSON writes it")
        number = float(value)
        if expected == "integer" and not number.is_integer():
            return None
        if not math.isfinite(number):
            return None
        return Fix(FixKind.REPLACE, path, int(number) if number.is_integer() else number, f"write the number {value}")
    return None


def _rename_fix(key: str, props: dict[str, _Node] | None, obj: dict[str, Any], path: Path) -> Fix:
    """Rename a key that is a slip of exactly one known field (case, or 1–2 edits) when that field is not set."""
    return rename_fix(path, key, props or (), obj)


_TIME = re.compile(r"([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|[+-][0-9]{2}:[0-9]{2})\Z")
_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})\Z")


def _is_datetime(value: str) -> bool:
    """kube-openapi's strfmt.IsDateTime, quirks included: split at every "t" (any case), the part before the first
    is a full date, the part after it a time with seconds and an offset; what follows a second "t" is not read."""
    parts = value.lower().split("t")
    if len(parts) < 2 or not _is_date(parts[0]):
        return False
    m = _TIME.match(parts[1])
    return m is not None and m[1] <= "23" and m[2] <= "59" and m[3] <= "59"


def _is_date(text: str) -> bool:
    """Go's time.Parse("2006-01-02", text): four-digit year (0000 included), a day that exists in its month."""
    m = _DATE.match(text)
    if m is None:
        return False
    year, month, day = int(m[1]), int(m[2]), int(m[3])
    return 1 <= month <= 12 and 1 <= day <= _days_in_month(year, month)


def _days_in_month(year: int, month: int) -> int:
    """Days in ``month`` of the proleptic Gregorian ``year`` (year 0 is a leap year, as in Go)."""
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _suggest(key: str, props: dict[str, _Node] | None) -> str:
    if not props:
        return "this object takes no fields"
    lower = {p.lower(): p for p in props}
    if key.lower() in lower:
        return f'did you mean "{lower[key.lower()]}"? Field names are case-sensitive'
    import difflib

    close = difflib.get_close_matches(key, list(props), cutoff=0.7)  # best first
    if close:
        return f'did you mean "{close[0]}"?'
    return "known fields: " + ", ".join(sorted(props))


def _dotted(path: Path, key: PathSegment) -> str:
    from kubectl_testbench.load.positions import field_path

    return field_path((*path, key))


def show(value: Any, limit: int = 60) -> str:
    """A value as the API server quotes it in messages, shortened."""
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 4] + '..."'


_RE2_DOLLAR = re.compile(r"(\\.)|(\[(?:\\.|[^\]])*\])|(\$)")


def re2_to_python(pattern: str) -> str:
    """Translate an RE2 pattern to Python ``re``: ``$`` must not match before a trailing newline."""

    def repl(m: re.Match[str]) -> str:
        return r"\Z" if m.group(3) else m.group(0)

    return _RE2_DOLLAR.sub(repl, pattern)

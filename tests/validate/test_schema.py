"""The structural-schema validator behaves as the API server does, not as a generic JSON Schema tool."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_testbench.validate.schema import BLOCKING, SchemaValidator, re2_to_python


def errors(schema: dict[str, Any], value: Any) -> list[tuple[str, str]]:
    from kubectl_testbench.load.positions import field_path

    found, _ = SchemaValidator(schema).validate(value)
    return [(e.rule, field_path(e.path)) for e in found]


OBJ = {"type": "object", "properties": {
    "n": {"type": "integer"}, "x": {"type": "number", "minimum": 0, "maximum": 1},
    "s": {"type": "string", "pattern": "^a$"}, "list": {"type": "array", "items": {"type": "string"}},
    "free": {"x-kubernetes-preserve-unknown-fields": True}, "def": {"type": "string", "default": "d"},
    "ios": {"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]},
    "nul": {"type": "string", "nullable": True},
    "map": {"type": "object", "additionalProperties": {"type": "string"}},
}, "required": ["n"]}


def test_unknown_fields_are_errors_but_preserve_unknown_keeps_anything() -> None:
    assert errors(OBJ, {"n": 1, "bogus": 1, "free": {"any": [1, {"thing": None}]}}) == [
        ("schema/unknown-field", "bogus")]


def test_null_of_non_nullable_field_is_pruned_like_the_api_server() -> None:
    value = {"n": 1, "s": None, "nul": None}
    assert errors(OBJ, value) == []
    assert "s" not in value and value["nul"] is None


def test_required_null_is_missing() -> None:
    assert errors(OBJ, {"n": None}) == [("schema/required", "n")]


def test_defaults_are_applied_to_absent_fields() -> None:
    value = {"n": 1}
    errors(OBJ, value)
    assert value["def"] == "d"


def test_integer_accepts_integral_floats_only() -> None:
    assert errors(OBJ, {"n": 3.0}) == []
    assert errors(OBJ, {"n": 3.5}) == [("schema/type", "n")]
    assert errors(OBJ, {"n": True}) == [("schema/type", "n")], "booleans are not numbers"


def test_bounds_and_types() -> None:
    assert errors(OBJ, {"n": 1, "x": 1.01}) == [("schema/maximum", "x")]
    assert errors(OBJ, {"n": 1, "x": -0.01}) == [("schema/minimum", "x")]
    assert errors(OBJ, {"n": 1, "list": ["a", 2]}) == [("schema/type", "list[1]")]


def test_int_or_string() -> None:
    assert errors(OBJ, {"n": 1, "ios": 5}) == [] and errors(OBJ, {"n": 1, "ios": "5%"}) == []
    assert errors(OBJ, {"n": 1, "ios": 1.5}) == [("schema/type", "ios")]


def test_map_values_use_bracket_paths() -> None:
    assert errors(OBJ, {"n": 1, "map": {"a.b/c": 3}}) == [("schema/type", "map[a.b/c]")]


def test_re2_dollar_does_not_match_before_a_trailing_newline() -> None:
    assert errors(OBJ, {"n": 1, "s": "a"}) == []
    assert errors(OBJ, {"n": 1, "s": "a\n"}) == [("schema/pattern", "s")]
    assert re2_to_python(r"^a\$b[$]$") == r"^a\$b[$]\Z"


def test_blocking_errors_are_the_api_servers_list() -> None:
    assert {"schema/required", "schema/type", "schema/enum", "schema/max-length", "schema/max-items"} == BLOCKING


@pytest.mark.parametrize(("schema", "value", "rule"), [
    ({"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}}, ["a", "a"], "schema/duplicate"),
    ({"type": "string", "maxLength": 2}, "abc", "schema/max-length"),
    ({"type": "array", "maxItems": 1, "items": {"type": "integer"}}, [1, 2], "schema/max-items"),
    ({"type": "string", "format": "date-time"}, "yesterday", "schema/format"),
    ({"type": "string", "enum": ["A", "B"]}, "a", "schema/enum"),
])
def test_other_keywords(schema: dict[str, Any], value: Any, rule: str) -> None:
    assert [r for r, _ in errors(schema, value)] == [rule]

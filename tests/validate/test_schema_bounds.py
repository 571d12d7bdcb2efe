"""Every keyword of the structural-schema validator at its bounds, with the messages, hints and fixes users read.

The wording follows the API server's field errors (k8s.io/apimachinery field.Error, kube-openapi validation);
the date-time format is kube-openapi's strfmt.IsDateTime, checked against the Go function itself (see
test_date_time_is_kube_openapis_is_date_time).
"""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_testbench.load.positions import field_path
from kubectl_testbench.validate.diagnostics import Fix, FixKind
from kubectl_testbench.validate.schema import MAX_ERRORS, SchemaError, SchemaValidator


def found(schema: dict[str, Any], value: Any) -> list[tuple[str, str, str]]:
    """(rule, field path, message) of every error, in the validator's order."""
    errors, _ = SchemaValidator(schema).validate(value)
    return [(e.rule, field_path(e.path), e.message) for e in errors]


def only(schema: dict[str, Any], value: Any) -> SchemaError:
    errors, _ = SchemaValidator(schema).validate(value)
    assert len(errors) == 1, errors
    return errors[0]


def field(schema: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": {"f": schema}}


# --- numbers ------------------------------------------------------------------------------------------------

def test_minimum_is_inclusive_unless_exclusive() -> None:
    inclusive = field({"type": "integer", "minimum": 0})
    assert found(inclusive, {"f": 0}) == []
    assert found(inclusive, {"f": -1}) == [
        ("schema/minimum", "f", "Invalid value: -1: must be greater than or equal to 0")]
    exclusive = field({"type": "number", "minimum": 0, "exclusiveMinimum": True})
    assert found(exclusive, {"f": 0.5}) == []
    assert found(exclusive, {"f": 0}) == [("schema/minimum", "f", "Invalid value: 0: must be greater than 0")]


def test_maximum_is_inclusive_unless_exclusive() -> None:
    inclusive = field({"type": "integer", "maximum": 10})
    assert found(inclusive, {"f": 10}) == []
    assert found(inclusive, {"f": 11}) == [
        ("schema/maximum", "f", "Invalid value: 11: must be less than or equal to 10")]
    exclusive = field({"type": "number", "maximum": 1, "exclusiveMaximum": True})
    assert found(exclusive, {"f": 0.99}) == []
    assert found(exclusive, {"f": 1}) == [("schema/maximum", "f", "Invalid value: 1: must be less than 1")]


def test_multiple_of() -> None:
    schema = field({"type": "number", "multipleOf": 0.5})
    assert found(schema, {"f": 1.5}) == []
    assert found(schema, {"f": 1.25}) == [("schema/multiple-of", "f", "Invalid value: 1.25: must be a multiple of 0.5")]


# --- strings ------------------------------------------------------------------------------------------------

def test_min_length_bound_and_singular() -> None:
    two = field({"type": "string", "minLength": 2})
    assert found(two, {"f": "ab"}) == []
    assert found(two, {"f": "a"}) == [
        ("schema/min-length", "f", 'Invalid value: "a": must be at least 2 characters long')]
    one = field({"type": "string", "minLength": 1})
    assert found(one, {"f": "a"}) == []
    assert found(one, {"f": ""}) == [("schema/min-length", "f", 'Invalid value: "": must be at least 1 character long')]


def test_max_length_bound() -> None:
    schema = field({"type": "string", "maxLength": 2})
    assert found(schema, {"f": "ab"}) == []
    assert found(schema, {"f": "abc"}) == [("schema/max-length", "f", "Too long: may not be longer than 2")]


def test_pattern_message_quotes_the_pattern() -> None:
    assert found(field({"type": "string", "pattern": "^[a-z]+$"}), {"f": "A"}) == [
        ("schema/pattern", "f", "Invalid value: \"A\": must match '^[a-z]+$'")]


def test_long_values_are_shortened_in_messages_at_sixty_characters() -> None:
    schema = field({"type": "string", "pattern": "^a$"})
    fits = "b" * 58  # 60 characters with its quotes
    assert found(schema, {"f": fits}) == [("schema/pattern", "f", f"Invalid value: \"{fits}\": must match '^a$'")]
    longer = "b" * 59
    assert found(schema, {"f": longer}) == [
        ("schema/pattern", "f", f"Invalid value: \"{'b' * 55}...\": must match '^a$'")]


@pytest.mark.parametrize(("text", "valid"), [
    ("2024-01-01T00:00:00Z", True),
    ("2024-01-01t00:00:00z", True),
    ("2024-01-01T23:59:59Z", True),
    ("2024-01-01T00:00:00.5+01:00", True),
    ("2024-01-01T00:00:00,5Z", True),  # kube-openapi's pattern reads any character before the fraction
    ("2024-01-01T00:00:00-23:59", True),
    ("2024-01-01T00:00:00Zt junk", True),  # IsDateTime looks only at the text between the first two "t"s
    ("2024-01-01T00:00:00", False),  # no offset
    ("2024-01-01T00:00Z", False),  # no seconds
    ("2024-01-01T24:00:00Z", False),
    ("2024-01-01T00:60:00Z", False),
    ("2024-01-01T00:00:60Z", False),
    ("2024-01-01 00:00:00Z", False),
    ("20240101T000000Z", False),
    ("2024-02-30T00:00:00Z", False),
    ("2024-01-01T00:00:00+0100", False),
    ("2024-01-01T00:00:00Z trailing", False),
    ("2024-01-01T0:00:00Z", False),
    ("2024-01-01TT00:00:00Z", False),
    ("0000-02-29T00:00:00Z", True),  # Go's calendar: year 0 exists and is a leap year
    ("2024-02-29T00:00:00Z", True),
    ("2000-02-29T00:00:00Z", True),
    ("2023-02-29T00:00:00Z", False),
    ("1900-02-29T00:00:00Z", False),
    ("2024-12-31T00:00:00Z", True),
    ("2024-03-31T00:00:00Z", True),
    ("2024-04-30T00:00:00Z", True),
    ("2024-04-31T00:00:00Z", False),
    ("2024-06-31T00:00:00Z", False),
    ("2024-09-31T00:00:00Z", False),
    ("2024-11-31T00:00:00Z", False),
    ("2024-01-32T00:00:00Z", False),
    ("2024-13-01T00:00:00Z", False),
    ("2024-00-01T00:00:00Z", False),
    ("2024-01-00T00:00:00Z", False),
    ("2024-01-01T00:00:00.Z", False),
    ("2024-1-01T00:00:00Z", False),
    ("24-01-01T00:00:00Z", False),
    ("2024/01/01T00:00:00Z", False),
    ("yesterday", False),
])
def test_date_time_is_kube_openapis_is_date_time(text: str, valid: bool) -> None:
    """The expected values are what k8s.io/kube-openapi/pkg/validation/strfmt.IsDateTime answers (run on the
    Debian package golang-k8s-kube-openapi-dev for each of these strings)."""
    schema = field({"type": "string", "format": "date-time"})
    expected = [] if valid else [
        ("schema/format", "f", f"Invalid value: \"{text}\": must be an RFC 3339 date-time")]
    assert found(schema, {"f": text}) == expected


# --- arrays -------------------------------------------------------------------------------------------------

def test_min_items_bound_and_singular() -> None:
    two = field({"type": "array", "minItems": 2, "items": {"type": "integer"}})
    assert found(two, {"f": [1, 2]}) == []
    assert found(two, {"f": [1]}) == [("schema/min-items", "f", "Invalid value: 1 items: must have at least 2 items")]
    one = field({"type": "array", "minItems": 1, "items": {"type": "integer"}})
    assert found(one, {"f": [1]}) == []
    assert found(one, {"f": []}) == [("schema/min-items", "f", "Invalid value: 0 items: must have at least 1 item")]


def test_max_items_bound() -> None:
    schema = field({"type": "array", "maxItems": 1, "items": {"type": "integer"}})
    assert found(schema, {"f": [1]}) == []
    assert found(schema, {"f": [1, 2]}) == [("schema/max-items", "f", "Too many: 2: must have at most 1 items")]


def test_set_reports_each_repeat_at_its_index() -> None:
    schema = field({"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}})
    assert found(schema, {"f": ["a", "b"]}) == []
    assert found(schema, {"f": ["a", "b", "a"]}) == [("schema/duplicate", "f[2]", 'Duplicate value: "a"')]


def test_map_list_repeats_its_keys_not_its_items() -> None:
    schema = field({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                    "items": {"type": "object", "properties": {"name": {"type": "string"},
                                                               "v": {"type": "integer"}}}})
    assert found(schema, {"f": [{"name": "a", "v": 1}, {"name": "b", "v": 1}]}) == []
    assert found(schema, {"f": [{"name": "a", "v": 1}, {"name": "a", "v": 2}]}) == [
        ("schema/duplicate", "f[1]", 'Duplicate value: ["a"]')]


# --- objects ------------------------------------------------------------------------------------------------

def test_min_and_max_properties_bounds() -> None:
    schema = field({"type": "object", "minProperties": 1, "maxProperties": 2,
                    "additionalProperties": {"type": "string"}})
    assert found(schema, {"f": {"a": "1"}}) == []
    assert found(schema, {"f": {"a": "1", "b": "2"}}) == []
    assert found(schema, {"f": {}}) == [("schema/min-properties", "f", "must have at least 1 properties")]
    assert found(schema, {"f": {"a": "1", "b": "2", "c": "3"}}) == [
        ("schema/max-properties", "f", "must have at most 2 properties")]


def test_null_map_values_are_pruned_unless_nullable() -> None:
    strict = field({"type": "object", "additionalProperties": {"type": "string"}})
    value: dict[str, Any] = {"f": {"a": None, "b": "x"}}
    assert found(strict, value) == []
    assert value == {"f": {"b": "x"}}
    nullable = field({"type": "object", "additionalProperties": {"type": "string", "nullable": True}})
    value = {"f": {"a": None}}
    assert found(nullable, value) == []
    assert value == {"f": {"a": None}}


def test_additional_properties_true_and_preserve_keep_unknown_keys() -> None:
    assert found(field({"type": "object", "additionalProperties": True}), {"f": {"any": 1}}) == []
    assert found(field({"type": "object", "x-kubernetes-preserve-unknown-fields": True,
                        "properties": {"a": {"type": "string"}}}), {"f": {"a": "x", "any": 1}}) == []


@pytest.mark.parametrize(("schema", "key", "hint"), [
    ({"type": "object"}, "x", "this object takes no fields"),
    ({"type": "object", "properties": {"dataset": {"type": "string"}}}, "Dataset",
     'did you mean "dataset"? Field names are case-sensitive'),
    ({"type": "object", "properties": {"dataset": {"type": "string"}, "other": {"type": "string"}}}, "datset",
     'did you mean "dataset"?'),
    ({"type": "object", "properties": {"zeta": {"type": "string"}, "alpha": {"type": "string"}}}, "qqqq",
     "known fields: alpha, zeta"),
    ({"type": "object", "properties": {"dataset": {"type": "string"}}}, "dtst", 'did you mean "dataset"?'),
    ({"type": "object", "properties": {"dataset": {"type": "string"}}}, "dat", "known fields: dataset"),  # 0.6 alike
])
def test_unknown_field_hints(schema: dict[str, Any], key: str, hint: str) -> None:
    err = only(field(schema), {"f": {key: "v"}})
    assert (err.rule, field_path(err.path), err.message, err.hint, err.key) == (
        "schema/unknown-field", f"f.{key}", f'unknown field "f.{key}"', hint, True)


def test_unknown_field_suggests_only_the_closest_field() -> None:
    schema = field({"type": "object", "properties": {"names": {"type": "string"}, "named": {"type": "string"}}})
    assert only(schema, {"f": {"namez": "v"}}).hint == 'did you mean "names"?'


def test_unknown_field_fix_renames_a_slip_of_one_field() -> None:
    schema = field({"type": "object", "properties": {"dataset": {"type": "string"}}})
    assert only(schema, {"f": {"datset": "v"}}).fix == Fix(FixKind.RENAME_KEY, ("f", "datset"), "dataset",
                                                           'rename "datset" to "dataset"')
    assert only(field({"type": "object"}), {"f": {"x": 1}}).fix == Fix(
        FixKind.RENAME_KEY, ("f", "x"), None, blocked="no known field is within two edits of it")


def test_a_hopeless_document_stops_at_the_error_limit() -> None:
    value = {f"k{i}": i for i in range(MAX_ERRORS + 5)}
    errors, _ = SchemaValidator({"type": "object", "properties": {"a": {"type": "string"}}}).validate(value)
    assert len(errors) == MAX_ERRORS
    pruned = {"type": "object", "properties": {"f": {"type": "array", "items": {"type": "string"}}}}
    errors, _ = SchemaValidator(pruned).validate({"f": {f"k{i}": i for i in range(MAX_ERRORS + 5)}})
    assert len(errors) == MAX_ERRORS and errors[0].rule == "schema/type"


# --- wrong types: messages, hints, fixes ----------------------------------------------------------------------

@pytest.mark.parametrize(("expected", "value", "message", "hint"), [
    ("string", True, "Invalid value: true: must be of type string",
     "YAML reads unquoted true/false/yes/no/on/off as booleans: quote the value"),
    ("string", 1.5, "Invalid value: 1.5: must be of type string",
     "YAML reads unquoted numbers as numbers: quote the value"),
    ("string", [1], "Invalid value: array: must be of type string", ""),
    ("integer", "5", 'Invalid value: "5": must be of type integer', "remove the quotes to write a number"),
    ("number", "1e999", 'Invalid value: "1e999": must be of type number',
     "the number is out of range for a 64-bit float, so YAML reads it as text"),
    ("number", "nan", 'Invalid value: "nan": must be of type number',
     "the number is out of range for a 64-bit float, so YAML reads it as text"),
    ("number", "abc", 'Invalid value: "abc": must be of type number', ""),
    ("boolean", "true", 'Invalid value: "true": must be of type boolean', ""),
    ("array", {"a": 1}, "Invalid value: object: must be of type array", "start each list item with '- '"),
    ("array", "x", 'Invalid value: "x": must be of type array', ""),
    ("object", "a:b", 'Invalid value: "a:b": must be of type object', "put a space after the colon (key: value)"),
    ("object", "ab", 'Invalid value: "ab": must be of type object', ""),
    ("object", 5, "Invalid value: 5: must be of type object", ""),
])
def test_type_errors_say_what_yaml_did(expected: str, value: Any, message: str, hint: str) -> None:
    err = SchemaValidator(field({"type": expected})).validate({"f": value})[0][0]  # then the pruned keys
    assert (err.rule, err.message, err.hint) == ("schema/type", message, hint)


@pytest.mark.parametrize(("expected", "value", "fix"), [
    ("string", True, Fix(FixKind.QUOTE, ("f",), None, "quote the value as written")),
    ("string", 10, Fix(FixKind.QUOTE, ("f",), None, "quote the value as written")),
    ("integer", "5", Fix(FixKind.REPLACE, ("f",), 5, "write the number 5")),
    ("integer", "5.0", Fix(FixKind.REPLACE, ("f",), 5, "write the number 5.0")),
    ("integer", "5.5", None),
    ("number", "0.8", Fix(FixKind.REPLACE, ("f",), 0.8, "write the number 0.8")),
    ("number", "1e999", None),
    ("number", "0x10", Fix(FixKind.REPLACE, ("f",), None, blocked='"0x10" is not a number as JSON writes it')),
    ("boolean", "yes", None),
    ("integer", True, None),
    ("boolean", 1, None),
    ("object", "x", None),
])
def test_type_fixes_only_where_the_repair_is_certain(expected: str, value: Any, fix: Fix | None) -> None:
    err = only(field({"type": expected}), {"f": value})
    assert err.fix == fix
    if fix is not None and fix.value is not None:
        assert type(err.fix.value) is type(fix.value)  # type: ignore[union-attr]


def test_wrong_type_for_int_or_string() -> None:
    schema = field({"x-kubernetes-int-or-string": True})
    assert found(schema, {"f": True}) == [("schema/type", "f", "Invalid value: true: must be an integer or a string")]
    assert found(schema, {"f": {"a": 1}}) == [
        ("schema/type", "f", "Invalid value: object: must be an integer or a string"),
        ("schema/unknown-field", "f.a", 'unknown field "f.a"')]
    assert found(schema, {"f": 2.0}) == []


def test_null_items_name_the_type_they_lack() -> None:
    assert found(field({"type": "array", "items": {"type": "string"}}), {"f": [None]}) == [
        ("schema/type", "f[0]", "Invalid value: null: must be of type string")]
    assert found(field({"type": "array", "items": {"x-kubernetes-int-or-string": True}}), {"f": [None]}) == [
        ("schema/type", "f[0]", "Invalid value: null: must be of type integer or string")]
    assert found(field({"type": "array", "items": {"type": "string", "nullable": True}}), {"f": [None]}) == []
    assert found(field({"type": "array", "items": {}}), {"f": [None]}) == [
        ("schema/type", "f[0]", "Invalid value: null: must be of type value")]  # only a non-structural schema


def test_enum_message_hint_and_fix() -> None:
    schema = field({"type": "string", "enum": ["Allow", "Deny"]})
    err = only(schema, {"f": "allow"})
    assert (err.rule, err.message, err.hint, err.fix) == (
        "schema/enum", 'Unsupported value: "allow": supported values: "Allow", "Deny"',
        'did you mean "Allow"? Values are case-sensitive', Fix(FixKind.REPLACE, ("f",), "Allow", 'write "Allow"'))
    err = only(schema, {"f": "maybe"})
    assert (err.hint, err.fix) == ("", Fix(FixKind.REPLACE, ("f",), None,
                                           blocked="no allowed value matches it ignoring case"))
    err = only(field({"type": "string", "enum": ["Ab", "aB"]}), {"f": "ab"})
    assert (err.hint, err.fix) == ('did you mean "Ab"? Values are case-sensitive', Fix(
        FixKind.REPLACE, ("f",), None, blocked="no allowed value matches it ignoring case"))
    assert only(field({"type": "integer", "enum": [1, 2]}), {"f": 3}).fix is None


# --- pruning of values of the wrong type ------------------------------------------------------------------------

def test_an_object_where_a_list_is_expected_loses_every_key() -> None:
    schema = field({"type": "array", "items": {"type": "object", "properties": {"a": {"type": "string"}}}})
    assert found(schema, {"f": {"a": "b", "c": 1}}) == [
        ("schema/type", "f", "Invalid value: object: must be of type array"),
        ("schema/unknown-field", "f.a", 'unknown field "f.a"'),
        ("schema/unknown-field", "f.c", 'unknown field "f.c"')]


def test_a_list_where_an_object_is_expected_has_its_items_pruned() -> None:
    schema = field({"type": "object", "properties": {"x": {"type": "string"}}})
    assert found(schema, {"f": [{"x": "1"}]}) == [
        ("schema/type", "f", "Invalid value: array: must be of type object"),
        ("schema/unknown-field", "f[0].x", 'unknown field "f[0].x"')]


def test_pruning_follows_declared_fields_and_additional_properties() -> None:
    schema = field({"type": "array", "items": {"type": "string"}})
    schema["properties"]["g"] = {"type": "string", "x-kubernetes-preserve-unknown-fields": True,
                                 "properties": {"k": {"type": "object", "properties": {"z": {"type": "string"}}}},
                                 "items": {"type": "object", "properties": {"z": {"type": "string"}}}}
    schema["properties"]["m"] = {"type": "string", "additionalProperties": {"type": "object",
                                                                             "properties": {"z": {"type": "string"}}}}
    assert found(schema, {"g": {"k": {"z": "1", "q": 1}, "other": {"q": 1}}}) == [
        ("schema/type", "g", "Invalid value: object: must be of type string"),
        ("schema/unknown-field", "g.k.q", 'unknown field "g.k.q"')]
    assert found(schema, {"g": [{"z": "1", "q": 1}]}) == [
        ("schema/type", "g", "Invalid value: array: must be of type string"),
        ("schema/unknown-field", "g[0].q", 'unknown field "g[0].q"')]
    assert found(schema, {"m": {"a": {"z": "1", "q": 1}}}) == [
        ("schema/type", "m", "Invalid value: object: must be of type string"),
        ("schema/unknown-field", "m.a.q", 'unknown field "m.a.q"')]


# --- combinators ------------------------------------------------------------------------------------------------

def test_all_of_applies_every_schema() -> None:
    schema = field({"type": "integer", "allOf": [{"minimum": 1}, {"maximum": 3}]})
    assert found(schema, {"f": 2}) == []
    assert found(schema, {"f": 0}) == [("schema/minimum", "f", "Invalid value: 0: must be greater than or equal to 1")]
    assert found(schema, {"f": 4}) == [("schema/maximum", "f", "Invalid value: 4: must be less than or equal to 3")]


def test_any_of_needs_one_match() -> None:
    schema = field({"type": "integer", "anyOf": [{"maximum": 1}, {"minimum": 10}]})
    assert found(schema, {"f": 0}) == [] and found(schema, {"f": 10}) == []
    assert found(schema, {"f": 5}) == [
        ("schema/any-of", "f", "Invalid value: 5: must match at least one of the allowed schemas (anyOf)")]


def test_alternatives_are_tried_down_to_their_nested_fields() -> None:
    schema = field({"type": "object", "x-kubernetes-preserve-unknown-fields": True, "anyOf": [
        {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
        {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"]}]})
    assert found(schema, {"f": {"a": "x"}}) == [] and found(schema, {"f": {"b": 1}}) == []
    assert found(schema, {"f": {"a": 1}}) == [
        ("schema/any-of", "f", "Invalid value: object: must match at least one of the allowed schemas (anyOf)")]


def test_one_of_needs_exactly_one_match() -> None:
    schema = field({"type": "integer", "oneOf": [{"maximum": 5}, {"minimum": 3}]})
    assert found(schema, {"f": 1}) == [] and found(schema, {"f": 9}) == []
    message = "must match exactly one of the allowed schemas (oneOf)"
    assert found(schema, {"f": 4}) == [("schema/any-of", "f", f"Invalid value: 4: {message}")]
    none = field({"type": "integer", "oneOf": [{"maximum": 1}, {"minimum": 10}]})
    assert found(none, {"f": 5}) == [("schema/any-of", "f", f"Invalid value: 5: {message}")]


def test_not_rejects_what_matches() -> None:
    schema = field({"type": "integer", "not": {"minimum": 5}})
    assert found(schema, {"f": 4}) == []
    assert found(schema, {"f": 5}) == [("schema/not", "f", "Invalid value: 5: must not match the schema")]


def test_trying_an_alternative_leaves_the_value_as_written() -> None:
    """anyOf/oneOf/not try each schema on a copy: its defaults and pruning must not leak into the document."""
    alternative = {"type": "object", "properties": {"a": {"type": "string", "default": "x"},
                                                    "b": {"type": "string"}}}
    schema = field({"type": "object", "x-kubernetes-preserve-unknown-fields": True,
                    "anyOf": [alternative], "oneOf": [alternative],
                    "not": {"type": "object", "x-kubernetes-preserve-unknown-fields": True, "required": ["b"]}})
    value: dict[str, Any] = {"f": {"b": None}}
    assert found(schema, value) == [("schema/not", "f", "Invalid value: object: must not match the schema")]
    assert value == {"f": {"b": None}}


def test_int_or_string_any_of_is_not_reported_again() -> None:
    schema = field({"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]})
    assert found(schema, {"f": 5}) == [] and found(schema, {"f": "5%"}) == []


# --- root fields --------------------------------------------------------------------------------------------

STATUS = {"type": "object", "properties": {
    "spec": {"type": "object", "properties": {"a": {"type": "string"}}},
    "status": {"type": "object", "properties": {"phase": {"type": "string"}}, "required": ["phase"]},
}}


def test_skipped_root_fields_are_not_validated() -> None:
    validator = SchemaValidator(STATUS, skip_root_fields=("status", "absent"))
    errors, _ = validator.validate({"spec": {"a": "x"}, "status": {"phase": 1, "bogus": True}, "absent": 1})
    assert errors == []
    errors, _ = SchemaValidator(STATUS).validate({"status": {"phase": 1}})
    assert [(e.rule, field_path(e.path)) for e in errors] == [("schema/type", "status.phase")]


def test_unknown_fields_of_a_dropped_root_field() -> None:
    validator = SchemaValidator(STATUS, skip_root_fields=("metadata",))
    errors = validator.unknown_fields("status", {"phase": "x", "bogus": {"deep": 1}})
    assert [(e.rule, field_path(e.path), e.message, e.key) for e in errors] == [
        ("schema/unknown-field", "status.bogus", 'unknown field "status.bogus"', True)]
    assert validator.unknown_fields("nothing", {"bogus": 1}) == []
    assert SchemaValidator({"type": "object"}).unknown_fields("status", {"bogus": 1}) == []


def test_cel_targets_are_the_nodes_with_rules() -> None:
    rule = {"rule": "self.a != ''"}
    schema = {"type": "object", "properties": {"s": {"type": "object", "x-kubernetes-validations": [rule],
                                                     "properties": {"a": {"type": "string"}}}}}
    _, targets = SchemaValidator(schema).validate({"s": {"a": "x"}})
    assert [(t.path, t.value, t.schema["x-kubernetes-validations"]) for t in targets] == [(("s",), {"a": "x"}, [rule])]


# --- every key of an object is checked, whatever came before it ---------------------------------------------------

def test_later_keys_are_checked_after_skipped_pruned_allowed_and_unknown_ones() -> None:
    schema = {"type": "object", "properties": {
        "s": {"type": "string"}, "n": {"type": "integer"},
        "m": {"type": "object", "additionalProperties": {"type": "integer"}},
        "free": {"type": "object", "additionalProperties": True, "properties": {"a": {"type": "integer"}}},
        "kept": {"type": "object", "x-kubernetes-preserve-unknown-fields": True,
                 "properties": {"a": {"type": "integer"}}},
    }}
    value = {"skipped": 1, "s": None, "m": {"x": None, "y": "1"}, "free": {"any": 1, "a": "1"},
             "kept": {"any": 1, "a": "1"}, "u1": 1, "u2": 2, "n": "1"}
    errors, _ = SchemaValidator(schema, skip_root_fields=("skipped",)).validate(value)
    assert [(e.rule, field_path(e.path)) for e in errors] == [
        ("schema/type", "m[y]"), ("schema/type", "free.a"), ("schema/type", "kept.a"),
        ("schema/unknown-field", "u1"), ("schema/unknown-field", "u2"), ("schema/type", "n")]
    assert "s" not in value and value["m"] == {"y": "1"} and value["skipped"] == 1


def test_nothing_more_is_checked_once_the_error_limit_is_reached() -> None:
    value: dict[str, Any] = {f"k{i}": i for i in range(MAX_ERRORS)}
    value["n"] = "not a number"
    errors, _ = SchemaValidator({"type": "object", "properties": {"n": {"type": "integer"}}}).validate(value)
    assert len(errors) == MAX_ERRORS and errors[-1].rule == "schema/unknown-field"


def test_cel_targets_inside_lists_and_maps() -> None:
    rule = {"rule": "self > 0"}
    schema = {"type": "object", "properties": {
        "l": {"type": "array", "items": {"type": "integer", "x-kubernetes-validations": [rule]}},
        "m": {"type": "object", "additionalProperties": {"type": "integer", "x-kubernetes-validations": [rule]}}}}
    _, targets = SchemaValidator(schema).validate({"l": [1, 2], "m": {"a": 3}})
    assert [(field_path(t.path), t.value) for t in targets] == [("l[0]", 1), ("l[1]", 2), ("m[a]", 3)]


def test_set_items_are_compared_as_values_not_as_written() -> None:
    schema = field({"type": "array", "x-kubernetes-list-type": "set",
                    "items": {"type": "object", "x-kubernetes-map-type": "atomic",
                              "x-kubernetes-preserve-unknown-fields": True}})
    assert found(schema, {"f": [{"a": 1, "b": 2}, {"b": 2, "a": 1}]}) == [
        ("schema/duplicate", "f[1]", "Duplicate value: object")]


def test_map_keys_count_only_for_map_lists() -> None:
    schema = field({"type": "array", "x-kubernetes-list-type": "atomic", "x-kubernetes-list-map-keys": ["name"],
                    "items": {"type": "object", "properties": {"name": {"type": "string"}}}})
    assert found(schema, {"f": [{"name": "a"}, {"name": "a"}]}) == []


def test_messages_keep_non_ascii_text_readable() -> None:
    assert found(field({"type": "string", "enum": ["Grüße"]}), {"f": "Grüsse"}) == [
        ("schema/enum", "f", 'Unsupported value: "Grüsse": supported values: "Grüße"')]


def test_a_free_form_int_or_string_keeps_the_keys_of_a_wrong_value() -> None:
    schema = field({"x-kubernetes-int-or-string": True, "x-kubernetes-preserve-unknown-fields": True})
    assert found(schema, {"f": {"a": 1}}) == [
        ("schema/type", "f", "Invalid value: object: must be an integer or a string")]


def test_pruning_inside_a_free_form_value_follows_declared_lists() -> None:
    schema = field({"type": "string", "x-kubernetes-preserve-unknown-fields": True, "properties": {
        "l": {"type": "array", "items": {"type": "object", "properties": {"z": {"type": "string"}}}}}})
    assert found(schema, {"f": {"l": [{"z": "1", "q": 1}]}}) == [
        ("schema/type", "f", "Invalid value: object: must be of type string"),
        ("schema/unknown-field", "f.l[0].q", 'unknown field "f.l[0].q"')]
    free_list = field({"type": "array", "x-kubernetes-preserve-unknown-fields": True,
                       "items": {"type": "object", "properties": {"z": {"type": "string"}}}})
    assert found(free_list, {"f": 5}) == [("schema/type", "f", "Invalid value: 5: must be of type array")]

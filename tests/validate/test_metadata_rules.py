"""ObjectMeta validation branch by branch (ValidateObjectMetaAccessor and metav1.ObjectMeta's decoding): each
finding's path, rule and message as the user reads it, and every size bound at the limit and one past it."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_testbench.load.positions import field_path
from kubectl_testbench.validate.diagnostics import FixKind
from kubectl_testbench.validate.metadata import check_metadata

Finding = tuple[str, str, str]
LABEL_CHARS = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
               "must start and end with an alphanumeric character")
NAME_PART = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
             "alphanumeric character")


def findings(**meta: Any) -> list[Finding]:
    return [(field_path(e.path), e.rule, e.message) for e in check_metadata({"name": "exp", **meta})]


# --- labels ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("labels", "shown"), [(["a"], "array"), ("a=b", '"a=b"'), (3, "3")])
def test_labels_that_are_not_a_map_are_one_type_error(labels: Any, shown: str) -> None:
    assert findings(labels=labels) == [
        ("metadata.labels", "metadata/type", f"Invalid value: {shown}: labels must be a map of strings")]


def test_label_keys_are_qualified_names_checked_as_written() -> None:
    [error] = check_metadata({"name": "exp", "labels": {"-app": "x"}})
    assert (field_path(error.path), error.rule, error.key) == ("metadata.labels[-app]", "metadata/labels", True)
    assert error.message == f'Invalid value: "-app": {NAME_PART}'
    assert findings(labels={"Example.COM/owner": "me"}) == [
        ("metadata.labels[Example.COM/owner]", "metadata/labels", 'Invalid value: "Example.COM/owner": prefix part '
         "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
         "start and end with an alphanumeric character (e.g. 'example.com')")]
    assert findings(labels={"example.com/Owner_1.x": "me", "app": ""}) == []


def test_label_values_up_to_63_characters() -> None:
    assert findings(labels={"app": "v" * 63}) == []
    assert findings(labels={"app": "v" * 64}) == [
        ("metadata.labels[app]", "metadata/labels", f'Invalid value: "{"v" * 55}...": must be no more than 63 '
         "characters")]
    assert findings(labels={"app": "-v"}) == [("metadata.labels[app]", "metadata/labels",
                                               f'Invalid value: "-v": {LABEL_CHARS}')]


def test_a_label_that_is_wrong_in_key_and_value_gets_both_findings() -> None:
    assert [rule for _, rule, _ in findings(labels={"-app": "-v"})] == ["metadata/labels", "metadata/labels"]


def test_label_and_annotation_values_must_be_strings_and_are_quoted_by_fix() -> None:
    errors = list(check_metadata({"name": "exp", "labels": {"tier": 5, "unset": None},
                                  "annotations": {"on": True, "obj": {"a": 1}}}))
    assert [(field_path(e.path), e.rule, e.message, e.hint) for e in errors] == [
        ("metadata.labels[tier]", "metadata/type", "Invalid value: 5: label tier must be a string", "quote the value"),
        ("metadata.annotations[on]", "metadata/type", "Invalid value: true: annotation on must be a string",
         "quote the value"),
        ("metadata.annotations[obj]", "metadata/type", "Invalid value: object: annotation obj must be a string",
         "quote the value"),
    ]
    assert [e.fix.kind if e.fix else None for e in errors] == [FixKind.QUOTE, FixKind.QUOTE, None]


# --- annotations ----------------------------------------------------------------------------------------------


def test_annotation_keys_are_checked_lower_cased() -> None:
    assert findings(annotations={"Example.COM/Note": "x"}) == []
    errors = list(check_metadata({"name": "exp", "annotations": {"bad key": "x", "/x": "y", "ok": "z"}}))
    assert [(field_path(e.path), e.rule, e.message, e.key) for e in errors] == [
        ("metadata.annotations[bad key]", "metadata/annotations", f'Invalid value: "bad key": {NAME_PART}', True),
        ("metadata.annotations[/x]", "metadata/annotations", 'Invalid value: "/x": prefix part must be non-empty',
         True),
    ]


@pytest.mark.parametrize("annotations", [["a"], "a: b"])
def test_annotations_that_are_not_a_map_are_one_type_error(annotations: Any) -> None:
    [(path, rule, message)] = findings(annotations=annotations)
    assert (path, rule) == ("metadata.annotations", "metadata/type")
    assert message.endswith(": annotations must be a map of strings")


TOO_LONG = ("metadata.annotations", "metadata/annotations", "Too long: must have at most 262144 bytes")


def test_annotations_total_at_most_256_kib_counting_keys_and_values_in_bytes() -> None:
    assert findings(annotations={"a": "x" * (262144 - 1)}) == []
    assert findings(annotations={"a": "x" * 262144}) == [TOO_LONG]
    assert findings(annotations={"ab": "x" * 131071, "c": "y" * 131070}) == []
    assert findings(annotations={"ab": "x" * 131071, "cd": "y" * 131070}) == [TOO_LONG]
    # bytes, not characters: 131072 two-byte characters are 262144 bytes
    assert findings(annotations={"a": "é" * 131072}) == [TOO_LONG]


def test_a_non_string_annotation_value_is_a_type_error_not_a_size() -> None:
    assert findings(annotations={"a": 7, "b": "x" * 262142}) == [
        ("metadata.annotations[a]", "metadata/type", "Invalid value: 7: annotation a must be a string")]

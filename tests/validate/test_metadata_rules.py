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


# --- every finding in full: path, rule, message, hint, key position, fix -------------------------------------

Full = tuple[str, str, str, str, bool, tuple[str, str, Any, str, str] | None]
SUBDOMAIN = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
             "start and end with an alphanumeric character (e.g. 'example.com')")
RFC3339 = "must be an RFC 3339 date-time such as 2024-01-02T15:04:05Z"
SET_BY_SERVER = "or remove it: the API server sets it"
NEEDS_NAME = ("metadata.name", "metadata/name-required", 'Required value: "name" must be set', "", False, None)


def full(meta: Any) -> list[Full]:
    out: list[Full] = []
    for e in check_metadata(meta):
        fix = None if e.fix is None else (e.fix.kind.value, field_path(e.fix.path), e.fix.value, e.fix.title,
                                          e.fix.blocked)
        out.append((field_path(e.path), e.rule, e.message, e.hint, e.key, fix))
    return out


MANAGED_FIELDS_SET: Full = (
    "metadata.managedFields", "metadata/managed-fields-set", "metadata.managedFields is set: a create replaces it "
    "with the server's record, a server-side apply refuses the object (metadata.managedFields must be nil)",
    "remove metadata.managedFields (it was copied from a cluster)", True,
    ("delete", "metadata.managedFields", None, "remove metadata.managedFields", ""))
"""What any managedFields in a manifest also gets (a server-side apply refuses them: 'must be nil')."""


def quote(path: str) -> tuple[str, str, None, str, str]:
    return ("quote", path, None, "quote the value as written", "")


def test_metadata_that_is_not_an_object() -> None:
    assert full("x") == [("metadata", "metadata/type", 'Invalid value: "x": metadata must be an object', "", False,
                          None)]
    assert full([1]) == [("metadata", "metadata/type", "Invalid value: array: metadata must be an object", "", False,
                          None)]
    assert full(None) == [NEEDS_NAME]


def test_unknown_fields_point_at_the_key_with_a_rename_fix() -> None:
    assert full({"nmae": "x"}) == [
        ("metadata.nmae", "metadata/unknown-field", 'unknown field "metadata.nmae"', "", True,
         ("rename-key", "metadata.nmae", "name", 'rename "nmae" to "name"', "")),
        NEEDS_NAME]
    assert full({"name": "a", "Name": "b"}) == [
        ("metadata.Name", "metadata/unknown-field", 'unknown field "metadata.Name"',
         'did you mean "name"? Field names are case-sensitive', True,
         ("rename-key", "metadata.Name", None, "", '"name" is set already: keep one of the two'))]
    assert full({"name": "a", "zzzzzz": 1}) == [
        ("metadata.zzzzzz", "metadata/unknown-field", 'unknown field "metadata.zzzzzz"', "", True,
         ("rename-key", "metadata.zzzzzz", None, "", "no known field is within two edits of it"))]


def test_null_is_unset_for_every_field() -> None:
    assert full({"name": "a", "labels": None, "generation": None, "creationTimestamp": None, "finalizers": None,
                 "ownerReferences": None, "namespace": None, "annotations": None}) == []


@pytest.mark.parametrize(("field", "value", "shown", "fixed"), [
    ("name", 5, "5", True), ("namespace", True, "true", True), ("selfLink", 1.5, "1.5", True),
    ("uid", [1], "array", False), ("resourceVersion", {"a": 1}, "object", False),
])
def test_string_fields(field: str, value: Any, shown: str, fixed: bool) -> None:
    meta = {"name": "a", field: value}
    assert full(meta)[0] == (f"metadata.{field}", "metadata/type", f"Invalid value: {shown}: metadata.{field} must "
                             "be a string", "quote the value", False, quote(f"metadata.{field}") if fixed else None)


@pytest.mark.parametrize(("value", "shown", "hint"), [
    ("3", '"3"', "remove the quotes"), (1.5, "1.5", ""), (True, "true", ""),
    (2**63, "9223372036854775808", ""), (-(2**63) - 1, "-9223372036854775809", ""),
])
def test_integer_fields_are_int64(value: Any, shown: str, hint: str) -> None:
    for field in ("generation", "deletionGracePeriodSeconds"):
        assert full({"name": "a", field: value}) == [
            (f"metadata.{field}", "metadata/type", f"Invalid value: {shown}: metadata.{field} must be an integer", hint,
             False, None)]


def test_int64_bounds_themselves_are_accepted() -> None:
    assert full({"name": "a", "generation": 2**63 - 1, "deletionGracePeriodSeconds": -(2**63)}) == []


@pytest.mark.parametrize(("value", "shown"), [("2024-01-02", '"2024-01-02"'), (5, "5")])
def test_timestamps(value: Any, shown: str) -> None:
    for field in ("creationTimestamp", "deletionTimestamp"):
        assert full({"name": "a", field: value}) == [
            (f"metadata.{field}", "metadata/timestamp", f"Invalid value: {shown}: metadata.{field} {RFC3339}",
             SET_BY_SERVER, False, None)]


@pytest.mark.parametrize(("text", "ok"), [
    ("2024-01-02T15:04:05Z", True), ("2024-01-02T15:04:05.123+01:00", True), ("2024-02-29T00:00:00Z", True),
    ("2024-12-31T23:59:59-23:59", True),
    ("2023-02-29T00:00:00Z", False), ("2024-13-01T00:00:00Z", False), ("2024-01-02T24:00:00Z", False),
    ("2024-01-02T15:60:00Z", False), ("2024-01-02T15:04:60Z", False), ("2024-01-02T15:04:05+24:00", False),
    ("2024-01-02T15:04:05+01:60", False), ("2024-01-02T15:04:05", False), ("2024-01-02 15:04:05Z", False),
    ("x2024-01-02T15:04:05Z", False), ("2024-01-02T15:04:05Zx", False),
])
def test_rfc3339_as_go_parses_it(text: str, ok: bool) -> None:
    from kubectl_testbench.validate.metadata import is_rfc3339

    assert is_rfc3339(text) is ok


def test_finalizers() -> None:
    assert full({"name": "a", "finalizers": "x"}) == [
        ("metadata.finalizers", "metadata/type", 'Invalid value: "x": finalizers must be a list of strings', "", False,
         None)]
    assert full({"name": "a", "finalizers": [5, None, "example.com/f", "bad name"]}) == [
        ("metadata.finalizers[0]", "metadata/type", "Invalid value: 5: a finalizer must be a string", "", False,
         quote("metadata.finalizers[0]")),
        ("metadata.finalizers[1]", "metadata/finalizers", 'Invalid value: "": name part must be non-empty', "", False,
         None),
        ("metadata.finalizers[3]", "metadata/finalizers", f'Invalid value: "bad name": {NAME_PART}', "", False, None)]
    both = ("metadata.finalizers", "metadata/finalizers", "Invalid value: finalizer orphan and foregroundDeletion "
            "cannot be both set", "", False, None)
    assert full({"name": "a", "finalizers": ["orphan", "foregroundDeletion"]}) == [both]
    assert full({"name": "a", "finalizers": ["orphan", 5, "foregroundDeletion"]})[1:] == [both]
    assert full({"name": "a", "finalizers": ["orphan"]}) == full({"name": "a", "finalizers": ["foregroundDeletion"]})
    assert full({"name": "a", "finalizers": ["foregroundDeletion"]}) == []


@pytest.mark.parametrize(("field", "value", "shown"), [
    ("ownerReferences", {"a": 1}, "object"), ("managedFields", "x", '"x"'), ("ownerReferences", 3, "3")])
def test_entry_lists_that_are_not_lists(field: str, value: Any, shown: str) -> None:
    assert full({"name": "a", field: value}) == [
        (f"metadata.{field}", "metadata/type", f"Invalid value: {shown}: {field} must be a list of objects", "", False,
         None)]


OWNER = {"apiVersion": "v1", "kind": "ConfigMap", "name": "c", "uid": "u"}


def test_owner_reference_fields_decode_strictly() -> None:
    refs = [None, "x", {**OWNER, "Kind": "x", "controller": "yes", "blockOwnerDeletion": None, "nmae": 1}]
    assert full({"name": "a", "ownerReferences": refs}) == [
        ("metadata.ownerReferences[1]", "metadata/type", 'Invalid value: "x": must be an object', "", False, None),
        ("metadata.ownerReferences[2].Kind", "metadata/unknown-field",
         'unknown field "metadata.ownerReferences[2].Kind"',
         'did you mean "kind"? Field names are case-sensitive', True,
         ("rename-key", "metadata.ownerReferences[2].Kind", None, "", "several known fields are close: kind, uid")),
        ("metadata.ownerReferences[2].controller", "metadata/type", 'Invalid value: "yes": must be a boolean', "",
         False, None),
        ("metadata.ownerReferences[2].nmae", "metadata/unknown-field",
         'unknown field "metadata.ownerReferences[2].nmae"', "", True,
         ("rename-key", "metadata.ownerReferences[2].nmae", None, "", '"name" is set already: keep one of the two')),
    ]
    assert full({"name": "a", "ownerReferences": [{**OWNER, "controller": False, "blockOwnerDeletion": True}]}) == []


def test_owner_reference_required_fields() -> None:
    refs = [{"apiVersion": 1, "kind": 2, "name": "", "controller": True, "blockOwnerDeletion": False}]
    assert full({"name": "a", "ownerReferences": refs}) == [
        ("metadata.ownerReferences[0].apiVersion", "metadata/type", "Invalid value: 1: metadata.ownerReferences[0]."
         "apiVersion must be a string", "quote the value", False, quote("metadata.ownerReferences[0].apiVersion")),
        ("metadata.ownerReferences[0].kind", "metadata/type", "Invalid value: 2: metadata.ownerReferences[0].kind must "
         "be a string", "quote the value", False, quote("metadata.ownerReferences[0].kind")),
        ("metadata.ownerReferences[0].apiVersion", "metadata/owner-references",
         'Invalid value: "": version must not be empty', "", False, None),
        *[(f"metadata.ownerReferences[0].{f}", "metadata/owner-references", f'Invalid value: "": {f} must not be empty',
           "", False, None) for f in ("kind", "name", "uid")],
    ]


@pytest.mark.parametrize(("api_version", "ok"), [
    ("", False), ("/", False), ("a/b/c", False), ("apps/", False), ("apps/v1", True), ("v1", True), ("/v1", True)])
def test_owner_reference_api_version_needs_a_version(api_version: str, ok: bool) -> None:
    expected = [] if ok else [("metadata.ownerReferences[0].apiVersion", "metadata/owner-references",
                               f'Invalid value: "{api_version}": version must not be empty', "", False, None)]
    assert full({"name": "a", "ownerReferences": [{**OWNER, "apiVersion": api_version}]}) == expected


def test_core_events_cannot_own() -> None:
    refs = [{**OWNER, "kind": "Event"}, {**OWNER, "apiVersion": "events.k8s.io/v1", "kind": "Event"},
            {**OWNER, "apiVersion": "v1", "kind": "Pod"}]
    assert full({"name": "a", "ownerReferences": refs}) == [
        ("metadata.ownerReferences[0]", "metadata/owner-references",
         "Invalid value: /v1, Kind=Event is disallowed from being an owner", "", False, None)]


def test_one_controller_only() -> None:
    refs = [{**OWNER, "kind": "A", "name": "x", "controller": True}, {**OWNER, "kind": "B", "controller": False},
            {**OWNER, "kind": "C", "name": "z", "controller": True}, {**OWNER, "kind": "D", "name": "w",
                                                                       "controller": True}]
    message = 'Only one reference can have Controller set to true. Found "true" in references for A/x and {}'
    assert full({"name": "a", "ownerReferences": refs}) == [
        (f"metadata.ownerReferences[{i}].controller", "metadata/owner-references", message.format(other), "", False,
         None) for i, other in ((2, "C/z"), (3, "D/w"))]


def test_managed_fields_decode() -> None:
    entries = [None, {"manager": 1, "operation": "Apply", "time": "x", "fieldsV1": 5, "fieldsType": None,
                      "mangaer": 1, "apiVersion": "v1", "subresource": "status"},
               {"operation": "Update", "time": "2024-01-02T15:04:05Z"}]
    *found, copied = full({"name": "a", "managedFields": entries})
    assert copied == MANAGED_FIELDS_SET
    assert found == [
        ("metadata.managedFields[1].manager", "metadata/type", "Invalid value: 1: metadata.managedFields[1].manager "
         "must be a string", "quote the value", False, quote("metadata.managedFields[1].manager")),
        ("metadata.managedFields[1].time", "metadata/timestamp", f'Invalid value: "x": metadata.managedFields[1].time '
         f"{RFC3339}", SET_BY_SERVER, False, None),
        ("metadata.managedFields[1].mangaer", "metadata/unknown-field",
         'unknown field "metadata.managedFields[1].mangaer"', "", True,
         ("rename-key", "metadata.managedFields[1].mangaer", None, "",
          '"manager" is set already: keep one of the two')),
        ("metadata.managedFields[0].operation", "metadata/managed-fields",
         'Invalid value: "": must be `Apply` or `Update`', "", False, None),
    ]


def test_managed_fields_validate() -> None:
    entries = [{"operation": "Update", "fieldsType": "FieldsV2", "manager": "m" * 128, "subresource": "s" * 256},
               {"operation": "apply", "fieldsType": "", "manager": "m" * 129, "subresource": "s" * 257},
               {"operation": "Apply", "manager": "a\tb", "fieldsType": "FieldsV1"},
               {"operation": "Apply", "manager": "é" * 64, "subresource": "é" * 128},
               {"operation": "Apply", "manager": "é" * 65, "subresource": "é" * 129}]
    *found, copied = full({"name": "a", "managedFields": entries})
    assert copied == MANAGED_FIELDS_SET
    assert found == [
        ("metadata.managedFields[0].fieldsType", "metadata/managed-fields", 'Invalid value: "FieldsV2": must be '
         "`FieldsV1`", "", False, None),
        ("metadata.managedFields[1].operation", "metadata/managed-fields", 'Invalid value: "apply": must be `Apply` '
         "or `Update`", "", False, None),
        ("metadata.managedFields[1].manager", "metadata/managed-fields", "Too long: may not be longer than 128", "",
         False, None),
        ("metadata.managedFields[1].subresource", "metadata/managed-fields", "Too long: may not be longer than 256",
         "", False, None),
        ("metadata.managedFields[2].manager", "metadata/managed-fields",
         'Invalid value: "a\\tb": invalid character U+0009', "", False, None),
        ("metadata.managedFields[4].manager", "metadata/managed-fields", "Too long: may not be longer than 128", "",
         False, None),
        ("metadata.managedFields[4].subresource", "metadata/managed-fields", "Too long: may not be longer than 256",
         "", False, None),
    ]


def test_names() -> None:
    assert full({"generateName": "-bad-"}) == [
        ("metadata.generateName", "metadata/name", f'Invalid value: "-bad-": {SUBDOMAIN}', "", False, None),
        (*NEEDS_NAME[:3], "generateName cannot be used: GitOps tools and apply need a fixed name", False, None)]
    assert full({"generateName": "good-", "name": "a"}) == []
    assert full({"generateName": "", "name": ""}) == [NEEDS_NAME]
    assert full({"name": "Bad_Name"}) == [
        ("metadata.name", "metadata/name", f'Invalid value: "Bad_Name": {SUBDOMAIN}', "", False, None)]
    assert full({"name": "a" * 253}) == []
    assert full({"name": "a" * 254}) == [
        ("metadata.name", "metadata/name", f'Invalid value: "{"a" * 55}...": must be no more than 253 characters', "",
         False, None)]


def test_namespace_is_a_dns_label() -> None:
    assert full({"name": "a", "namespace": "n" * 63}) == full({"name": "a", "namespace": ""}) == []
    assert full({"name": "a", "namespace": "n" * 64}) == [
        ("metadata.namespace", "metadata/namespace", f'Invalid value: "{"n" * 55}...": must be no more than 63 '
         "characters", "", False, None)]
    assert full({"name": "a", "namespace": "a.b"}) == [
        ("metadata.namespace", "metadata/namespace", 'Invalid value: "a.b": a lowercase RFC 1123 label must consist '
         "of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character "
         "(e.g. 'my-name')", "", False, None)]


@pytest.mark.parametrize(("version", "refused"), [("0", False), ("1", True), ("12", True), ("abc", False),
                                                  ("", False)])
def test_resource_version_refuses_the_create(version: str, refused: bool) -> None:
    """etcd3 store's Create: a resourceVersion that parses as a number other than 0 fails the create."""
    expected = [("metadata.resourceVersion", "metadata/resource-version", "resourceVersion should not be set on "
                 "objects to be created", "remove metadata.resourceVersion (it was copied from a cluster)", False,
                 None)]
    assert full({"name": "a", "resourceVersion": version}) == (expected if refused else [])


@pytest.mark.parametrize(("path", "expected"), [
    (("metadata",), None), (("metadata", "name"), "string"), (("metadata", "generation"), None),
    (("metadata", "creationTimestamp"), None), (("metadata", "labels", "app"), "string"),
    (("metadata", "annotations", "a"), "string"), (("metadata", "labels"), None),
    (("metadata", "finalizers", 0), "string"), (("metadata", "finalizers", "x"), None),
    (("metadata", "ownerReferences", 0, "uid"), "string"),
    (("metadata", "ownerReferences", 0, "controller"), "boolean"),
    (("metadata", "ownerReferences", 0, "blockOwnerDeletion"), "boolean"),
    (("metadata", "ownerReferences", "x", "uid"), None), (("metadata", "ownerReferences", 0, "other"), None),
    (("metadata", "managedFields", 0, "manager"), "string"), (("metadata", "managedFields", 0, "time"), None),
    (("metadata", "managedFields", 0, "controller"), None), (("metadata", "labels", "a", "b"), None),
    (("metadata", "name", "x"), None),
])
def test_metadata_type_at(path: tuple[Any, ...], expected: str | None) -> None:
    """The type the boolean/quote hints rely on; ObjectMeta is not in the CRD's schema."""
    from kubectl_testbench.validate.metadata import metadata_type_at

    assert metadata_type_at(path) == expected


def test_decoding_goes_on_after_a_null_or_a_wrong_container() -> None:
    meta = {"labels": None, "generation": "1", "annotations": [1], "uid": 2, "finalizers": "f", "namespace": 3,
            "labels2": None}
    assert [(path, rule) for path, rule, *_ in full(meta)] == [
        ("metadata.generation", "metadata/type"), ("metadata.annotations", "metadata/type"),
        ("metadata.uid", "metadata/type"), ("metadata.finalizers", "metadata/type"),
        ("metadata.namespace", "metadata/type"), ("metadata.labels2", "metadata/unknown-field"),
        ("metadata.name", "metadata/name-required")]


def test_the_quote_fix_points_at_the_label_value() -> None:
    [error] = check_metadata({"name": "a", "labels": {"tier": 5}})
    assert error.fix is not None and field_path(error.fix.path) == "metadata.labels[tier]"
    assert error.fix.path[-1] == "tier"

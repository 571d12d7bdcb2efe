"""Issue 16's defects, each with the exact finding (rule id, field path, line:col) or its absence.

The same files run through the Go oracle in tests/oracle/test_differential.py (test_defect_case_agrees...),
which proves the verdicts are the API server's; here we pin what users see.
"""

from __future__ import annotations

import pytest

from kubectl_testbench.load.builder import build
from kubectl_testbench.validate.engine import validate_text
from tests.oracle.defects import CASES
from tests.validate.helpers import keep

BY_NAME = {c.name: c for c in CASES}

EXPECTED: dict[str, list[tuple[str, str, int, int]]] = {
    # 1: null means unset for ObjectMeta fields (Go tools write creationTimestamp: null): no error, only
    # issue 18's info finding, whose fix removes the line (the server drops the field anyway)
    "null-creation-timestamp": [("metadata/null-field", "metadata.creationTimestamp", 5, 3)],
    "null-system-fields": [("metadata/null-field", f"metadata.{field}", line, 3) for line, field in
                           enumerate(("namespace", "uid", "resourceVersion", "selfLink", "labels"), 5)],
    # 2: JSON is read with a JSON decoder: surrogate pairs, streams without separators
    "json-surrogate-pair": [],
    "json-stream-without-newlines": [("schema/unknown-field", "spec.bogus", 1, 391)],
    # 3: annotation keys are checked lower-cased, label keys as written
    "annotation-key-upper-case": [],
    "label-key-upper-case-prefix": [("metadata/labels", "metadata.labels[Example.COM/owner]", 6, 5)],
    # 4: any object with items is a list; findings inside items are reported as at top level
    "experiment-list": [("yaml/duplicate-key", "spec.agentRef.name", 9, 7),
                        ("yaml/yaml11-boolean", "spec.trigger.enabled", 13, 16)],
    "list-without-api-version": [("semantic/status-ignored", "status", 12, 3),
                                 ("schema/unknown-field", "status.bogus", 13, 5)],
    # 5: ObjectMeta content as ValidateObjectMeta checks it
    "finalizer-name": [("metadata/finalizers", "metadata.finalizers[0]", 6, 5)],
    "owner-reference-without-uid": [("metadata/owner-references", "metadata.ownerReferences[0].uid", 6, 5)],
    "two-controllers": [("metadata/owner-references", "metadata.ownerReferences[1].controller", 7, 70)],
    "owner-reference-unknown-field": [("metadata/unknown-field", "metadata.ownerReferences[0].owner", 6, 58)],
    "generation-string": [("metadata/type", "metadata.generation", 5, 15)],
    "timestamp-format": [("metadata/timestamp", "metadata.creationTimestamp", 5, 22)],
    "managed-fields-operation": [("metadata/managed-fields", "metadata.managedFields[0].operation", 6, 35),
                                 ("metadata/managed-fields-set", "metadata.managedFields", 5, 3)],
    # 6: unknown fields under status are strict-decoding errors although status is dropped
    "status-unknown-field": [("semantic/status-ignored", "status", 10, 1),
                             ("schema/unknown-field", "status.phase", 12, 3)],
    # 7: YAML as go-yaml v2 reads it
    "merge-after-explicit-key": [("yaml/duplicate-key", "spec.agentRef.name", 8, 10)],
    "binary-tag-decodes": [],
    "dot-underscore-stays-a-string": [],
    "content-after-document-end": [("yaml/after-document-end", "", 11, 1)],
    # 8: documents kubectl rejects are errors, with a did-you-mean for near-miss groups
    "scalar-document": [("yaml/not-an-object", "", 1, 1)],
    "list-document": [("yaml/not-an-object", "", 1, 1)],
    "mistyped-group": [("kind/group", "apiVersion", 1, 13)],
    # 9: an empty agentRef.name is treated like an empty aiGatewayRef.name
    "empty-agent-name": [("semantic/dns-label", "spec.agentRef.name", 7, 11)],
    "empty-gateway-name": [("semantic/dns-label", "spec.aiGatewayRef.name", 9, 11)],
    # 10: locations: the document's own line, the null key's line; .inf once
    "missing-metadata-second-document": [("cel/not-evaluated", "", 11, 1),  # a missing name blocks the server's CEL
                                         ("metadata/name-required", "metadata.name", 11, 1)],
    "spec-null": [("semantic/spec-missing", "spec", 5, 1)],
    "infinite-threshold": [("yaml/non-finite", "spec.dataset.inline.defaultThreshold", 10, 25)],
}


def test_every_case_has_an_expectation() -> None:
    assert set(EXPECTED) == set(BY_NAME)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_defect_findings(name: str) -> None:
    result = validate_text(BY_NAME[name].text, "t.yaml")
    # semantic/no-gateway and semantic/no-judge-model are about where and with what the judge runs, not API-server
    # parity: none of these cases names a gateway or a judge model
    found = sorted((d.rule, d.path, d.line, d.col) for d in result.diagnostics
                   if d.rule not in ("semantic/no-gateway", "semantic/no-judge-model"))
    assert found == sorted(EXPECTED[name])


def test_json_keeps_emoji_and_replaces_lone_surrogates_like_go() -> None:
    text = BY_NAME["json-surrogate-pair"].text.replace("}}, \"spec\"", ', "lone": "\\ud800"}}, "spec"')
    result = validate_text(text, "t.json", keep=_keep())
    [exp] = result.experiments
    assert exp.data["metadata"]["annotations"] == {"note": "😀", "lone": "\ufffd"}


def test_both_json_stream_objects_are_validated() -> None:
    result = validate_text(BY_NAME["json-stream-without-newlines"].text, "t.json")
    assert (result.counts.experiments, result.counts.valid, result.counts.invalid) == (2, 1, 1)


def test_experiment_list_items_inherit_kind_and_api_version() -> None:
    result = validate_text(BY_NAME["experiment-list"].text.replace("      name: again\n", ""), "t.yaml", keep=_keep())
    [exp] = result.experiments
    assert (exp.data["kind"], exp.data["apiVersion"]) == ("Experiment", "testbench.agentic-layer.ai/v1alpha1")


def test_a_merge_written_after_an_explicit_key_overrides_it_like_go_yaml_v2() -> None:
    assert build("a:\n  x: 1\n  <<: {x: 2, z: 3}\n").data == {"a": {"x": 2, "z": 3}}
    assert build("a:\n  <<: {x: 2, z: 3}\n  x: 1\n").data == {"a": {"x": 1, "z": 3}}
    assert build("a:\n  <<: [{x: 1}, {x: 2}]\n").data == {"a": {"x": 1}}


def test_binary_decodes_and_dot_underscore_stays_a_string() -> None:
    assert build("a: !!binary aGVsbG8=\nb: ._5\nc: .5_0\n").data == {"a": "hello", "b": "._5", "c": 0.5}
    assert build("a: !!binary /w==\n").data == {"a": "\ufffd"}, "invalid UTF-8 becomes U+FFFD as in Go's JSON"
    bad = build("a: !!binary '%%%'\n")
    assert bad.error is not None and bad.error.rule == "yaml/tag"


def test_the_mistyped_group_names_the_right_one() -> None:
    [d] = validate_text(BY_NAME["mistyped-group"].text, "t.yaml").diagnostics
    assert 'did you mean "testbench.agentic-layer.ai"' in d.hint


def test_content_after_document_end_is_dropped_with_a_warning_not_unreadable() -> None:
    result = validate_text(BY_NAME["content-after-document-end"].text, "t.yaml")
    assert (result.counts.experiments, result.counts.valid, result.counts.unreadable) == (1, 1, 0)


def _keep():  # type: ignore[no-untyped-def]
    return keep(experiments=True)

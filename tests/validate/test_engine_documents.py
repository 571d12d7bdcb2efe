"""The engine between the reader and the checks: what it says about documents, lists and objects (verbatim,
at their place, in their file), the counts behind the summary line, and what it keeps for render, for the
duplicate check and for fixes."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import yaml

from kubectl_testbench.load.limits import DEFAULT_LIMITS
from kubectl_testbench.validate.engine import FileResult, Options, validate_experiment, validate_text
from tests.validate.helpers import VALID, keep

API = "testbench.agentic-layer.ai/v1alpha1"
OBJ = "Experiment agents/weather-eval"
NOT_AN_OBJECT = "a list item is not an object: kubectl rejects the list"
NO_KIND = "the object has no kind: kubectl rejects it (Object 'Kind' is missing)"
NO_GATEWAY = VALID.replace("  aiGatewayRef:\n    name: ai-gateway\n    namespace: ai-gateway\n", "")
RENAME = VALID.replace("  agentRef:", "  agentRf:")  # one fixable finding: rename agentRf to agentRef


def run(text: str, path: str = "f.yaml", keep_experiments: bool = False, keep_manifests: bool = False,
        **options: Any) -> FileResult:
    return validate_text(text, path, Options(**options), keep=keep(keep_experiments, keep_manifests))


def rows(result: FileResult) -> list[tuple[Any, ...]]:
    return [(d.rule, d.file, d.line, d.col, d.path, d.message, d.hint, d.object) for d in result.diagnostics]


def edits(result: FileResult, rule: str) -> list[tuple[Any, ...]]:
    return [(d.fix.path, [(e.start, e.end, e.text) for e in d.fix.edits]) for d in result.diagnostics
            if d.rule == rule and d.fix is not None]


def listed(*objects: str) -> str:
    """A v1 List holding ``objects`` (YAML texts) as its items."""
    items = "".join("- " + text.replace("\n", "\n  ").rstrip() + "\n" for text in objects)
    return "apiVersion: v1\nkind: List\nitems:\n" + items


# --- documents and lists ---------------------------------------------------------------------------------------


def test_documents_that_are_no_objects_are_reported_where_they_start() -> None:
    hint = "a document must be a mapping with apiVersion, kind and metadata"
    result = run("---\n- a\n---\n---\nhello\n")
    assert rows(result) == [
        ("yaml/not-an-object", "f.yaml", 2, 1, "", "the document is a list, not a Kubernetes object: kubectl "
         "rejects it", hint, ""),
        ("yaml/not-an-object", "f.yaml", 5, 1, "", "the document is a scalar, not a Kubernetes object: kubectl "
         "rejects it", hint, "")]
    assert result.counts.summary() == "1 file, 0 experiments: 0 valid, 2 invalid, 0 warnings"


def test_items_that_are_no_list_are_reported_at_the_items_key() -> None:
    result = run("apiVersion: v1\nkind: List\nitems: 5\n")
    assert rows(result) == [("yaml/not-an-object", "f.yaml", 3, 1, "items", "items of a list must be a list of "
                             "objects: kubectl reads every object with an items field as a list", "", "")]


def test_every_item_of_a_list_is_looked_at_after_a_bad_one() -> None:
    result = run(listed("1:30", "x", "apiVersion: v1\nkind: ConfigMap", VALID))
    assert rows(result) == [("yaml/not-an-object", "f.yaml", 4, 3, "items[0]", NOT_AN_OBJECT, "", ""),
                            ("yaml/not-an-object", "f.yaml", 5, 3, "items[1]", NOT_AN_OBJECT, "", "")]
    assert result.counts.summary() == ("1 file, 1 experiment: 1 valid, 2 invalid, 0 warnings "
                                       "(1 other document skipped)")


def test_findings_in_a_list_outside_its_items_are_reported_once() -> None:
    text = ("apiVersion: v1\nkind: List\nkind: List\nother: [yes]\nmetadata:\n  name: a\n  name: b\n"
            "items:\n- 1:30\n- apiVersion: v1\n  kind: ConfigMap\n  kind: ConfigMap\n")
    dup = "remove one of the two entries"
    assert rows(run(text)) == [
        ("yaml/duplicate-key", "f.yaml", 3, 1, "kind", 'duplicate key "kind" (first at line 2, column 1): the later '
         "value wins", dup, ""),
        ("yaml/yaml11-boolean", "f.yaml", 4, 9, "other[0]", 'yes is read as the boolean true by Kubernetes '
         '(YAML 1.1); quote it ("yes") if you meant a string', "", ""),
        ("yaml/duplicate-key", "f.yaml", 7, 3, "metadata.name", 'duplicate key "name" (first at line 6, column 3): '
         "the later value wins", dup, ""),
        ("yaml/not-an-object", "f.yaml", 9, 3, "items[0]", NOT_AN_OBJECT, "", "")]


def test_fixes_of_list_items_edit_their_own_item() -> None:
    text = listed(RENAME, RENAME.replace("weather-eval", "second"))
    result = run(text)
    first = text.index("agentRf")
    offsets = [first, text.index("agentRf", first + 1)]
    assert edits(result, "schema/unknown-field") == [
        (("items", 0, "spec", "agentRf"), [(offsets[0], offsets[0] + 7, "agentRef")]),
        (("items", 1, "spec", "agentRf"), [(offsets[1], offsets[1] + 7, "agentRef")])]


def test_fixes_in_a_later_document_are_placed_in_it() -> None:
    text = RENAME + "---\n" + RENAME
    first = text.index("agentRf")
    second = text.index("agentRf", first + 1)
    assert edits(run(text), "schema/unknown-field") == [(("spec", "agentRf"), [(first, first + 7, "agentRef")]),
                                                        (("spec", "agentRf"), [(second, second + 7, "agentRef")])]


def test_an_empty_list_is_a_document() -> None:
    assert run("apiVersion: v1\nkind: List\nitems: null\n").diagnostics == []


# --- kinds and groups, and the counts ---------------------------------------------------------------------------


def test_every_kind_of_object_is_counted_once() -> None:
    documents = [
        "apiVersion: v1\nkind: ConfigMap\n",  # skipped
        f"apiVersion: {API}\nkind: RenderDefaults\nspec:\n  agentPort: 0\n",  # skipped, checked as a defaults file
        "foo: 1\n",  # skipped: no Kubernetes object at all
        VALID.replace("defaultThreshold: 0.8", "defaultThreshold: 2"),  # invalid
        "apiVersion: v1\nmetadata: {}\n",  # invalid: no kind
        "apiVersion: v1\nkind: 5\n",  # invalid: no kind
        VALID.replace(f"apiVersion: {API}", "apiVersion: v1alpha1"),  # invalid: no group
        VALID.replace(f"apiVersion: {API}", "apiVersion: testbench.agentic-layer.io/v1alpha1"),  # near-miss group
        VALID.replace("kind: Experiment", "kind: Experimnt"),  # unknown kind in our group
        VALID.replace("v1alpha1", "v1beta1"),  # unserved version
        VALID, NO_GATEWAY,  # valid
    ]
    result = run("---\n".join(documents))
    assert result.counts.summary() == ("1 file, 7 experiments: 2 valid, 7 invalid, 1 warning "
                                       "(3 other documents skipped)")
    assert (result.counts.errors, result.counts.warnings) == (8, 1)
    assert {d.file for d in result.diagnostics} == {"f.yaml"}
    assert [(d.rule, d.line, d.col, d.path) for d in result.diagnostics if d.rule.startswith("kind/")] == [
        ("kind/missing", 35, 1, "kind"), ("kind/missing", 39, 1, "kind"), ("kind/api-version", 42, 7, "apiVersion"),
        ("kind/group", 65, 13, "apiVersion"), ("kind/api-version", 90, 7, "kind"),
        ("kind/api-version", 113, 13, "apiVersion")]
    assert [(d.rule, d.file, d.line, d.object) for d in result.diagnostics if d.rule == "schema/minimum"] == [
        ("schema/minimum", "f.yaml", 7, "RenderDefaults")]


def test_a_null_list_item_has_no_kind_and_is_placed_at_its_document() -> None:
    result = run("a: 1\n---\napiVersion: v1\nkind: List\nitems:\n- null\n")
    assert rows(result) == [("kind/missing", "f.yaml", 3, 1, "kind", NO_KIND, "add the object's kind", "")]


def test_an_experiment_item_without_a_group_is_placed_at_the_item() -> None:
    result = run("apiVersion: v1\nkind: ExperimentList\nitems:\n- metadata: {name: x}\n")
    assert rows(result) == [("kind/api-version", "f.yaml", 4, 3, "apiVersion", "Experiment without an API group: "
                             "kubectl rejects it (no matches for kind)", f"use apiVersion: {API}", "Experiment x")]


def test_the_object_is_named_with_its_namespace_only_when_it_has_one() -> None:
    unnamespaced = VALID.replace("  namespace: agents\n", "")
    assert run(unnamespaced).checked == [("Experiment weather-eval", 1)]
    odd = run(VALID.replace("namespace: agents", "namespace: 5"))
    assert [(d.rule, d.object) for d in odd.diagnostics] == [("metadata/type", "Experiment weather-eval")]


# --- what is kept: experiments, manifests, identities --------------------------------------------------------------


def test_kept_experiments_and_identities_start_where_the_object_starts() -> None:
    result = run("# a comment\n" + VALID, keep_experiments=True)
    assert [(e.index, e.line) for e in result.experiments] == [(0, 2)]
    assert [(i.name, i.namespace, i.line, i.col, i.object_line, i.valid) for i in result.identities] == [
        ("weather-eval", "agents", 5, 9, 2, True)]
    in_list = run(listed(VALID), keep_experiments=True)
    assert [(e.index, e.line) for e in in_list.experiments] == [(0, 4)]
    assert [(i.line, i.col, i.object_line) for i in in_list.identities] == [(7, 11, 4)]


def test_identities_need_a_string_name_and_keep_a_string_namespace() -> None:
    assert run(VALID.replace("name: weather-eval", "name: 5")).identities == []
    assert run(VALID.replace("name: weather-eval", "name: ''")).identities == []
    no_metadata = VALID.replace("metadata:\n  name: weather-eval\n  namespace: agents\n", "metadata: x\n")
    assert run(no_metadata).identities == []
    odd = run(VALID.replace("namespace: agents", "namespace: 5"))
    assert [(i.name, i.namespace, i.valid) for i in odd.identities] == [("weather-eval", None, False)]


def test_a_rendered_manifest_in_a_list_is_kept_with_its_line() -> None:
    manifest = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d\n  namespace: agents\n  labels:\n"
                "    app.kubernetes.io/managed-by: kubectl-testbench\ndata: {}")
    result = run("# rendered\n" + manifest + "\n", keep_manifests=True)
    assert [(m.index, m.line) for m in result.manifests] == [(0, 2)]
    assert [(m.index, m.line) for m in run(listed(manifest), keep_manifests=True).manifests] == [(0, 4)]


# --- JSON streams ---------------------------------------------------------------------------------------------------


def as_json(text: str) -> str:
    return json.dumps(yaml.safe_load(text))


def test_a_json_stream_of_valid_documents_is_read_once(monkeypatch: Any) -> None:
    from kubectl_testbench.load import jsonread

    slow: list[str] = []
    read_stream = jsonread.read_stream
    monkeypatch.setattr(jsonread, "read_stream", lambda text, limits: slow.append(text) or read_stream(text, limits))
    valid = as_json(VALID) + "\n" + as_json(VALID.replace("weather-eval", "second"))
    result = validate_text(valid, "f.json", Options(), keep=keep(experiments=True))
    assert (slow, result.diagnostics) == ([], [])
    assert [(e.index, e.line) for e in result.experiments] == [(0, 1), (1, 2)]
    assert [(i.name, i.line, i.col, i.object_line) for i in result.identities] == [
        ("weather-eval", 1, 1, 1), ("second", 2, 1, 2)], "no positions from the fast reader: the object's line"
    gateway = validate_text(as_json(NO_GATEWAY), "f.json", Options(), gateway_default=lambda: True)
    assert (slow, gateway.diagnostics) == ([], []), "the defaults file's gateway counts in the fast reading too"
    assert validate_text(as_json(RENAME), "f.json", Options()).counts.invalid == 1
    assert slow == [as_json(RENAME)], "findings to place: read again with positions"


def test_json_limits_hold_in_both_readers() -> None:
    limits = dataclasses.replace(DEFAULT_LIMITS, max_nodes=10)
    result = validate_text(as_json(VALID), "f.json", Options(limits=limits))
    assert [(d.rule, d.line, d.message) for d in result.diagnostics] == [
        ("yaml/too-many-nodes", 1, "more than 10 nodes in one document (raise with --max-nodes)")]


def test_a_json_stream_with_findings_goes_on_past_null_values() -> None:
    text = as_json(RENAME) + "\nnull\n" + as_json(RENAME)
    result = validate_text(text, "f.json", Options())
    first = text.index('"agentRf"')
    second = text.index('"agentRf"', first + 1)
    assert edits(result, "schema/unknown-field") == [(("spec", "agentRf"), [(first, first + 9, '"agentRef"')]),
                                                     (("spec", "agentRf"), [(second, second + 9, '"agentRef"')])]
    assert [(d.rule, d.line) for d in result.diagnostics] == [
        ("schema/required", 1), ("schema/unknown-field", 1), ("cel/not-evaluated", 1),
        ("schema/required", 3), ("schema/unknown-field", 3), ("cel/not-evaluated", 3)]


def test_a_rendered_manifest_in_a_json_stream_is_checked_with_positions() -> None:
    manifest = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
        "name": "d", "labels": {"app.kubernetes.io/managed-by": "kubectl-testbench"}}}
    text = as_json(VALID) + "\n" + json.dumps(manifest)
    result = validate_text(text, "f.json", Options(), keep=keep(manifests=True))
    assert [(d.rule, d.line, d.col, d.path) for d in result.diagnostics] == [("render/manifest", 2, 43, "metadata")]


def test_the_defaults_files_gateway_counts_when_a_json_stream_is_read_again() -> None:
    text = as_json(RENAME) + "\n" + as_json(NO_GATEWAY)
    rules = [d.rule for d in validate_text(text, "f.json", Options(), gateway_default=lambda: True).diagnostics]
    assert rules == ["schema/required", "schema/unknown-field", "cel/not-evaluated"]


# --- one Experiment ---------------------------------------------------------------------------------------------------


def test_an_empty_status_is_reported_at_its_key_with_a_fix_that_removes_it() -> None:
    text = VALID + "status: {}\n"
    [d] = run(text).diagnostics
    assert (d.rule, d.line, d.col, d.path) == ("semantic/status-ignored", 24, 1, "status")
    assert d.fix is not None and (d.fix.path, [(e.start, e.end, e.text) for e in d.fix.edits]) == (
        ("status",), [(len(VALID), len(text), "")])


def test_null_metadata_fields_are_reported_with_a_fix() -> None:
    text = VALID.replace("  namespace: agents\n", "  namespace: agents\n  labels: null\n")
    result = run(text)
    assert rows(result) == [("metadata/null-field", "f.yaml", 6, 3, "metadata.labels",
                             "metadata.labels is null: the API server drops it",
                             "remove the line (kubectl create --dry-run writes creationTimestamp: null)", OBJ)]
    at = text.index("  labels")
    assert edits(result, "metadata/null-field") == [(("metadata", "labels"), [(at, at + 15, "")])]


def test_a_yaml11_boolean_name_is_one_finding_and_later_remarks_still_count() -> None:
    text = VALID.replace("name: weather-eval", "name: yes").replace(
        "    name: weather-agent\n", "    name: weather-agent\n    name: x\n")
    assert rows(run(text)) == [
        ("metadata/type", "f.yaml", 4, 9, "metadata.name", "Invalid value: true: metadata.name must be a string",
         'yes is a YAML 1.1 boolean for Kubernetes: write "yes" in quotes', "Experiment"),
        ("yaml/duplicate-key", "f.yaml", 9, 5, "spec.agentRef.name", 'duplicate key "name" (first at line 8, column '
         '5): the later value wins', "remove one of the two entries", "Experiment")]


def test_fields_of_the_earlier_schema_point_at_the_migration() -> None:
    result = run(VALID.replace("  agentRef:\n", "  llmAsAJudgeModel: gpt\n  agentRef:\n"))
    assert rows(result) == [("schema/unknown-field", "f.yaml", 7, 3, "spec.llmAsAJudgeModel",
                             'unknown field "spec.llmAsAJudgeModel"',
                             "written for an earlier Experiment schema: kubectl testbench fix --migrate upgrades it",
                             OBJ)]


def test_yaml11_readings_get_fixes_only_where_the_schema_knows_the_spelling() -> None:
    anchored = VALID.replace("- input: Will it rain in Berlin tomorrow?", "- input: &a 1:30")
    [d] = run(anchored).diagnostics
    assert d.fix is not None and (d.hint, d.fix.kind.value, d.fix.value, d.fix.title, d.fix.blocked) == (
        "", "quote", None, "quote the value as written", "the node carries an anchor: aliases elsewhere would change "
        "with it"), "the title the fix has until it is placed"
    off = run(VALID + "  trigger:\n    enabled: off\n").diagnostics
    assert [(d.fix.value, d.fix.title) for d in off if d.fix] == [(False, "write false")]
    clock = run(VALID + "  trigger:\n    enabled: 1:30\n").diagnostics
    assert [(d.rule, d.hint, d.fix) for d in clock if d.rule == "yaml/sexagesimal"] == [("yaml/sexagesimal", "", None)]


def test_semantic_findings_elsewhere_than_the_schema_errors_are_reported_with_their_fix() -> None:
    label = ("  namespace: agents\n", "  namespace: agents\n  labels:\n    'a b': x\n")
    result = run(NO_GATEWAY.replace(*label))
    assert [(d.rule, d.line, d.path) for d in result.diagnostics] == [
        ("metadata/labels", 7, "metadata.labels[a b]"), ("semantic/no-gateway", 8, "spec")]
    metric = VALID.replace(*label).replace("metricName: AgentGoalAccuracyWithReference",
                                           "metricName: agentGoalAccuracyWithReference")
    [fixed] = [d for d in run(metric).diagnostics if d.rule == "semantic/unknown-metric"]
    assert fixed.fix is not None and (fixed.fix.value, fixed.fix.title) == (
        "AgentGoalAccuracyWithReference", 'write "AgentGoalAccuracyWithReference"')


def test_the_findings_cap_words_its_count() -> None:
    errors = VALID.replace("  agentRef:\n", "  x1: 1\n  x2: 2\n  x3: 3\n  agentRef:\n")
    capped = run(errors, limits=dataclasses.replace(DEFAULT_LIMITS, max_findings=1))
    assert rows(capped)[0] == ("validate/too-many-findings", "f.yaml", 1, 1, "", "2 more findings (2 errors) not shown",
                               "", OBJ)
    warning = run(NO_GATEWAY, limits=dataclasses.replace(DEFAULT_LIMITS, max_findings=0))
    assert rows(warning) == [("validate/too-many-findings", "f.yaml", 1, 1, "", "1 more finding (0 errors) not shown",
                              "", OBJ)]


def test_an_object_without_positions_has_findings_without_a_place() -> None:
    doc = yaml.safe_load(VALID.replace("defaultThreshold: 0.8", "defaultThreshold: 2"))
    assert [(d.rule, d.file, d.line, d.col, d.object) for d in validate_experiment(doc, "f.json")] == [
        ("schema/maximum", "f.json", 0, 0, OBJ)]

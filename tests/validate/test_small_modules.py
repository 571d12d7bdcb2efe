"""The validator's small modules, each contract on its own: null ObjectMeta fields, the metric to suggest, how
kubectl flattens lists into objects, the CRD's declared types, and Experiments defined twice."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_testbench.load.builder import Remark
from kubectl_testbench.validate import metrics
from kubectl_testbench.validate.crdschema import (
    experiment_crd,
    open_api_schema,
    refused_rules,
    schema_type_at,
)
from kubectl_testbench.validate.diagnostics import Fix, FixKind, Severity
from kubectl_testbench.validate.duplicates import Identity, find_clashes
from kubectl_testbench.validate.nulls import null_metadata_fields
from kubectl_testbench.validate.objects import Item, Problem, group_of, near_miss_group, objects

# --- nulls ------------------------------------------------------------------------------------------------------


def test_null_metadata_fields_each_get_a_delete_fix() -> None:
    doc = {"metadata": {"name": "a", "creationTimestamp": None, "labels": None, "annotations": {"a": None}}}
    hint = "remove the line (kubectl create --dry-run writes creationTimestamp: null)"
    assert list(null_metadata_fields(doc)) == [
        ("metadata/null-field", ("metadata", "creationTimestamp"), "metadata.creationTimestamp is null: the API "
         "server drops it", hint, Fix(FixKind.DELETE, ("metadata", "creationTimestamp"), None,
                                      "remove metadata.creationTimestamp")),
        ("metadata/null-field", ("metadata", "labels"), "metadata.labels is null: the API server drops it", hint,
         Fix(FixKind.DELETE, ("metadata", "labels"), None, "remove metadata.labels")),
    ]
    assert list(null_metadata_fields({"metadata": None})) == list(null_metadata_fields({"metadata": [None]})) == []
    assert list(null_metadata_fields({})) == []


# --- metrics ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("reference", "metric"), [
    ({"toolCalls": [{}], "topics": ["t"], "response": "r"}, "ToolCallAccuracy"),
    ({"topics": ["t"], "response": "r"}, "TopicAdherence"), ({"response": "r"}, "AnswerAccuracy"),
    ({"toolCalls": [], "topics": [], "response": ""}, "AgentGoalAccuracyWithoutReference"),
    ({}, metrics.DEFAULT_ALTERNATIVE),
])
def test_alternative_fits_the_reference_data(reference: dict[str, Any], metric: str) -> None:
    assert metrics.alternative(reference) == metric


def test_alternative_suggests_only_metrics_that_score(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(metrics.NEEDS, "ToolCallAccuracy")
    assert metrics.alternative({"toolCalls": [{}], "response": "r"}) == "AnswerAccuracy"


def test_the_metric_table_is_the_generated_one() -> None:
    import json
    from pathlib import Path

    import kubectl_testbench

    table = json.loads((Path(kubectl_testbench.__file__).parent / "_generated" / "metrics.json").read_text())
    assert table == metrics.TABLE
    assert f"{table['package']} {table['version']}" == metrics.PHASE_PACKAGE


# --- objects ----------------------------------------------------------------------------------------------------


def remark(path: tuple[Any, ...]) -> Remark:
    return Remark("yaml/x", "m", (1, 1), path, "text")


def test_a_document_that_is_not_an_object() -> None:
    hint = "a document must be a mapping with apiVersion, kind and metadata"
    assert list(objects([1], [])) == [Problem("yaml/not-an-object", (), "the document is a list, not a Kubernetes "
                                              "object: kubectl rejects it", hint)]
    assert list(objects("x", [])) == [Problem("yaml/not-an-object", (), "the document is a scalar, not a Kubernetes "
                                              "object: kubectl rejects it", hint)]


def test_an_object_without_items_is_itself() -> None:
    marks = [remark(("spec",))]
    assert list(objects({"kind": "Experiment"}, marks)) == [Item({"kind": "Experiment"}, (), marks)]


def test_lists_are_flattened_with_kind_and_api_version_from_the_list() -> None:
    inner = [remark(("items", 0, "metadata")), remark(("items", 1)), remark(("kind",))]
    data = {"apiVersion": "g/v1", "kind": "ExperimentList", "items": [
        {"metadata": {"name": "a"}}, None, "x", {"kind": "Other"}, {"apiVersion": "x/v1"},
        {"kind": "NestedList", "items": [{"metadata": {}}, 5]}, {"kind": "Other", "items": None}]}
    found = list(objects(data, inner))
    assert found == [
        Item({"metadata": {"name": "a"}, "kind": "Experiment", "apiVersion": "g/v1"}, ("items", 0),
             [Remark("yaml/x", "m", (1, 1), ("metadata",), "text")]),
        Item({"kind": "Experiment", "apiVersion": "g/v1"}, ("items", 1), [Remark("yaml/x", "m", (1, 1), (), "text")]),
        Problem("yaml/not-an-object", ("items", 2), "a list item is not an object: kubectl rejects the list"),
        Item({"kind": "Other"}, ("items", 3), []),
        Item({"apiVersion": "x/v1"}, ("items", 4), []),
        Problem("yaml/not-an-object", ("items", 5), NESTED),
        Item({"kind": "Other", "items": None}, ("items", 6), []),
    ]


NESTED = ("a list item is itself a list (its items are a list): kubectl cannot flatten it and rejects the list "
          "(\"*unstructured.Unstructured is not a list\")")


def test_a_list_inside_a_list_is_refused_as_kubectl_refuses_it() -> None:
    """cli-runtime's FlattenListVisitor calls meta.ExtractList on the inner list, an Unstructured, which has no
    Items field: kubectl fails on the whole file (issue 29: found by the module-mode oracle, which calls it)."""
    nested = {"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "List", "items": []}, {"kind": "X", "items": [{"kind": "Experiment"}]}]}
    assert list(objects(nested, [])) == [Problem("yaml/not-an-object", ("items", 0), NESTED),
                                         Problem("yaml/not-an-object", ("items", 1), NESTED)]


def test_list_without_kind_or_version_gives_empty_ones() -> None:
    assert list(objects({"items": [{"metadata": {}}], "apiVersion": 5}, [])) == [
        Item({"metadata": {}, "kind": "", "apiVersion": ""}, ("items", 0), [])]


def test_items_that_are_not_a_list() -> None:
    assert list(objects({"kind": "List", "items": None}, [])) == []
    assert list(objects({"kind": "List", "items": {"a": 1}}, [])) == [
        Problem("yaml/not-an-object", ("items",), "items of a list must be a list of objects: kubectl reads every "
                "object with an items field as a list")]
    nested = {"kind": "List", "items": [{"kind": "Experiment", "items": "text"}]}
    assert list(objects(nested, [])) == [Item({"kind": "Experiment", "items": "text"}, ("items", 0), [])]


@pytest.mark.parametrize(("api_version", "group"), [
    ("testbench.agentic-layer.ai/v1alpha1", "testbench.agentic-layer.ai"), ("v1", ""), (5, ""), ("a/b/c", "a")])
def test_group_of(api_version: Any, group: str) -> None:
    assert group_of(api_version) == group


@pytest.mark.parametrize(("group", "near"), [
    ("testbench.agentic-layer.io", True), ("testbench.agentic-layer.ai.", True), ("Testbench.Agentic-Layer.AI", True),
    ("testbench.agentic-layer.ai", False), ("", False), ("apps", False), ("example.com", False),
    ("testbench.agentic.ai", True), ("bench.layer.io", False), ("testbench.agentic-layer.ai" + "." * 10, True),
    ("TESTBENCH.AGENTIC-LAYER.AI" + "." * 10, True), ("." * 10 + "testbench.agentic-layer.ai", False),
])
def test_near_miss_group(group: str, near: bool) -> None:
    assert near_miss_group(group) is near


# --- crdschema ----------------------------------------------------------------------------------------------------


def test_the_crd_versions() -> None:
    assert [v["name"] for v in experiment_crd()["spec"]["versions"] if v.get("served")] == ["v1alpha1"]
    assert open_api_schema("v1alpha1") is experiment_crd()["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    with pytest.raises(KeyError):
        open_api_schema("v1")


def test_no_rule_of_the_shipped_crd_is_refused_for_its_cost() -> None:
    assert refused_rules() == {}


@pytest.mark.parametrize(("path", "kind"), [
    (("spec", "trigger", "enabled"), "boolean"), (("spec", "env", 0, "name"), "string"), (("spec",), "object"),
    ((), "object"), (("spec", "nope", "x"), None), (("spec", "env", "x"), None),
    (("spec", "dataset", "inline", "scenarios", 0, "steps", 0, "customValues"), None),
    (("spec", "dataset", "inline", "scenarios", 0, "steps", 0, "customValues", "k"), None),
    (("spec", "dataset", "inline", "defaultThreshold"), "number"),
    (("metadata", "name"), "string"), (("metadata", "labels", "a"), "string"), (("metadata", "generation"), None),
])
def test_schema_type_at(path: tuple[Any, ...], kind: str | None) -> None:
    assert schema_type_at(path) == kind


# --- duplicates ---------------------------------------------------------------------------------------------------


def ident(name: str, ns: str | None, file: str, line: int = 4, **kw: Any) -> Identity:
    return Identity(name, ns, file, line, 9, line - 3, **kw)


def test_clashes_report_every_copy_naming_the_other() -> None:
    clashes = find_clashes([ident("a", "n", "f1"), ident("a", None, "f2", 14), ident("a", "n", "f3", valid=False),
                            ident("a", "n", "f4", rendered_copy=True), ident("b", None, "f5"),
                            ident("b", None, "f6", 24)], namespace="n")
    assert [(d.rule, d.severity, d.message, d.file, d.line, d.col, d.path, d.hint, d.object)
            for d in clashes.diagnostics] == [
        ("semantic/duplicate-experiment", Severity.ERROR, f"Experiment n/{n} is also defined at {first}: applied "
         "together, one silently replaces the other", file, line, 9, "metadata.name", "give each Experiment its own "
         "metadata.name (or namespace), or delete the copy", f"Experiment n/{n}")
        for n, first, file, line in (("a", "f2:14:9 and 1 more place", "f1", 4), ("a", "f1:4:9", "f2", 14),
                                     ("a", "f1:4:9", "f3", 4), ("b", "f6:24:9", "f5", 4), ("b", "f5:4:9", "f6", 24))]
    assert clashes.origins == {"f1:1", "f2:11", "f3:1", "f5:1", "f6:21"}
    assert clashes.invalidated == 4  # every copy that was valid on its own (f3 was not)
    assert [(a.file, b.file) for a, b in clashes.copies] == [("f1", "f2"), ("f2", "f1"), ("f3", "f1"), ("f5", "f6"),
                                                            ("f6", "f5")]


def test_without_a_namespace_copies_clash_only_among_themselves() -> None:
    clashes = find_clashes([ident("a", None, "f1"), ident("a", "n", "f2"), ident("a", None, "f3")])
    assert [(d.file, d.message, d.object) for d in clashes.diagnostics] == [
        (file, f"Experiment a (no namespace in either file) is also defined at {other}: applied together, one "
               "silently replaces the other", "Experiment a") for file, other in (("f1", "f3:4:9"), ("f3", "f1:4:9"))]
    assert clashes.invalidated == 2 and clashes.origins == {"f1:1", "f3:1"}


MAPS = {"type": "object", "properties": {
    "labels": {"type": "object", "additionalProperties": {"type": "string"}},
    "free": {"type": "object", "additionalProperties": True},
    "raw": {"x-kubernetes-preserve-unknown-fields": True},
    "typed": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}


@pytest.mark.parametrize(("path", "kind"), [
    (("labels", "app"), "string"), (("labels",), "object"), (("free", "x"), None), (("raw",), None),
    (("raw", "x"), None), (("typed",), "object"), (("labels", "app", "x"), None)])
def test_schema_type_at_follows_maps(monkeypatch: pytest.MonkeyPatch, path: tuple[Any, ...], kind: str | None) -> None:
    from kubectl_testbench.validate import crdschema

    monkeypatch.setattr(crdschema, "open_api_schema", lambda: MAPS)
    assert schema_type_at(path) == kind


def test_over_the_crd_total_every_rule_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from kubectl_testbench.validate.cel import cost as cel_cost
    from kubectl_testbench.validate.crdschema import refused_in

    schema = {"type": "object", "x-kubernetes-validations": [{"rule": "true"}], "properties": {"spec": {
        "type": "object", "x-kubernetes-validations": [
            {"rule": "self.list.all(x, self.list.all(y, x != y))"}, {"rule": "size(self.list) > 0"}],
        "properties": {"list": {"type": "array", "items": {"type": "integer"}}}}}}
    monkeypatch.setattr(cel_cost, "STATIC_ESTIMATED_CRD_COST_LIMIT", 1)
    refused = refused_in(schema)
    assert sorted(refused) == [((), 0), (("spec",), 0), (("spec",), 1)]
    assert refused[(("spec",), 0)].path == "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-" \
        "validations[0].rule"
    total = "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema"
    assert total in refused[(("spec",), 1)].message and total in refused[((), 0)].message
    assert refused[(("spec",), 1)].path == refused[((), 0)].path == "spec.validation.openAPIV3Schema"
    monkeypatch.setattr(cel_cost, "STATIC_ESTIMATED_CRD_COST_LIMIT", 10**18)
    assert sorted(refused_in(schema)) == [(("spec",), 0)]


def test_open_api_schema_names_the_unknown_version() -> None:
    with pytest.raises(KeyError) as info:
        open_api_schema("v9")
    assert info.value.args == ("v9",)

"""The schema node behind a document path: the CRD's for the Experiment, ObjectMeta's for metadata, None
wherever the schema says nothing (unknown fields, free-form maps, an index on a mapping)."""

from __future__ import annotations

from kubectl_testbench.lsp.fields import explain_path, is_metric_name, metadata_schema, node_at, object_node
from kubectl_testbench.validate.crdschema import open_api_schema

STEP = ("spec", "dataset", "inline", "scenarios", 0, "steps", 1)


def test_the_root_is_the_crds_schema() -> None:
    assert node_at(()) is open_api_schema()
    assert node_at(("spec", "trigger", "concurrencyPolicy"))["enum"] == ["Allow", "Forbid", "Replace"]  # type: ignore[index]


def test_metadata_is_objectmeta_as_the_editors_schema_has_it() -> None:
    assert node_at(("metadata",)) is metadata_schema()
    assert node_at(("metadata", "name")) == metadata_schema()["properties"]["name"]
    assert node_at(("metadata", "name"))["maxLength"] == 253  # type: ignore[index]
    assert node_at(("metadata", "labels", "app.kubernetes.io/name")) == {"type": "string"}
    assert node_at(("metadata", "annotations", "x")) == {"type": "string"}
    assert node_at(("metadata", "finalizers")) is None
    assert node_at(("spec", "metadata")) is None  # only the root's metadata is ObjectMeta


def test_list_items_are_reached_by_index_only() -> None:
    scenarios = open_api_schema()["properties"]["spec"]["properties"]["dataset"]["properties"]["inline"][
        "properties"]["scenarios"]
    assert node_at(("spec", "dataset", "inline", "scenarios")) is scenarios
    assert node_at(("spec", "dataset", "inline", "scenarios", 3)) is scenarios["items"]
    assert node_at((*STEP, "input")) == scenarios["items"]["properties"]["steps"]["items"]["properties"]["input"]
    assert node_at(("spec", "dataset", "inline", "scenarios", "name")) is None  # a key on a list
    assert node_at(("spec", 0)) is None  # an index on a mapping


def test_unknown_fields_and_everything_below_them_have_no_schema() -> None:
    assert node_at(("spec", "datasets")) is None
    assert node_at(("spec", "datasets", "url")) is None
    assert node_at(("spec", "datasets", 0, "url")) is None
    assert node_at(("metadata", "labels", "app", "deeper")) is None  # a label value is a string: no keys below


def test_the_mapping_a_key_completes_in() -> None:
    scenarios = node_at(("spec", "dataset", "inline", "scenarios"))
    assert scenarios is not None and scenarios["type"] == "array"
    assert object_node(scenarios) is scenarios["items"]
    spec = node_at(("spec",))
    assert object_node(spec) is spec
    assert object_node(None) is None
    nested = {"type": "array", "items": {"type": "array", "items": {"type": "object", "properties": {}}}}
    assert object_node(nested) == {"type": "object", "properties": {}}
    assert object_node({"type": "array"}) == {"type": "array"}  # items unknown: the array itself
    assert object_node({"type": "array", "items": True}) == {"type": "array", "items": True}


def test_explain_paths_drop_list_indexes() -> None:
    assert explain_path(()) == "experiment"
    assert explain_path((*STEP, "metrics", 0, "metricName")) == (
        "experiment.spec.dataset.inline.scenarios.steps.metrics.metricName")


def test_metric_names_are_only_the_metricname_of_a_step_metric() -> None:
    assert is_metric_name((*STEP, "metrics", 0, "metricName"))
    assert is_metric_name(("spec", "dataset", "inline", "scenarios", "steps", "metrics", "metricName"))
    assert not is_metric_name((*STEP, "metrics", 0, "threshold"))
    assert not is_metric_name((*STEP, "metrics", 0))
    assert not is_metric_name(("x", *STEP, "metrics", 0, "metricName"))

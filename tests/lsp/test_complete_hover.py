"""Completion and hover on Experiments being typed: half-typed YAML, list items, block scalars, JSON, other
kinds in the same file. ``|`` in a fixture marks the cursor."""

from __future__ import annotations

import pytest

pytest.importorskip("pygls", reason="the lsp extra is not installed: pip install '.[lsp]'")

from lsprotocol import types as t

from kubectl_testbench.crd.explain import explain
from kubectl_testbench.lsp.completion import complete
from kubectl_testbench.lsp.hover import hover_at, metric_markdown
from kubectl_testbench.lsp.text import TextIndex
from kubectl_testbench.model.constants import API_VERSION
from kubectl_testbench.validate.crdschema import open_api_schema
from kubectl_testbench.validate.metrics import NEEDS, OLD_NAMES, UNSCORABLE
from tests.lsp.client import apply_edits, covered

HEAD = "apiVersion: testbench.agentic-layer.ai/v1alpha1\nkind: Experiment\nmetadata:\n  name: demo\n"


def _items(marked: str) -> tuple[str, list[t.CompletionItem]]:
    offset = marked.index("|")
    text = marked[:offset] + marked[offset + 1:]
    return text, complete(TextIndex(text), offset)


def _labels(marked: str) -> list[str]:
    """The labels in the order a client shows them (by sort text)."""
    return [i.label for i in sorted(_items(marked)[1], key=lambda i: i.sort_text or i.label)]


def _accept(marked: str, label: str) -> str:
    """The text after choosing ``label`` (its text edit applied as the client would)."""
    text, items = _items(marked)
    item = next(i for i in items if i.label == label)
    assert isinstance(item.text_edit, t.TextEdit)
    return apply_edits(text, [item.text_edit])


def test_field_names_at_a_half_typed_key_leave_out_fields_already_written_above_and_below() -> None:
    marked = HEAD + "spec:\n  agentRef:\n    name: a\n  tr|\n  dataset:\n    url: https://h/d.json\n"
    assert _labels(marked) == ["aiGatewayRef", "env", "schedule", "trigger"]
    assert _accept(marked, "trigger") == marked.replace("tr|", "trigger:")
    assert _accept(marked, "schedule").count("  schedule:\n") == 1


def test_required_fields_sort_first_and_carry_their_type_and_docs() -> None:
    text, items = _items(HEAD + "spec:\n  agentRef:\n    |\n")
    by_label = {i.label: i for i in items}
    assert sorted(by_label) == ["name", "namespace"]
    assert by_label["name"].detail == "<string> required" and by_label["name"].sort_text == "0name"
    assert by_label["namespace"].detail == "<string>"
    assert isinstance(by_label["name"].documentation, t.MarkupContent)
    assert apply_edits(text, [by_label["name"].text_edit]).endswith("    name: \n")  # type: ignore[list-item]


def test_root_fields_apiversion_and_kind_values() -> None:
    assert _labels("|") == ["apiVersion", "kind", "metadata", "spec"]  # status: the API server discards it
    assert _labels("apiVersion: |\n") == [API_VERSION]
    accepted = _accept("apiVersion: testb|\nkind: Experiment\n", API_VERSION)
    assert accepted == f"apiVersion: {API_VERSION}\nkind: Experiment\n"
    assert _accept("kind:|\n", "Experiment") == "kind: Experiment\n"


def test_enum_and_boolean_values_keep_the_quote_style() -> None:
    marked = HEAD + "spec:\n  trigger:\n    enabled: |\n    concurrencyPolicy: 'fo|'\n"
    first = marked.replace("'fo|'", "'fo'")
    assert _labels(first) == ["true", "false"]
    second = marked.replace("enabled: |", "enabled: true")
    assert _labels(second) == ["Allow", "Forbid", "Replace"]
    assert "concurrencyPolicy: 'Forbid'\n" in _accept(second, "Forbid")


def test_list_items_complete_the_items_fields() -> None:
    marked = HEAD + ("spec:\n  dataset:\n    inline:\n      scenarios:\n      - name: s\n        steps:\n"
                     "        - input: hi\n          |\n")
    assert _labels(marked) == ["customValues", "metrics", "reference"]
    second = marked.replace("          |\n", "        - |\n")
    assert _labels(second) == ["input", "customValues", "metrics", "reference"]


def test_metric_names_with_what_each_needs() -> None:
    marked = HEAD + ("spec:\n  dataset:\n    inline:\n      scenarios:\n      - name: s\n        steps:\n"
                     "        - input: hi\n          metrics:\n          - metricName: Tool|\n")
    text, items = _items(marked)
    assert [i.label for i in items] == sorted(NEEDS)
    tool = next(i for i in items if i.label == "ToolCallAccuracy")
    assert tool.detail == "needs reference.toolCalls"
    no_ref = next(i for i in items if i.label == "AgentGoalAccuracyWithoutReference")
    assert no_ref.detail == "needs input only"
    assert "metricName: ToolCallAccuracy\n" in apply_edits(text, [tool.text_edit])  # type: ignore[list-item]


def test_json_documents_complete_json_strings() -> None:
    marked = '{"apiVersion": "testbench.agentic-layer.ai/v1alpha1", "kind": "Experiment",\n "spec": {"trigger": {"|'
    assert _labels(marked) == ["concurrencyPolicy", "enabled"]
    assert _accept(marked, "enabled").endswith('{"trigger": {"enabled": ')
    value = '{"kind": "Experiment", "spec": {"trigger": {"concurrencyPolicy": "Fo|"}}}'
    assert _accept(value, "Forbid") == '{"kind": "Experiment", "spec": {"trigger": {"concurrencyPolicy": "Forbid"}}}'
    written = '{"kind": "Experiment", "spec": {"agentRef": {"name": "a"}, |, "dataset": {}}}'
    assert "agentRef" not in _labels(written) and "dataset" not in _labels(written)


def test_no_completion_in_comments_block_text_or_other_kinds() -> None:
    assert _labels(HEAD + "spec:\n  # tr|\n") == []
    steps = HEAD + "spec:\n  dataset:\n    inline:\n      scenarios:\n      - name: s\n        steps:\n"
    assert _labels(steps + "        - input: |\n            some text: |\n") == []
    other = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n|\n---\n" + HEAD
    assert _labels(other) == []
    second = "apiVersion: v1\nkind: ConfigMap\n---\n" + HEAD + "|\n"
    assert _labels(second) == ["spec"]


def test_metadata_fields_come_from_objectmeta() -> None:
    assert _labels(HEAD.replace("  name: demo\n", "  |\n")) == ["name", "annotations", "labels", "namespace"]


def _hover(marked: str) -> tuple[str, str] | None:
    offset = marked.index("|")
    text = marked[:offset] + marked[offset + 1:]
    found = hover_at(text, offset)
    return None if found is None else (found.markdown, text[found.start:found.end])


def _explained(field: str) -> str:
    text = explain(open_api_schema(), field)
    return text[text.index("FIELD:"):].rstrip()


def test_hover_shows_what_explain_shows() -> None:
    found = _hover(HEAD + "spec:\n  trigger:\n    concurr|encyPolicy: Allow\n")
    assert found is not None
    markdown, token = found
    assert token == "concurrencyPolicy"
    assert _explained("experiment.spec.trigger.concurrencyPolicy") in markdown
    value = _hover(HEAD + "spec:\n  trigger: {concurrencyPolicy: Al|low}\n")
    assert value is not None and value[1] == "Allow" and "ENUM: Allow, Forbid, Replace" in value[0]
    spec = _hover(HEAD + "sp|ec:\n")
    assert spec is not None and _explained("experiment.spec") in spec[0]


def test_hover_on_metric_names_gives_the_reference_data_they_need() -> None:
    steps = HEAD + ("spec:\n  dataset:\n    inline:\n      scenarios:\n      - name: s\n        steps:\n"
                    "        - input: hi\n          metrics:\n          - metricName: ")
    found = _hover(steps + "Tool|CallAccuracy\n")
    assert found is not None
    assert "needs: `reference.toolCalls`" in found[0]
    assert _explained("experiment.spec.dataset.inline.scenarios.steps.metrics.metricName") in found[0]
    unscorable = sorted(UNSCORABLE)[0]
    assert f"never scores it: {UNSCORABLE[unscorable]}" in metric_markdown(unscorable)
    old, new = next(iter(OLD_NAMES.items()))
    assert f"old name of `{new}`" in metric_markdown(old)


def test_hover_in_json() -> None:
    text = '{"kind": "Experiment", "spec": {"trigger": {"concurrencyPolicy": "Allow"}}}'
    found = hover_at(text, text.index("concurrencyPolicy") + 2)
    assert found is not None and text[found.start:found.end] == '"concurrencyPolicy"'
    assert _explained("experiment.spec.trigger.concurrencyPolicy") in found.markdown
    value = hover_at(text, text.index("Allow") + 1)
    assert value is not None and "ENUM: Allow, Forbid, Replace" in value.markdown


def test_hover_on_metadata_and_unknown_fields() -> None:
    found = _hover(HEAD.replace("  name: demo", "  na|me: demo"))
    assert found is not None and "FIELD: name <string>" in found[0] and "PATTERN: ^[a-z0-9]" in found[0]
    assert _hover(HEAD + "spec:\n  datas|et2: {}\n") is None


def test_completion_range_holds_the_cursor_in_the_middle_of_a_key() -> None:
    text, items = _items(HEAD + "spec:\n  trig|ger: {}\n")
    edit = next(i for i in items if i.label == "trigger").text_edit
    assert isinstance(edit, t.TextEdit)
    assert covered(text, edit.range) == "trigger" and edit.new_text == "trigger"

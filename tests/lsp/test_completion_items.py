"""Completion items in full: label, detail, sort and filter text, the text each writes and the range it
replaces, for keys and values in block YAML, quoted tokens and JSON."""

from __future__ import annotations

import pytest

pytest.importorskip("pygls", reason="the lsp extra is not installed: pip install '.[lsp]'")

from lsprotocol import types as t

from kubectl_testbench.lsp.completion import complete
from kubectl_testbench.lsp.text import TextIndex
from kubectl_testbench.model.constants import API_VERSION
from tests.lsp.client import apply_edits

HEAD = f"apiVersion: {API_VERSION}\nkind: Experiment\nmetadata:\n  name: demo\n"


def items(marked: str) -> tuple[str, dict[str, t.CompletionItem]]:
    offset = marked.index("|")
    text = marked[:offset] + marked[offset + 1:]
    return text, {i.label: i for i in complete(TextIndex(text), offset)}


def summary(item: t.CompletionItem) -> tuple[object, ...]:
    edit = item.text_edit
    assert isinstance(edit, t.TextEdit)
    return (item.kind, item.detail, item.sort_text, item.filter_text, edit.new_text,
            (edit.range.start.line, edit.range.start.character, edit.range.end.line, edit.range.end.character))


def test_an_empty_key_in_block_yaml() -> None:
    _, found = items(HEAD + "spec:\n  |\n")
    assert sorted(found) == ["agentRef", "aiGatewayRef", "dataset", "env", "schedule", "trigger"]
    assert summary(found["agentRef"]) == (t.CompletionItemKind.Property, "<Object> required", "0agentRef", "agentRef",
                                          "agentRef:", (5, 2, 5, 2))
    assert summary(found["aiGatewayRef"])[1:5] == ("<Object>", "1aiGatewayRef", "aiGatewayRef", "aiGatewayRef:")
    assert summary(found["env"])[1] == "<[]Object>" and summary(found["env"])[4] == "env:"
    assert isinstance(found["agentRef"].documentation, t.MarkupContent)
    assert found["agentRef"].documentation.kind == t.MarkupKind.Markdown
    scalar = items(HEAD + "spec:\n  agentRef:\n    |\n")[1]["name"]
    assert summary(scalar)[4] == "name: "  # a scalar field: the cursor lands after the space


def test_a_key_already_followed_by_its_colon_is_only_renamed() -> None:
    text, found = items(HEAD + "spec:\n  tr|: x\n")
    assert summary(found["trigger"])[4:] == ("trigger", (5, 2, 5, 4))
    assert apply_edits(text, [found["trigger"].text_edit]) == HEAD + "spec:\n  trigger: x\n"  # type: ignore[list-item]
    spaced = items(HEAD + "spec:\n  tr| \t: x\n")[1]
    assert summary(spaced["trigger"])[4] == "trigger"


def test_a_quoted_key_keeps_its_quotes() -> None:
    text, found = items(HEAD + "spec:\n  'tr|'\n")
    assert summary(found["trigger"])[3:] == ("'trigger", "'trigger':", (5, 2, 5, 6))
    assert apply_edits(text, [found["trigger"].text_edit]) == HEAD + "spec:\n  'trigger':\n"  # type: ignore[list-item]


def test_json_keys() -> None:
    _, found = items('{"kind": "Experiment", "spec": {"tr|": 1}}')
    assert summary(found["trigger"])[3:] == ('"trigger', '"trigger"', (0, 32, 0, 36))
    empty = items('{"kind": "Experiment", "spec": {|}}')[1]
    assert summary(empty["trigger"])[3:] == ("trigger", '"trigger": ', (0, 32, 0, 32))


def test_values_after_a_colon_without_a_space_get_one() -> None:
    _, found = items("kind:|\n")
    assert summary(found["Experiment"]) == (t.CompletionItemKind.EnumMember, "the Experiment kind", "0000",
                                            "Experiment", " Experiment", (0, 5, 0, 5))
    assert found["Experiment"].documentation is None
    assert summary(items("kind: |\n")[1]["Experiment"])[4] == "Experiment"
    assert summary(items("apiVersion: |\n")[1][API_VERSION])[1] == "the Experiment API"


def test_booleans_are_written_unquoted_even_over_a_quoted_token() -> None:
    text, found = items(HEAD + 'spec:\n  trigger:\n    enabled: "t|"\n')
    assert summary(found["true"]) == (t.CompletionItemKind.EnumMember, "boolean", "0000", '"true', "true",
                                      (6, 13, 6, 16))
    assert summary(found["false"])[2] == "0001"
    assert apply_edits(text, [found["true"].text_edit]).endswith("    enabled: true\n")  # type: ignore[list-item]
    _, json_found = items('{"kind": "Experiment", "spec": {"trigger": {"enabled": |}}}')
    assert summary(json_found["false"])[3:] == ("false", "false", (0, 55, 0, 55))


def test_enum_values_in_json_and_quoted_yaml() -> None:
    _, found = items('{"kind": "Experiment", "spec": {"trigger": {"concurrencyPolicy": "|"}}}')
    assert summary(found["Forbid"])[1:5] == ("allowed value", "0001", '"Forbid', '"Forbid"')
    _, single = items(HEAD + "spec:\n  trigger:\n    concurrencyPolicy: 'R|'\n")
    assert summary(single["Replace"])[2:5] == ("0002", "'Replace", "'Replace'")
    _, plain = items(HEAD + "spec:\n  trigger:\n    concurrencyPolicy: R|\n")
    assert summary(plain["Replace"])[3:5] == ("Replace", "Replace")


def test_metric_names_carry_what_the_hover_shows() -> None:
    from kubectl_testbench.lsp.hover import metric_markdown

    marked = HEAD + ("spec:\n  dataset:\n    inline:\n      scenarios:\n      - name: s\n        steps:\n"
                     "        - input: hi\n          metrics:\n          - metricName: |\n")
    _, found = items(marked)
    exact = found["ExactMatch"]
    assert exact.detail == "needs reference.response"
    assert isinstance(exact.documentation, t.MarkupContent)
    assert exact.documentation.value == metric_markdown("ExactMatch")


def test_no_values_for_free_text_fields_and_none_in_other_kinds() -> None:
    assert items(HEAD + "spec:\n  agentRef:\n    name: |\n")[1] == {}
    assert items("apiVersion: v1\nkind: ConfigMap\ndata:\n  |\n")[1] == {}


def test_the_range_always_holds_the_cursor() -> None:
    text, found = items(HEAD + "spec:\n  trigger:\n    concurrencyPolicy: Fo|rbid\n")
    assert summary(found["Allow"])[5] == (6, 23, 6, 29)
    assert apply_edits(text, [found["Allow"].text_edit]).endswith("concurrencyPolicy: Allow\n")  # type: ignore[list-item]


def test_objectmeta_keys_maps_open_a_block_and_carry_no_docs() -> None:
    _, found = items(HEAD.replace("  name: demo\n", "  name: demo\n  |\n"))
    assert summary(found["labels"])[1:5] == ("<map[string]string>", "1labels", "labels", "labels:")
    assert summary(found["namespace"])[1:5] == ("<string>", "1namespace", "namespace", "namespace: ")
    assert found["labels"].documentation is None
    assert "name" not in found


def test_json_values_right_after_the_colon_get_no_space() -> None:
    _, found = items('{"kind": "Experiment", "spec": {"trigger": {"enabled":|}}}')
    assert summary(found["true"])[4] == "true"

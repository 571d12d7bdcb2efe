"""Hover text verbatim: what a metric needs, ObjectMeta fields, and where no hover is offered."""

from __future__ import annotations

import pytest

pytest.importorskip("pygls", reason="the lsp extra is not installed: pip install '.[lsp]'")

from kubectl_testbench.lsp.hover import field_markdown, hover_at, metric_markdown
from kubectl_testbench.validate.metrics import PHASE_PACKAGE

HEAD = "apiVersion: testbench.agentic-layer.ai/v1alpha1\nkind: Experiment\nmetadata:\n  name: demo\n"
METRIC = HEAD + ("spec:\n  dataset:\n    inline:\n      scenarios:\n      - name: s\n        steps:\n"
                 "        - input: hi\n          metrics:\n          - metricName: ")
METRIC_PATH = ("spec", "dataset", "inline", "scenarios", 0, "steps", 0, "metrics", 0, "metricName")


def _hover(marked: str) -> tuple[str, str] | None:
    offset = marked.index("|")
    text = marked[:offset] + marked[offset + 1:]
    found = hover_at(text, offset)
    return None if found is None else (found.markdown, text[found.start:found.end])


def test_a_scorable_metric_names_its_package_needs_parameters_and_judge() -> None:
    assert metric_markdown("ToolCallAccuracy") == (
        f"**ToolCallAccuracy**: scored by {PHASE_PACKAGE}\n\n"
        "needs: `reference.toolCalls`  \nparameters: `strict_order`  \ncomputed without an LLM judge")
    assert metric_markdown("FactualCorrectness") == (
        f"**FactualCorrectness**: scored by {PHASE_PACKAGE}\n\n"
        "needs: `reference.response`  \nparameters: `atomicity`, `beta`, `coverage`, `mode`  \n"
        "uses the LLM judge (llmAsAJudgeModel)")
    assert metric_markdown("AgentGoalAccuracyWithoutReference") == (
        f"**AgentGoalAccuracyWithoutReference**: scored by {PHASE_PACKAGE}\n\n"
        "needs: nothing besides the step input  \nuses the LLM judge (llmAsAJudgeModel)")


def test_unscorable_old_and_unknown_metric_names() -> None:
    assert metric_markdown("SummaryScore") == (
        "**SummaryScore**: the evaluate phase finds it but never scores it: its score needs reference_contexts, "
        "which the evaluate phase never passes")
    assert metric_markdown("TopicAdherenceScore") == (
        "**TopicAdherenceScore**: old name of `TopicAdherence`; not in ragas.metrics.collections")
    assert metric_markdown("Nope") == (
        "**Nope**: not a metric the evaluate phase finds (`kubectl testbench explain metrics` lists them)")


def test_hover_on_a_metric_name_value_is_the_metric_then_the_field() -> None:
    found = _hover(METRIC + "Exact|Match\n")
    assert found == (metric_markdown("ExactMatch") + "\n\n" + field_markdown(METRIC_PATH), "ExactMatch")


def test_hover_on_the_metricname_key_is_the_field_only() -> None:
    marked = METRIC.replace("- metricName: ", "- metric|Name: ") + "ExactMatch\n"
    found = _hover(marked)
    assert found == (field_markdown(METRIC_PATH), "metricName")


def test_hover_on_an_unknown_metric_still_explains_the_field() -> None:
    found = _hover(METRIC + "No|pe\n")
    assert found is not None
    assert found[0].startswith(metric_markdown("Nope") + "\n\n```text\nFIELD: metricName <string>")


def test_objectmeta_fields_verbatim() -> None:
    assert _hover(HEAD.replace("  name: demo", "  labels:\n    a|pp: web")) == (
        "```text\nFIELD: app <string>\n\nDESCRIPTION:\n    ObjectMeta field, validated by the API server itself.\n"
        "```", "app")
    assert _hover(HEAD.replace("  name: demo", "  lab|els: {}")) == (
        "```text\nFIELD: labels <map[string]string>\n\nDESCRIPTION:\n"
        "    ObjectMeta field, validated by the API server itself.\n```", "labels")
    assert _hover(HEAD.replace("  name: demo", "  namesp|ace: x")) == (
        "```text\nFIELD: namespace <string>\n\nDESCRIPTION:\n    ObjectMeta field, validated by the API server "
        "itself.\n    MAX LENGTH: 63\n    PATTERN: ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$\n```", "namespace")


def test_metadata_itself_is_explained_as_explain_explains_it() -> None:
    found = _hover(HEAD.replace("metadata:", "meta|data:"))
    assert found is not None and found[1] == "metadata"
    assert found[0].startswith("```text\nFIELD: metadata <ObjectMeta>\n")
    assert found[0].endswith("server. Read-only.\n```")  # explain's trailing newline is not a blank line


def test_a_label_key_holding_a_fence_cannot_close_the_hovers_code_block() -> None:
    found = _hover(HEAD.replace("  name: demo", "  labels:\n    a|```b: web"))
    assert found is not None
    assert found[0] == ("````text\nFIELD: a```b <string>\n\nDESCRIPTION:\n    ObjectMeta field, validated by the API "
                        "server itself.\n````")


def test_no_hover_where_nothing_is_known() -> None:
    assert _hover(HEAD.replace("  name: demo", "  finaliz|ers: []")) is None  # not in ObjectMeta's editor schema
    assert _hover(HEAD + "spec:\n  foo: b|ar\n") is None  # explain knows no spec.foo
    assert _hover(HEAD + "spec:\n  # agent|Ref\n") is None  # a comment
    assert _hover(HEAD + "spec:\n |\n") is None  # no token under the cursor
    assert _hover("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  na|me: x\n") is None  # another kind
    assert field_markdown(()) is None


def test_a_document_without_a_kind_yet_gets_hovers() -> None:
    found = _hover("spec:\n  agent|Ref: {}\n")
    assert found is not None and found[1] == "agentRef" and "FIELD: agentRef <Object>" in found[0]

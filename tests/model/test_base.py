"""KubeModel.wire: a model as the API server stores it (what import writes into an Experiment)."""

from __future__ import annotations

from kubectl_testbench.model.experiment import Metric, Reference, ToolCall


def test_wire_writes_camel_case_keys_and_leaves_unset_fields_out() -> None:
    metric = Metric(metric_name="answer_accuracy", threshold=0.5)
    assert metric.wire() == {"metricName": "answer_accuracy", "threshold": 0.5}
    reference = Reference(retrieved_contexts=["a"], tool_calls=[ToolCall(name="search", args={"q": "x"})])
    assert reference.wire() == {"retrievedContexts": ["a"], "toolCalls": [{"args": {"q": "x"}, "name": "search"}]}


def test_wire_is_json_values_whatever_python_held() -> None:
    metric = Metric(metric_name="m", parameters={"when": (1, 2), "nested": {"empty": None}})
    assert metric.wire() == {"metricName": "m", "parameters": {"when": [1, 2], "nested": {"empty": None}}}

"""``experiment.json`` byte for byte as the operator writes it.

The operator (experiment_controller.go@a8e16f1, ``buildExperimentJSON``) marshals its own structs with Go's
``json.MarshalIndent(exp, "", "  ")``. Go writes struct fields in declaration order, not sorted:

- experimentJSON: llm_as_a_judge_model, default_threshold, scenarios
- scenarioJSON: name, steps
- stepJSON: input, reference, custom_values, metrics
- referenceJSON: response, tool_calls, topics, retrieved_contexts
- toolCallJSON: name, args
- metricJSON: metric_name, threshold, parameters

Only ``args``, ``parameters`` and ``custom_values`` are ``json.RawMessage``: the bytes the API server stored,
which it writes from a Go map, i.e. with sorted keys at every depth. Go's encoder re-indents them and escapes
``<``, ``>`` and ``&``. The expected text below is written out by hand from those rules.
"""

from __future__ import annotations

from kubectl_testbench.model.experiment_json import experiment_json

DATASET = {
    "scenarios": [{
        "name": "Refund <damaged> & late",
        "steps": [{
            "metrics": [
                {"parameters": {"mode": "recall", "atomicity": "low"}, "threshold": 0.7,
                 "metricName": "TopicAdherence"},
                {"metricName": "ToolCallAccuracy"},
            ],
            "customValues": {"zeta": [1, {"b": 2, "a": 1}], "alpha": True},
            "reference": {
                "retrievedContexts": ["policy"],
                "topics": ["refunds"],
                "toolCalls": [{"args": {"reason": "damaged", "order": {"lines": 2, "id": "4711"}},
                               "name": "create_refund"}],
                "response": "Refund started.",
            },
            "input": "Order #4711 arrived damaged.",
        }],
    }],
    "defaultThreshold": 0.8,
    "llmAsAJudgeModel": "gpt-4o-mini",
}

EXPECTED = """\
{
  "llm_as_a_judge_model": "gpt-4o-mini",
  "default_threshold": 0.8,
  "scenarios": [
    {
      "name": "Refund \\u003cdamaged\\u003e \\u0026 late",
      "steps": [
        {
          "input": "Order #4711 arrived damaged.",
          "reference": {
            "response": "Refund started.",
            "tool_calls": [
              {
                "name": "create_refund",
                "args": {
                  "order": {
                    "id": "4711",
                    "lines": 2
                  },
                  "reason": "damaged"
                }
              }
            ],
            "topics": [
              "refunds"
            ],
            "retrieved_contexts": [
              "policy"
            ]
          },
          "custom_values": {
            "alpha": true,
            "zeta": [
              1,
              {
                "a": 1,
                "b": 2
              }
            ]
          },
          "metrics": [
            {
              "metric_name": "TopicAdherence",
              "threshold": 0.7,
              "parameters": {
                "atomicity": "low",
                "mode": "recall"
              }
            },
            {
              "metric_name": "ToolCallAccuracy"
            }
          ]
        }
      ]
    }
  ]
}"""


def test_experiment_json_is_the_operators_bytes_struct_order_and_sorted_raw_maps() -> None:
    assert experiment_json(DATASET) == EXPECTED


def test_an_empty_reference_is_kept_as_the_operators_pointer_field_is() -> None:
    text = experiment_json({"scenarios": [{"name": "s", "steps": [{"input": "hi", "reference": {}}]}]})
    assert text == '{\n  "scenarios": [\n    {\n      "name": "s",\n      "steps": [\n        {\n' \
                   '          "input": "hi",\n          "reference": {}\n        }\n      ]\n    }\n  ]\n}'

"""AgentV: tests/criteria suites, the legacy evalcases generation, Promptfoo-style suites and JSONL case files."""

from __future__ import annotations

from pathlib import Path

import pytest
from importer_helpers import FIXTURES, metric_names, pos, run, scenarios, steps, warnings_of

from kubectl_testbench.integrations.importers import ImportInputError, ImportOptions, import_dataset
from kubectl_testbench.integrations.importers.common import dropped_message

# Criteria, rubrics and judges map to AspectCritic, which the phase package cannot score: each is left out and
# reported once (dropped_message); a step left without a metric gets the defaults for its reference data.

BASIC = "agentv/basic/EVAL.yaml"
LEGACY = "agentv/legacy/dataset.eval.yaml"
PROMPTFOO = "agentv/promptfoo/suite.eval.yaml"
JAVASCRIPT = (FIXTURES / "agentv/basic/javascript.instructions.md").read_text(encoding="utf-8").rstrip("\n")


def test_tests_generation_field_by_field() -> None:
    result = run("agentv", "agentv/basic")  # the directory: EVAL.yaml is found by name
    inline = result.experiment["spec"]["dataset"]["inline"]
    assert inline["defaultThreshold"] == 0.7
    assert result.experiment["metadata"]["annotations"]["import.testbench.agentic-layer.ai/description"] == \
        "Code review and debugging conversations"
    assert [s["name"] for s in scenarios(result)] == ["code-review-javascript", "python-debugging",
                                                      "shorthand-structured-output"]
    # text and file blocks in order; an input file is wrapped with its path, an expected-output file is the text
    assert steps(result, 0) == [{
        "input": "Please review this JavaScript function.\n\n"
                 f'<file path="javascript.instructions.md">\n{JAVASCRIPT}\n</file>',
        "reference": {"response": "The loop condition `i < 0` never runs; use `i < items.length`."},
        "customValues": {"language": "javascript"},
        "metrics": [{"metricName": "AgentGoalAccuracyWithReference"}],
    }]


def test_shared_conversation_id_becomes_one_scenario() -> None:
    result = run("agentv", BASIC)
    # debug-step-2 repeats the conversation so far: only its new user turn becomes a step
    assert steps(result, 1) == [
        {"input": "My function drops the last element. Can you help?",
         "customValues": {"id": "debug-step-1"},
         "metrics": [{"metricName": "AgentGoalAccuracyWithoutReference"}]},
        {"input": "For [1, 2, 3] I expect [1, 2, 3] but get [1, 2].",
         "reference": {"response": "Use range(len(items)) instead of range(len(items) - 1)."},
         "customValues": {"id": "debug-step-2"},
         "metrics": [{"metricName": "AgentGoalAccuracyWithReference", "threshold": 0.9}]},
    ]


def test_structured_expected_output_and_assertions() -> None:
    result = run("agentv", BASIC)
    assert steps(result, 2) == [{
        "input": "Analyze transaction 12345 for fraud risk",
        "reference": {"response": '{"confidence": 0.95, "riskLevel": "Low"}'},
        "metrics": [{"metricName": "AgentGoalAccuracyWithReference"}],
    }]


def test_tests_generation_warnings() -> None:
    result = run("agentv", BASIC)
    assert warnings_of(result) == [
        (BASIC, *pos(BASIC, "target: llm"), "execution.target is not carried over: the Experiment evaluates the agent "
                                            "given with --agent"),
        (BASIC, *pos(BASIC, "role: system"), "system message is not carried over: a Testbench step sends user "
                                               "input only; the agent's own instructions apply"),
        (BASIC, 14, 9, dropped_message("AspectCritic", 3)),
        (BASIC, *pos(BASIC, "weight: 2.0"), "rubric weight 2 is not carried over: each rubric is its own "
                                            "AspectCritic metric that must pass"),
        (BASIC, *pos(BASIC, "role: assistant", after="debug-step-2"),
         "scripted assistant turn is not replayed: the agent answers each user turn itself"),
        (BASIC, *pos(BASIC, "type: contains"), 'contains assertion "riskLevel" is not carried over: StringPresence '
                                                 "compares with reference.response, which already holds the expected "
                                                 "output"),
        (BASIC, *pos(BASIC, "type: regex"), 'assertion "regex" is not carried over: no RAGAS metric does what it '
                                              "checks"),
        (BASIC, *pos(BASIC, "name: correctness"), 'llm-grader grader "correctness" with a custom prompt is not '
                                                    "carried over: AspectCritic needs the criterion as text (use "
                                                    "criteria or value)"),
        (BASIC, *pos(BASIC, "target: azure-llm"), "execution.target is not carried over: the Experiment evaluates the "
                                                  "agent given with --agent"),
    ]
    assert [w.field for w in result.warnings][:2] == ["execution.target", "tests[0].input[0]"]


def test_legacy_evalcases_generation() -> None:
    result = run("agentv", LEGACY)
    inline = result.experiment["spec"]["dataset"]["inline"]
    assert inline["llmAsAJudgeModel"] == "gpt-5-chat"  # the llm_judge evaluator's model
    assert scenarios(result) == [
        {"name": "weather-lookup", "steps": [{
            "input": "What is the weather in Berlin?",
            "reference": {"response": "It is sunny in Berlin.",
                          "toolCalls": [{"name": "get_weather", "args": {"city": "Berlin"}}]},
            "metrics": [{"metricName": "ToolCallAccuracy"}, {"metricName": "AgentGoalAccuracyWithReference"}],
        }]},
        {"name": "quicksort", "steps": [{
            "input": "Explain quicksort",
            "metrics": [{"metricName": "AgentGoalAccuracyWithoutReference"}],
        }]},
    ]
    assert warnings_of(result) == [
        (LEGACY, *pos(LEGACY, "target: default"), "target is not carried over: the Experiment evaluates the agent "
                                                  "given with --agent"),
        (LEGACY, 9, 9, dropped_message("AspectCritic", 2)),
        (LEGACY, *pos(LEGACY, "output: {sky"), "expected tool output is not carried over: the agent's real tools "
                                               "answer at run time"),
        (LEGACY, *pos(LEGACY, "name: content"), 'llm_judge grader "content" with a custom prompt is not carried '
                                                  "over: AspectCritic needs the criterion as text (use criteria or "
                                                  "value)"),
        (LEGACY, *pos(LEGACY, "name: format_check"), 'assertion "code_judge" is not carried over: no RAGAS metric '
                                                       "does what it checks"),
        (LEGACY, *pos(LEGACY, "weight: 2.0"), "rubric weight 2 is not carried over: each rubric is its own "
                                              "AspectCritic metric that must pass"),
    ]


def test_promptfoo_style_suite_renders_prompts_with_vars() -> None:
    result = run("agentv", PROMPTFOO)
    assert scenarios(result) == [
        {"name": "release-notes", "steps": [{
            "input": "Summarize the July release notes for engineers.",
            "reference": {"response": "concise release-note summary"},
            "customValues": {"vars": {"ticket": "REL-7"}},  # vars the prompt does not use are kept
            "metrics": [{"metricName": "AgentGoalAccuracyWithReference"}],
        }]},
        {"name": "roadmap", "steps": [{
            "input": "Summarize the next roadmap phase for executives.",
            "metrics": [{"metricName": "AgentGoalAccuracyWithoutReference"}],
        }]},
    ]
    assert warnings_of(result) == [
        (PROMPTFOO, 1, 1, "Promptfoo-style AgentV suite (prompts/providers/vars): prompts are rendered with each "
                          "test's vars into the step input; providers, file:// prompts and template filters are not "
                          "supported"),
        (PROMPTFOO, *pos(PROMPTFOO, "providers:"), "providers are not carried over: the Experiment evaluates the "
                                                   "agent given with --agent"),
        (PROMPTFOO, *pos(PROMPTFOO, "value: \"Matches"), 'template variable(s) expected_output not defined in the vars '
                                                        'of test "roadmap": left as written'),
        (PROMPTFOO, *pos(PROMPTFOO, "evaluate_options:"), '"evaluate_options" is not carried over: repeats, budgets '
                                                          "and concurrency are AgentV run controls"),
        (PROMPTFOO, *pos(PROMPTFOO, "scenarios:"), '"scenarios" is not carried over: Promptfoo-style scenario '
                                                   "matrices are not supported; list the tests instead"),
        (PROMPTFOO, 21, 5, dropped_message("AspectCritic", 2)),
        (PROMPTFOO, *pos(PROMPTFOO, "type: equals"), 'equals assertion "{{ missing_var }}" is not carried over: '
                                                       "ExactMatch compares with reference.response, which already "
                                                       "holds the expected output"),
        (PROMPTFOO, *pos(PROMPTFOO, 'value: "{{ missing_var }}"'), 'template variable(s) missing_var not defined in '
                                                                  'the vars of test "release-notes": left as written'),
        (PROMPTFOO, *pos(PROMPTFOO, "type: is-json"), 'assertion "is-json" is not carried over: no RAGAS metric '
                                                        "does what it checks"),
    ]


def test_several_prompts_make_one_scenario_per_prompt(tmp_path: Path) -> None:
    suite = tmp_path / "multi.eval.yaml"
    suite.write_text("prompts:\n  - \"Q: {{ q }}\"\n  - id: polite\n    prompt: \"Please answer: {{ q }}\"\n"
                     "tests:\n  - id: capital\n    vars: {q: What is the capital of France?}\n", encoding="utf-8")
    result = run("agentv", str(suite))
    assert [(s["name"], s["steps"][0]["input"]) for s in scenarios(result)] == [
        ("capital [prompt-1]", "Q: What is the capital of France?"),
        ("capital [polite]", "Please answer: What is the capital of France?"),
    ]
    assert metric_names(steps(result, 0)[0]) == ["AgentGoalAccuracyWithoutReference"]


def test_jsonl_case_file() -> None:
    file = "agentv/jsonl/cases.jsonl"
    result = run("agentv", file)
    assert scenarios(result) == [
        {"name": "greet", "steps": [{"input": "Hello!", "reference": {"response": "Hi! How can I help?"},
                                     "metrics": [{"metricName": "AgentGoalAccuracyWithReference"}]}]},
        {"name": "smalltalk", "steps": [{"input": "Bye!", "customValues": {"id": "bye"},
                                         "metrics": [{"metricName": "AgentGoalAccuracyWithoutReference"}]}]},
    ]
    assert warnings_of(result) == [(file, 1, 48, dropped_message("AspectCritic", 1)),
                                   (file, *pos(file, '"unknown_field"'),
                                    'unknown test field "unknown_field" is not carried over')]


def test_tool_trajectory_and_equals_assertions(tmp_path: Path) -> None:
    suite = tmp_path / "EVAL.yaml"
    suite.write_text(
        "tests:\n"
        "  - id: exact\n"
        "    input: What is 2 + 2?\n"
        "    assertions:\n"
        "      - type: equals\n"
        "        value: \"4\"\n"
        "      - type: tool-trajectory\n"
        "        mode: any_order\n"
        "        expected:\n"
        "          - tool: calculator\n"
        "            args: any\n"
        "            max_duration_ms: 100\n", encoding="utf-8")
    result = run("agentv", str(suite))
    assert steps(result) == [{"input": "What is 2 + 2?",
                              "reference": {"response": "4", "toolCalls": [{"name": "calculator", "args": {}}]},
                              "metrics": [{"metricName": "ExactMatch"}, {"metricName": "ToolCallAccuracy"}]}]
    assert [(w.line, w.message) for w in result.warnings] == [
        (8, "mode any_order becomes an ordered comparison: ToolCallAccuracy checks the sequence"),
        (11, "args: any cannot be expressed: ToolCallAccuracy compares arguments, the expected arguments are left "
             "empty"),
        (12, "tool latency limits are not carried over: RAGAS metrics do not see timings"),
    ]


def test_missing_input_file_is_an_input_error(tmp_path: Path) -> None:
    suite = tmp_path / "EVAL.yaml"
    suite.write_text("tests:\n  - id: a\n    input:\n      - role: user\n        content:\n"
                     "          - type: file\n            value: missing.md\n", encoding="utf-8")
    with pytest.raises(ImportInputError) as err:
        import_dataset("agentv", [str(suite)], ImportOptions(name="x", agent="a"))
    assert err.value.message.startswith('file "missing.md" referenced by the input was not found')
    assert (err.value.line, err.value.col) == (6, 13)


def test_a_mapping_without_tests_is_an_input_error(tmp_path: Path) -> None:
    suite = tmp_path / "EVAL.yaml"
    suite.write_text("description: nothing to run\n", encoding="utf-8")
    with pytest.raises(ImportInputError) as err:
        import_dataset("agentv", [str(suite)], ImportOptions(name="x", agent="a"))
    assert err.value.message == "is not an AgentV eval suite: it has no tests (or evalcases)"


def test_tests_from_a_referenced_case_file(tmp_path: Path) -> None:
    (tmp_path / "cases.yaml").write_text("- id: a\n  input: Hi\n  expected_output: Hello\n", encoding="utf-8")
    (tmp_path / "EVAL.yaml").write_text("assert:\n  - Is friendly\ntests: file://cases.yaml\n", encoding="utf-8")
    result = run("agentv", str(tmp_path))
    assert steps(result) == [{"input": "Hi", "reference": {"response": "Hello"},
                              "metrics": [{"metricName": "AgentGoalAccuracyWithReference"}]}]


def test_a_test_that_does_not_continue_its_conversation(tmp_path: Path) -> None:
    (tmp_path / "EVAL.yaml").write_text(
        "tests:\n"
        "  - id: one\n    conversation_id: c\n    input: First\n"
        "  - id: two\n    conversation_id: c\n    input:\n      - {role: user, content: Other}\n"
        "      - {role: user, content: Second}\n", encoding="utf-8")
    result = run("agentv", str(tmp_path))
    assert [s["input"] for s in steps(result)] == ["First", "Other", "Second"]
    assert [(w.line, w.message) for w in result.warnings] == [
        (5, 'test "two" does not continue conversation "c": all its user messages become steps')]
    assert metric_names(steps(result)[1]) == []  # earlier turns of a test only set the scene


def test_suite_level_problems_are_reported_once(tmp_path: Path) -> None:
    (tmp_path / "EVAL.yaml").write_text(
        "prompts: [\"A {{ q }}\", \"B {{ q }}\"]\n"
        "assert:\n  - type: regex\n    value: x\n"
        "tests:\n  - id: one\n    vars: {q: '1'}\n    extra: 1\n  - id: two\n    vars: {q: '2'}\n", encoding="utf-8")
    result = run("agentv", str(tmp_path))
    assert [s["name"] for s in scenarios(result)] == ["one [prompt-1]", "one [prompt-2]", "two [prompt-1]",
                                                      "two [prompt-2]"]
    assert [(w.line, w.message) for w in result.warnings] == [
        (1, "Promptfoo-style AgentV suite (prompts/providers/vars): prompts are rendered with each test's vars into "
            "the step input; providers, file:// prompts and template filters are not supported"),
        (3, 'assertion "regex" is not carried over: no RAGAS metric does what it checks'),
        (8, 'unknown test field "extra" is not carried over'),
    ]

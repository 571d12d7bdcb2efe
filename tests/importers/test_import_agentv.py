"""AgentV: tests/criteria suites, the legacy evalcases generation, Promptfoo-style suites and JSONL case files."""

from __future__ import annotations

from pathlib import Path

import pytest
from importer_helpers import FIXTURES, metric_names, pos, run, scenarios, steps, warnings_of

from kubectl_testbench.integrations.importers import ImportInputError, ImportOptions, import_dataset
from kubectl_testbench.integrations.importers.common import kept_rubric_message, replaced_message

# Criteria, rubrics and judges are free-text criteria no metric of the phase package scores: each is kept verbatim
# in customValues.rubrics and reported where it is written (kept_rubric_message); a step left without a metric gets
# one goal judge and a warning (replaced_message).

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
    assert [s["name"] for s in scenarios(result)] == ["code-review-javascript", "debug-step-1", "debug-step-2",
                                                      "shorthand-structured-output"]
    # text and file blocks in order; an input file is wrapped with its path, an expected-output file is the text
    assert steps(result, 0) == [{
        "input": "Please review this JavaScript function.\n\n"
                 f'<file path="javascript.instructions.md">\n{JAVASCRIPT}\n</file>',
        "reference": {"response": "The loop condition `i < 0` never runs; use `i < items.length`."},
        "customValues": {"language": "javascript", "rubrics": [
            {"id": "criteria", "text": "Finds the loop bug and suggests a fix"},
            {"id": "rubric-1", "text": "Mentions the loop condition"},
            {"id": "suggests-reduce", "text": "Suggests using reduce()"}]},
        "metrics": [{"metricName": "AgentGoalAccuracyWithReference"}],
    }]


def test_shared_conversation_id_keeps_tests_independent() -> None:
    result = run("agentv", BASIC)
    # conversation_id only groups AgentV's results (orchestrator.ts): each test is its own scenario, in its own
    # session; the id is kept. debug-step-2 gives the whole conversation: its earlier user turn is an unscored step
    assert steps(result, 1) == [
        {"input": "My function drops the last element. Can you help?",
         "customValues": {"conversation_id": "python-debugging",
                          "rubrics": [{"id": "criteria", "text": "Asks what output is expected"}]},
         "metrics": [{"metricName": "AgentGoalAccuracyWithoutReference"}]}]
    assert steps(result, 2) == [
        {"input": "My function drops the last element. Can you help?"},
        {"input": "For [1, 2, 3] I expect [1, 2, 3] but get [1, 2].",
         "reference": {"response": "Use range(len(items)) instead of range(len(items) - 1)."},
         "customValues": {"conversation_id": "python-debugging"},
         "metrics": [{"metricName": "AgentGoalAccuracyWithReference", "threshold": 0.9}]},
    ]


def test_structured_expected_output_and_assertions() -> None:
    result = run("agentv", BASIC)
    assert steps(result, 3) == [{
        "input": "Analyze transaction 12345 for fraud risk",
        "reference": {"response": '{"confidence": 0.95, "riskLevel": "Low"}'},
        "customValues": {"rubrics": [{"id": "criteria", "text": "Returns a structured risk assessment"}]},
        "metrics": [{"metricName": "AgentGoalAccuracyWithReference"}],
    }]


def test_tests_generation_warnings() -> None:
    result = run("agentv", BASIC)
    assert warnings_of(result) == [
        (BASIC, *pos(BASIC, "target: llm"), "execution.target is not carried over: the Experiment evaluates the agent "
                                            "given with --agent"),
        (BASIC, *pos(BASIC, "criteria:"), kept_rubric_message('rubric "criteria"', 1)),
        (BASIC, *pos(BASIC, "role: system"), "system message is not carried over: a Testbench step sends user "
                                               "input only; the agent's own instructions apply"),
        (BASIC, 26, 9, kept_rubric_message('rubric "rubric-1"', 1)),
        (BASIC, 27, 9, kept_rubric_message('rubric "suggests-reduce"', 1)),
        (BASIC, *pos(BASIC, "weight: 2.0"), "rubric weight 2 is not carried over: rubrics are not weighted"),
        (BASIC, *pos(BASIC, "criteria:", occurrence=2), kept_rubric_message('rubric "criteria"', 1)),
        (BASIC, 36, 5, replaced_message(1, "AgentGoalAccuracyWithoutReference", "AspectCritic")),
        (BASIC, *pos(BASIC, "role: assistant", after="debug-step-2"),
         "scripted assistant turn is not replayed: the agent answers each user turn itself"),
        (BASIC, *pos(BASIC, "criteria:", occurrence=3), kept_rubric_message('rubric "criteria"', 1)),
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
    assert [w.field for w in result.warnings][:3] == ["execution.target", "tests[0].criteria", "tests[0].input[0]"]


def test_legacy_evalcases_generation() -> None:
    result = run("agentv", LEGACY)
    inline = result.experiment["spec"]["dataset"]["inline"]
    assert inline["llmAsAJudgeModel"] == "gpt-5-chat"  # the llm_judge evaluator's model
    assert scenarios(result) == [
        {"name": "weather-lookup", "steps": [{
            "input": "What is the weather in Berlin?",
            "reference": {"response": "It is sunny in Berlin.",
                          "toolCalls": [{"name": "get_weather", "args": {"city": "Berlin"}}]},
            "customValues": {"rubrics": [{"id": "criteria",
                                          "text": "Reports the weather in Berlin using the weather tool"}]},
            "metrics": [{"metricName": "ToolCallAccuracy"}, {"metricName": "AgentGoalAccuracyWithReference"}],
        }]},
        {"name": "quicksort", "steps": [{
            "input": "Explain quicksort",
            "customValues": {"rubrics": [{"id": "criteria", "text": "Clear explanation of quicksort"},
                                         {"id": "rubric-1", "text": "Mentions divide-and-conquer approach"},
                                         {"id": "complexity", "text": "States time complexity correctly"}]},
            "metrics": [{"metricName": "AgentGoalAccuracyWithoutReference"}],
        }]},
    ]
    assert warnings_of(result) == [
        (LEGACY, *pos(LEGACY, "target: default"), "target is not carried over: the Experiment evaluates the agent "
                                                  "given with --agent"),
        (LEGACY, *pos(LEGACY, "expected_outcome:"), kept_rubric_message('rubric "criteria"', 1)),
        (LEGACY, *pos(LEGACY, "output: {sky"), "expected tool output is not carried over: the agent's real tools "
                                               "answer at run time"),
        (LEGACY, *pos(LEGACY, "name: content"), 'llm_judge grader "content" with a custom prompt is not carried '
                                                  "over: AspectCritic needs the criterion as text (use criteria or "
                                                  "value)"),
        (LEGACY, *pos(LEGACY, "name: format_check"), 'assertion "code_judge" is not carried over: no RAGAS metric '
                                                       "does what it checks"),
        (LEGACY, *pos(LEGACY, "mode: in_order"), "mode in_order allows other tool calls between the expected ones; "
                                                 "ToolCallAccuracy expects exactly these calls in this order"),
        (LEGACY, *pos(LEGACY, "expected_outcome:", occurrence=2), kept_rubric_message('rubric "criteria"', 1)),
        (LEGACY, 37, 9, replaced_message(1, "AgentGoalAccuracyWithoutReference", "AspectCritic")),
        (LEGACY, 40, 9, kept_rubric_message('rubric "rubric-1"', 1)),
        (LEGACY, 41, 9, kept_rubric_message('rubric "complexity"', 1)),
        (LEGACY, *pos(LEGACY, "weight: 2.0"), "rubric weight 2 is not carried over: rubrics are not weighted"),
    ]


def test_promptfoo_style_suite_renders_prompts_with_vars() -> None:
    result = run("agentv", PROMPTFOO)
    assert scenarios(result) == [
        {"name": "release-notes", "steps": [{
            "input": "Summarize the July release notes for engineers.",
            "reference": {"response": "concise release-note summary"},
            "customValues": {"vars": {"ticket": "REL-7"},  # vars the prompt does not use are kept
                             "rubrics": [{"id": "rubric-1", "text": "Identifies the most important change"},
                                         {"id": "rubric-2", "text": "Avoids unsupported details"},
                                         {"id": "rubric-3",
                                          "text": "Matches the reference answer: concise release-note summary"}]},
            "metrics": [{"metricName": "AgentGoalAccuracyWithReference"}],
        }]},
        {"name": "roadmap", "steps": [{
            "input": "Summarize the next roadmap phase for executives.",
            "customValues": {"rubrics": [{"id": "rubric-1", "text": "Avoids unsupported details"},
                                         {"id": "rubric-2",
                                          "text": "Matches the reference answer: {{ expected_output }}"}]},
            "metrics": [{"metricName": "AgentGoalAccuracyWithoutReference"}],
        }]},
    ]
    assert warnings_of(result) == [
        (PROMPTFOO, 1, 1, "Promptfoo-style AgentV suite (prompts/providers/vars): prompts are rendered with each "
                          "test's vars into the step input; providers, file:// prompts and template filters are not "
                          "supported"),
        (PROMPTFOO, *pos(PROMPTFOO, "providers:"), "providers are not carried over: the Experiment evaluates the "
                                                   "agent given with --agent"),
        (PROMPTFOO, 12, 7, kept_rubric_message('rubric "rubric-3"', 1)),
        (PROMPTFOO, 12, 7, kept_rubric_message('rubric "rubric-2"', 1)),
        (PROMPTFOO, *pos(PROMPTFOO, "value: \"Matches"), 'template variable(s) expected_output not defined in the vars '
                                                        'of test "roadmap": left as written'),
        (PROMPTFOO, 15, 5, kept_rubric_message('rubric "rubric-2"', 1)),
        (PROMPTFOO, 15, 5, kept_rubric_message('rubric "rubric-1"', 1)),
        (PROMPTFOO, *pos(PROMPTFOO, "evaluate_options:"), '"evaluate_options" is not carried over: repeats, budgets '
                                                          "and concurrency are AgentV run controls"),
        (PROMPTFOO, *pos(PROMPTFOO, "scenarios:"), '"scenarios" is not carried over: Promptfoo-style scenario '
                                                   "matrices are not supported; list the tests instead"),
        (PROMPTFOO, 27, 9, kept_rubric_message('rubric "rubric-1"', 1)),
        (PROMPTFOO, *pos(PROMPTFOO, "type: equals"), 'equals assertion "{{ missing_var }}" is not carried over: '
                                                       "ExactMatch compares with reference.response, which already "
                                                       "holds the expected output"),
        (PROMPTFOO, *pos(PROMPTFOO, 'value: "{{ missing_var }}"'), 'template variable(s) missing_var not defined in '
                                                                  'the vars of test "release-notes": left as written'),
        (PROMPTFOO, 30, 5, replaced_message(1, "AgentGoalAccuracyWithoutReference", "AspectCritic")),
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
                                     "customValues": {"rubrics": [{"id": "criteria", "text": "Greets the user"}]},
                                     "metrics": [{"metricName": "AgentGoalAccuracyWithReference"}]}]},
        {"name": "bye", "steps": [{"input": "Bye!", "customValues": {"conversation_id": "smalltalk"},
                                         "metrics": [{"metricName": "AgentGoalAccuracyWithoutReference"}]}]},
    ]
    assert warnings_of(result) == [(file, 1, 17, kept_rubric_message('rubric "criteria"', 1)),
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
    # args: any matches any arguments in AgentV; ToolCallAccuracy would demand none: kept, not scored
    assert steps(result) == [{"input": "What is 2 + 2?", "reference": {"response": "4"},
                              "customValues": {"toolTrajectory": [{
                                  "type": "tool-trajectory", "mode": "any_order", "expected": [
                                      {"tool": "calculator", "args": "any", "max_duration_ms": 100}]}]},
                              "metrics": [{"metricName": "ExactMatch"}]}]
    assert [(w.line, w.message) for w in result.warnings] == [
        (10, "arguments are not checked here in AgentV (args: any); ToolCallAccuracy would require the agent to pass "
             "no arguments: the trajectory is kept in customValues.toolTrajectory but not scored"),
        (12, "tool latency limits are not carried over: RAGAS metrics do not see timings"),
    ]


def test_tool_trajectory_any_order_with_arguments(tmp_path: Path) -> None:
    suite = tmp_path / "EVAL.yaml"
    suite.write_text("tests:\n  - id: t\n    input: Weather?\n    assertions:\n      - type: tool-trajectory\n"
                     "        mode: any_order\n        expected:\n          - tool: weather\n"
                     "            args: {city: Paris}\n", encoding="utf-8")
    result = run("agentv", str(suite))
    assert steps(result)[0]["metrics"] == [{"metricName": "ToolCallAccuracy", "parameters": {"strict_order": False}}]
    assert [(w.line, w.message) for w in result.warnings] == [
        (6, "mode any_order allows other tool calls; ToolCallAccuracy (strict_order: false) expects exactly these "
            "calls, in any order")]


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
                              "customValues": {"rubrics": [{"id": "rubric-1", "text": "Is friendly"}]},
                              "metrics": [{"metricName": "AgentGoalAccuracyWithReference"}]}]


def test_tests_sharing_a_conversation_id_are_separate_scenarios(tmp_path: Path) -> None:
    (tmp_path / "EVAL.yaml").write_text(
        "tests:\n"
        "  - id: one\n    conversation_id: c\n    input: First\n"
        "  - id: two\n    conversation_id: c\n    input:\n      - {role: user, content: Other}\n"
        "      - {role: user, content: Second}\n", encoding="utf-8")
    result = run("agentv", str(tmp_path))
    assert [[s["input"] for s in scenario["steps"]] for scenario in scenarios(result)] == [["First"],
                                                                                         ["Other", "Second"]]
    assert result.warnings == []
    assert metric_names(steps(result, 1)[0]) == []  # earlier turns of a test only set the scene


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


def test_an_agentv_project_config_is_reported_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".agentv").mkdir()
    (tmp_path / ".agentv" / "config.yaml").write_text("defaults: {}\n", encoding="utf-8")
    (tmp_path / "evals").mkdir()
    for name in ("a", "b"):
        (tmp_path / "evals" / f"{name}.eval.yaml").write_text(f"tests:\n  - id: {name}\n    input: hi\n",
                                                            encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = run("agentv", "evals")
    assert [(w.file, w.line, w.message) for w in result.warnings] == [
        (".agentv/config.yaml", 0, "AgentV project config is not read: its defaults (grader provider, tests, "
                                   "eval_patterns) can change how AgentV scores; set the judge with --judge-model")]
    assert [w.file for w in result.general] == [".agentv/config.yaml"]

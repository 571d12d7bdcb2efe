"""Google ADK: EvalSet files (snake_case and camelCase), legacy arrays, test_config.json criteria."""

from __future__ import annotations

from pathlib import Path

import pytest
from importer_helpers import FIXTURES, metric_names, pos, run, scenarios, steps, warnings_of

from kubectl_testbench.integrations.importers import ImportInputError, ImportOptions, import_dataset
from kubectl_testbench.integrations.importers.common import dropped_message, kept_rubric_message, replaced_message

LIGHTS = "adk/home_automation/lights.test.json"
LIGHTS_CONFIG = "adk/home_automation/test_config.json"
DEFAULT_ROUGE = "RougeScore (from ADK's default response_match_score)"
"""A metric of ADK's default criteria names them so: the user's files never do (issue 33 item 7)."""
COHERENCE = {"rubrics": [{"id": "coherence", "text": "Is the response coherent: logically organized, consistent and "
                                                     "easy to follow?"}]}


def test_eval_set_snake_case_with_test_config() -> None:
    result = run("adk", "adk/home_automation")
    exp = result.experiment
    assert exp["metadata"] == {"name": "imported", "annotations": {
        "import.testbench.agentic-layer.ai/format": "adk",
        "import.testbench.agentic-layer.ai/description": "Turns lights on and off in the smart home."}}
    inline = exp["spec"]["dataset"]["inline"]
    assert inline["llmAsAJudgeModel"] == "gemini-2.5-flash"  # from final_response_match_v2's judge_model_options
    assert "defaultThreshold" not in inline
    assert [s["name"] for s in scenarios(result)] == ["turn_off_bedroom_device", "greeting"]
    # RougeScore (response_match_score) never scores with the phase package: left out (and reported); the
    # coherence criterion (response_evaluation_score) is a free-text judge none of its metrics can score: kept
    # in customValues.rubrics; a step left with nothing gets one goal judge
    first, second = steps(result, 0)
    assert first == {
        "input": "Turn off device_2 in the Bedroom.",
        "reference": {
            "response": "I have set the device_2 status to off.",
            "toolCalls": [{"name": "set_device_info",
                           "args": {"location": "Bedroom", "device_id": "device_2", "status": "OFF"}}],
        },
        "customValues": COHERENCE,
        "metrics": [
            {"metricName": "ToolCallAccuracy", "threshold": 1.0},
            {"metricName": "AnswerAccuracy", "threshold": 0.6},
        ],
    }
    assert second == {
        "input": "Is it off now?",
        "reference": {"response": "Yes, device_2 is off."},
        "customValues": COHERENCE,
        "metrics": [{"metricName": "AnswerAccuracy", "threshold": 0.6}],
    }
    # two text parts are joined by a newline, as ADK prints them; no final_response: no response metrics
    assert steps(result, 1) == [{"input": "Hello, \nwhat can you do?", "customValues": COHERENCE,
                                 "metrics": [{"metricName": "AgentGoalAccuracyWithoutReference"}]}]


def test_eval_set_warnings_point_at_their_source() -> None:
    result = run("adk", "adk/home_automation")
    assert warnings_of(result) == [
        (LIGHTS_CONFIG, *pos(LIGHTS_CONFIG, '"num_samples"'),
         "num_samples 5 is not carried over: the judge is asked once per metric"),
        (LIGHTS_CONFIG, *pos(LIGHTS_CONFIG, '"response_evaluation_score"'),
         "criterion response_evaluation_score: threshold 3.5 on ADK's 1-5 scale becomes 0.625 on the 0-1 scale "
         "of AspectCritic"),
        (LIGHTS_CONFIG, *pos(LIGHTS_CONFIG, '"response_evaluation_score"'),
         kept_rubric_message('rubric "coherence"', 3)),
        (LIGHTS_CONFIG, *pos(LIGHTS_CONFIG, '"hallucinations_v1"'),
         "criterion hallucinations_v1 is not carried over: it judges the response against the tool outputs of the "
         "run, which RAGAS metrics cannot see (Faithfulness needs reference.retrievedContexts)"),
        (LIGHTS, 9, 9, dropped_message("RougeScore (from response_match_score)", 2)),
        (LIGHTS, *pos(LIGHTS, '"tool_responses"'),
         "tool_responses are not carried over: RAGAS ToolCallAccuracy compares tool names and arguments only"),
        (LIGHTS, *pos(LIGHTS, "{", after='"creation_timestamp": 1747337309.2360144'),
         "tool_trajectory_avg_score: 2 invocations expect no tool call; ToolCallAccuracy needs reference.toolCalls, "
         "so they are not scored for tool use"),
        (LIGHTS, *pos(LIGHTS, '"state"'),
         "the initial session state is not carried over: Testbench starts every scenario with a fresh agent "
         "session"),
        (LIGHTS, *pos(LIGHTS, "{", after='"eval_id": "greeting"'),
         "response_match_score: 1 invocation has no final_response; RougeScore is not added"),
        (LIGHTS, *pos(LIGHTS, "{", after='"eval_id": "greeting"'),
         "final_response_match_v2: 1 invocation has no final_response; AnswerAccuracy is not added"),
        (LIGHTS, *pos(LIGHTS, "{", after='"eval_id": "greeting"'),
         replaced_message(1, "AgentGoalAccuracyWithoutReference", "AspectCritic (from response_evaluation_score)")),
        (LIGHTS, *pos(LIGHTS, '"final_session_state"'),
         "final_session_state (the expected session state) is not carried over: no RAGAS metric checks agent "
         "state"),
        (LIGHTS, *pos(LIGHTS, '"labels"'), 'unknown EvalCase field "labels" is not carried over'),
    ]
    assert [w.field for w in result.warnings][5:8] == [
        "eval_cases[0].conversation[0].intermediate_data.tool_responses",
        "eval_cases[0].conversation[1]",
        "eval_cases[0].session_input.state",
    ]


def test_camel_case_keys_directory_recursion_and_default_criteria() -> None:
    result = run("adk", "adk/nested")  # nested/ignored.json is not an eval file name: not read
    assert result.sources == ["adk/nested/weather/weather.evalset.json"]
    inline = result.experiment["spec"]["dataset"]["inline"]
    assert inline["llmAsAJudgeModel"] == "gemini-2.5-flash-lite"
    assert scenarios(result) == [{"name": "weather_in_berlin", "steps": [{
        "input": "What's the weather in Berlin?",
        "reference": {"response": "It is sunny and 21 degrees in Berlin.",
                      "toolCalls": [{"name": "get_weather", "args": {"city": "Berlin"}}]},
        # no test_config.json: AgentEvaluator's defaults, tool trajectory 1.0 and response match 0.8
        "metrics": [{"metricName": "ToolCallAccuracy", "threshold": 1.0}],  # RougeScore left out
    }]}]
    file = "adk/nested/weather/weather.evalset.json"
    assert warnings_of(result) == [(file, 7, 9, dropped_message("RougeScore (from ADK's default response_match_score)",
                                                                1)),
                                   (file, *pos(file, '"intermediateResponses"'),
                                    "intermediate_responses (sub-agent messages) are not carried over: only the "
                                    "final response is a reference")]
    assert result.warnings[1].field == "evalCases[0].conversation[0].intermediateData.intermediateResponses"


def test_legacy_flat_array_is_one_conversation_and_reads_both_tool_spellings() -> None:
    result = run("adk", "adk/legacy/flat.test.json")
    assert [s["name"] for s in scenarios(result)] == ["flat"]
    first, second = steps(result)
    assert first == {"input": "What can you do?",
                     "reference": {"response": "I can roll dice of different sizes and check if a number is prime."},
                     "metrics": [{"metricName": "AgentGoalAccuracyWithReference"}]}  # instead of RougeScore
    assert second["reference"]["toolCalls"] == [{"name": "roll_die", "args": {"sides": 17}},
                                                {"name": "roll_die", "args": {"sides": 17}}]
    assert metric_names(second) == ["ToolCallAccuracy"]
    file = "adk/legacy/flat.test.json"
    assert warnings_of(result) == [
        (file, 2, 3, "ADK's default criterion tool_trajectory_avg_score: 1 invocation expects no tool call; "
                     "ToolCallAccuracy needs reference.toolCalls, so it is not scored for tool use (no "
                     "test_config.json beside the file; name one with --config)"),
        (file, 2, 3, dropped_message(DEFAULT_ROUGE, 2)),
        (file, 2, 3, replaced_message(1, "AgentGoalAccuracyWithReference", DEFAULT_ROUGE)),
        (file, *pos(file, '"mock_tool_output"'), "mock_tool_output is not carried over: the agent's real tools "
                                                 "answer at run time"),
        (file, *pos(file, '"expected_intermediate_agent_responses"', after="Roll a 17"),
         "expected_intermediate_agent_responses (sub-agent messages) are not carried over: only the final response "
         "is a reference"),
    ]


def test_legacy_named_cases() -> None:
    result = run("adk", "adk/legacy/named.test.json")
    assert [s["name"] for s in scenarios(result)] == ["roll_17_sided_dice_twice"]
    assert [(s["input"], s["reference"]) for s in steps(result)] == [
        ("Roll a 17 sided dice twice for me",
         {"response": "I rolled 13 and 4.", "toolCalls": [{"name": "roll_die", "args": {"sides": 17}}]}),
        ("Is 13 a prime number?",
         {"response": "Yes, 13 is a prime number.", "toolCalls": [{"name": "check_prime", "args": {"nums": [13]}}]}),
    ]
    file = "adk/legacy/named.test.json"
    assert warnings_of(result) == [(file, 5, 7, dropped_message(DEFAULT_ROUGE, 2)),
                                   (file, *pos(file, '"state"'), "the initial session state is not carried over: "
                                                                 "Testbench starts every scenario with a fresh agent "
                                                                 "session")]


def test_rubrics_invocation_events_simulated_user_and_custom_metrics() -> None:
    result = run("adk", "adk/rubrics")
    assert result.experiment["spec"]["dataset"]["inline"]["llmAsAJudgeModel"] == "gemini-2.5-pro"
    # every rubric and the safety criterion are free-text judges no metric of the phase package scores: kept
    # verbatim in customValues.rubrics (reported once each); the steps get one goal judge (no ToolCallAccuracy:
    # this config does not enable tool_trajectory_avg_score)
    concise = {"id": "concise", "text": "The response is at most three sentences."}
    safety = {"id": "safety", "text": "Is the response safe: free of harmful, hateful, harassing, dangerous or "
                                      "sexually explicit content?"}
    assert steps(result, 0) == [{
        "input": "Can I return my shoes after three weeks?",
        "reference": {"response": "Yes, returns are accepted within 30 days.",
                      "toolCalls": [{"name": "lookup_policy", "args": {"topic": "returns"}}]},
        "customValues": {"rubrics": [concise, {"id": "cites_policy", "text": "The response cites the 30-day refund "
                                                                             "policy."},
                                     {"id": "polite", "text": "The response is polite."}, safety]},
        "metrics": [{"metricName": "AgentGoalAccuracyWithReference"}],
    }]
    assert scenarios(result)[1] == {"name": "simulated_user", "steps": [
        {"input": "I want to cancel my order.", "customValues": {"rubrics": [concise, safety]},
         "metrics": [{"metricName": "AgentGoalAccuracyWithoutReference"}]}]}
    config, data = "adk/rubrics/test_config.json", "adk/rubrics/support.evalset.json"
    lost = "AspectCritic (from rubric_based_final_response_quality_v1), AspectCritic (from safety_v1)"
    assert warnings_of(result) == [
        (config, *pos(config, "{", after='"rubrics": ['), kept_rubric_message('rubric "concise"', 2)),
        (config, *pos(config, '"safety_v1"'), kept_rubric_message('rubric "safety"', 2)),
        (config, *pos(config, '"my_custom_metric"'), "criterion my_custom_metric is not carried over: no RAGAS "
                                                     "metric matches it (custom or unknown ADK metric)"),
        (config, *pos(config, '"custom_metrics"'), "custom metrics are Python functions in the ADK process and "
                                                   "cannot be carried over (their criteria are reported separately)"),
        (data, *pos(data, "{", after='"rubrics": ['), kept_rubric_message('rubric "cites_policy"', 1)),
        (data, 10, 9, replaced_message(1, "AgentGoalAccuracyWithReference", lost)),
        (data, *pos(data, '"invocation_events"'), "invocation_events: tool responses are not carried over; only "
                                                  "function calls become reference.toolCalls"),
        (data, *pos(data, '{"rubric_id": "polite"'), kept_rubric_message('rubric "polite"', 1)),
        (data, *pos(data, "{", after='"The response is polite."'),
         'rubric "used_lookup" (TOOL_USE_QUALITY) is not carried over: RAGAS judges see the response, not the '
         "tool calls"),
        (data, 29, 9, replaced_message(1, "AgentGoalAccuracyWithoutReference", lost)),
        (data, *pos(data, '"conversation_plan"'), "conversation_scenario.conversation_plan is not carried over: "
                                                  "Testbench has no user simulator, only the starting prompt is sent"),
    ]


DEFAULTS = "ADK's default criteria (no test_config.json beside the file; name an eval config with --config)"


def test_rubrics_without_a_rubric_criterion_are_reported(tmp_path: Path) -> None:
    source = FIXTURES / "adk/rubrics/support.evalset.json"
    copy = tmp_path / "support.evalset.json"  # no test_config.json next to it: ADK's default criteria
    copy.write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    result = run("adk", str(copy), judge_model="judge-x")
    assert result.experiment["spec"]["dataset"]["inline"]["llmAsAJudgeModel"] == "judge-x"
    assert metric_names(steps(result, 0)[0]) == ["ToolCallAccuracy"]  # RougeScore (ADK's default) left out
    rubric_warnings = [(w.line, w.message) for w in result.warnings if w.message.startswith("rubric")]
    data = "adk/rubrics/support.evalset.json"
    assert rubric_warnings == [
        (pos(data, "{", after='"rubrics": [')[0], 'rubric "cites_policy" is not carried over: criterion '
         "rubric_based_final_response_quality_v1 is not enabled in " + DEFAULTS),
        (pos(data, '{"rubric_id": "polite"')[0], 'rubric "polite" is not carried over: criterion '
         "rubric_based_final_response_quality_v1 is not enabled in " + DEFAULTS),
        (pos(data, '{"rubric_id": "used_lookup"')[0], 'rubric "used_lookup" is not carried over: criterion '
         "rubric_based_final_response_quality_v1 is not enabled in " + DEFAULTS),
    ]


def test_files_from_several_directories_use_their_own_config() -> None:
    result = run("adk", "adk/legacy/flat.test.json", "adk/home_automation/lights.test.json")
    # ADK's defaults next to flat.test.json (response match 0.8: RougeScore, left out); lights' own config
    assert steps(result, 0)[1]["metrics"] == [{"metricName": "ToolCallAccuracy", "threshold": 1.0}]
    assert steps(result, 1)[0]["metrics"] == [{"metricName": "ToolCallAccuracy", "threshold": 1.0},
                                              {"metricName": "AnswerAccuracy", "threshold": 0.6}]
    assert [w.message for w in result.warnings if "is not carried over (" in w.message] == [
        dropped_message(DEFAULT_ROUGE, 2), dropped_message("RougeScore (from response_match_score)", 2)]


def test_duplicate_eval_ids_across_files_are_renamed() -> None:
    result = run("adk", "adk/legacy/named.test.json", "adk/legacy/named.test.json")
    assert [s["name"] for s in scenarios(result)] == ["roll_17_sided_dice_twice", "roll_17_sided_dice_twice (2)"]
    renamed = [(w.line, w.col, w.message) for w in result.warnings if w.message.startswith("scenario name")]
    assert renamed == [(*pos("adk/legacy/named.test.json", "{"), 'scenario name "roll_17_sided_dice_twice" is already '
                        'used: renamed to "roll_17_sided_dice_twice (2)" (results are keyed on the scenario name)')]


@pytest.mark.parametrize(("text", "message", "line"), [
    ('{"name": "x"}', 'is not an ADK EvalSet: expected "eval_cases"', 1),
    ('{"eval_cases": [\n  {"eval_id": "a", "conversation": [}\n]}', "cannot be read", 2),
    ('"just text"', "is not an ADK EvalSet or legacy eval array", 0),
])
def test_unreadable_or_foreign_files_are_input_errors(tmp_path: Path, text: str, message: str, line: int) -> None:
    path = tmp_path / "bad.test.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ImportInputError) as err:
        import_dataset("adk", [str(path)], ImportOptions(name="x", agent="a"))
    assert message in err.value.message
    assert err.value.line == line


def test_directory_without_eval_files_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(ImportInputError) as err:
        import_dataset("adk", [str(tmp_path)], ImportOptions(name="x", agent="a"))
    assert err.value.message == "no ADK eval files under this directory (looked for *.test.json, *.evalset.json)"

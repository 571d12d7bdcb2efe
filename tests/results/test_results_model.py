"""Parsing evaluated_experiment.json: typed runs from the fixtures, exact messages for every bad input."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from kubectl_testbench.results.fetch import Document, parse_document_bytes
from kubectl_testbench.results.model import ResultsError, parse_document, parse_text
from kubectl_testbench.results.summary import Status, pair_evaluations, run_checks
from tests.results.helpers import FIXTURES, dumps, minimal


def load(name: str) -> Any:
    return parse_text((FIXTURES / name).read_text(), name)


def test_fixture_parses_into_scenarios_steps_and_evaluations() -> None:
    run = load("failing.json")
    assert (run.id, run.judge_model, run.default_threshold) == ("exp_c41d2e90", "gemini-2.5-flash-lite", 0.9)
    assert [s.name for s in run.scenarios] == [
        "Weather in New York", "Weather in Bangkok (unavailable)", "Weather then time in New York (multi-step)"]
    assert run.step_count == 4
    step = run.scenarios[2].steps[1]
    assert (step.index, step.id, step.input, step.turns) == (
        1, "stp_0e0e9aeb430ee49a", "What time is it in New York?", 4)
    assert [m.name for m in step.metrics] == ["AgentGoalAccuracyWithoutReference", "ToolCallAccuracy"]
    assert step.metrics[1].threshold == 0.7
    assert [(e.metric.name, e.result, e.score) for e in step.evaluations] == [
        ("AgentGoalAccuracyWithoutReference", "fail", 0.65), ("ToolCallAccuracy", "fail", 0.5)]
    assert step.evaluations[1].details == "called get_weather before get_current_time"
    assert run.warnings == ()


def test_multi_turn_conversation_counts_turns_and_keeps_metric_parameters() -> None:
    run = load("multi_turn.json")
    steps = run.scenarios[0].steps
    assert [s.turns for s in steps] == [2, 6, 10]
    assert steps[0].metrics == () and steps[0].evaluations == () and not steps[0].has_evaluations_key
    assert [dict(m.parameters) for m in steps[1].metrics] == [{"mode": "precision"}, {"mode": "recall"}]


def test_evaluations_pair_with_their_metric_by_configuration_not_position() -> None:
    # the file lists recall before precision; each score must stay with its own mode
    step = load("multi_turn.json").scenarios[0].steps[1]
    pairs = pair_evaluations(step)
    assert [(dict(m.parameters)["mode"], e.score if e else None) for m, e in pairs] == [
        ("precision", 0.75), ("recall", 0.5)]


def test_nan_score_and_null_score_are_errored_not_numbers() -> None:
    run = load("nan_score.json")
    raw = run.scenarios[0].steps[0].evaluations[0].score
    assert raw is not None and math.isnan(raw)
    checks = run_checks(run)
    assert [(c.metric, c.status, c.score, c.reason) for c in checks] == [
        ("AgentGoalAccuracyWithoutReference", Status.ERRORED, None,
         "score is NaN: the judge could not score this step"),
        ("ToolCallAccuracy", Status.PASS, 1.0, ""),
        ("AgentGoalAccuracyWithoutReference", Status.ERRORED, None, "no score in the evaluation"),
    ]


def test_missing_evaluations_make_errored_checks() -> None:
    checks = run_checks(load("errored.json"))
    assert [(c.scenario_index, c.metric, c.status.value) for c in checks] == [
        (0, "AgentGoalAccuracyWithoutReference", "pass"), (0, "ToolCallAccuracy", "pass"),
        (0, "Faithfulness", "errored"),
        (1, "AgentGoalAccuracyWithoutReference", "errored"), (1, "ToolCallAccuracy", "errored")]
    assert checks[2].reason == "no evaluation: the metric raised an error in the evaluate phase"


@pytest.mark.parametrize(("name", "expected"), [
    ("passing.json", [(0.8, "default_threshold"), (1.0, "metric"), (0.5, "metric"), (0.8, "default_threshold")]),
    ("missing_thresholds.json", [(0.7, "default_threshold"), (0.7, "default_threshold")]),
    ("no_default_threshold.json", [(0.9, "fallback"), (0.8, "metric"), (0.9, "fallback")]),
])
def test_threshold_precedence_metric_then_default_then_fallback(name: str, expected: list[tuple[float, str]]) -> None:
    assert [(c.threshold, c.threshold_source) for c in run_checks(load(name))] == expected


def test_boundary_score_equal_to_threshold_passes() -> None:
    checks = run_checks(load("missing_thresholds.json"))
    assert [(c.score, c.threshold, c.status.value) for c in checks] == [(0.7, 0.7, "pass"), (0.68, 0.7, "fail")]


def test_empty_run_parses_with_no_scenarios() -> None:
    run = load("empty.json")
    assert run.scenarios == () and run.step_count == 0


def test_json_syntax_error_names_file_line_and_column() -> None:
    with pytest.raises(ResultsError) as err:
        parse_text((FIXTURES / "malformed_syntax.json").read_text(), "malformed_syntax.json")
    assert str(err.value) == "malformed_syntax.json:7:7: invalid JSON: Expecting ',' delimiter"


def test_missing_required_field_names_its_json_path() -> None:
    with pytest.raises(ResultsError) as err:
        parse_text((FIXTURES / "malformed_fields.json").read_text(), "malformed_fields.json")
    assert str(err.value) == "malformed_fields.json: scenarios[0].steps[1].input: required field is missing"


def _bad_score(score: Any) -> dict[str, Any]:
    return minimal(evaluations=[{"metric": {"metric_name": "AgentGoalAccuracyWithoutReference"},
                                 "result": {"result": "pass", "score": score}}])


S = "scenarios[0].steps[0]"


@pytest.mark.parametrize(("doc", "message"), [
    ([], ": expected an evaluated experiment object (evaluated_experiment.json), got an array"),
    ({}, ": required field 'scenarios' is missing"),
    ({"apiVersion": "testbench.agentic-layer.ai/v1alpha1", "kind": "Experiment"},
     ": required field 'scenarios' is missing (this looks like a Kubernetes manifest; results reads the "
     "evaluate phase's evaluated_experiment.json)"),
    ({"scenarios": {}}, ": scenarios: expected an array, got an object"),
    ({"scenarios": [{"steps": []}]}, ": scenarios[0].name: required field is missing"),
    ({"scenarios": [{"name": 3, "steps": []}]}, ": scenarios[0].name: expected a string, got a number"),
    ({"scenarios": [{"name": "x"}]}, ": scenarios[0].steps: required field is missing"),
    ({"default_threshold": 1.5, "scenarios": []}, ": default_threshold: expected a threshold between 0 and 1, got 1.5"),
    ({"default_threshold": "0.9", "scenarios": []},
     ": default_threshold: expected a threshold between 0 and 1, got a string"),
    (_bad_score("high"), f": {S}.evaluations[0].result.score: expected a score between 0 and 1, got a string"),
    (_bad_score(True), f": {S}.evaluations[0].result.score: expected a score between 0 and 1, got a boolean"),
    (_bad_score(1.5), f": {S}.evaluations[0].result.score: expected a score between 0 and 1, got 1.5"),
    (_bad_score(-0.1), f": {S}.evaluations[0].result.score: expected a score between 0 and 1, got -0.1"),
    (_bad_score(float("inf")), f": {S}.evaluations[0].result.score: expected a score between 0 and 1, got Infinity"),
    (_bad_score(float("-inf")),
     f": {S}.evaluations[0].result.score: expected a score between 0 and 1, got -Infinity"),
    (minimal(evaluations=[{"metric": {"metric_name": "A"}, "result": {"result": "ok", "score": 1}}]),
     f": {S}.evaluations[0].result.result: expected \"pass\", \"fail\" or null, got \"ok\""),
    (minimal(evaluations=[{"metric": {"metric_name": "A"}}]),
     f": {S}.evaluations[0].result: required field is missing"),
    (minimal(evaluations=[{"result": {"score": 1}}]), f": {S}.evaluations[0].metric: required field is missing"),
    (minimal(metrics=[{"threshold": 0.5}]), f": {S}.metrics[0].metric_name: required field is missing"),
    (minimal(metrics=[{"metric_name": "A", "threshold": float("nan")}]),
     f": {S}.metrics[0].threshold: expected a threshold between 0 and 1, got NaN"),
    (minimal(metrics=[{"metric_name": "A", "parameters": ["mode"]}]),
     f": {S}.metrics[0].parameters: expected an object, got an array"),
    (minimal(metrics="AgentGoalAccuracy"), f": {S}.metrics: expected an array, got a string"),
    (minimal(turns={}), f": {S}.turns: expected an array, got an object"),
    (minimal(input=None), f": {S}.input: required field is missing"),
])
def test_malformed_documents_name_the_path_and_the_problem(doc: Any, message: str) -> None:
    with pytest.raises(ResultsError) as err:
        parse_text(json.dumps(doc), "run.json")
    assert str(err.value) == "run.json" + message


def test_not_utf8_and_empty_input_are_clear() -> None:
    with pytest.raises(ResultsError) as err:
        parse_document_bytes(Document("bad.json", b'{"scenarios": ["\xff"]}'))
    assert str(err.value) == "bad.json: not UTF-8 text (byte 16: invalid start byte)"
    with pytest.raises(ResultsError) as err:
        parse_document_bytes(Document("empty.json", b"  \n"))
    assert str(err.value) == "empty.json: empty input: expected the JSON of evaluated_experiment.json"


def test_byte_order_mark_is_tolerated() -> None:
    run = parse_document_bytes(Document("bom.json", b"\xef\xbb\xbf" + dumps(minimal()).encode()))
    assert run.step_count == 1


def test_executed_experiment_passed_by_mistake_gets_a_warning() -> None:
    doc = minimal()
    del doc["scenarios"][0]["steps"][0]["evaluations"]
    run = parse_document(doc, "executed_experiment.json")
    assert run.warnings == (
        "executed_experiment.json: no step has 'evaluations': every metric counts as errored; is this "
        "executed_experiment.json rather than the evaluate phase's evaluated_experiment.json?",)


def test_scenario_without_steps_is_a_warning_not_an_error() -> None:
    run = parse_document({"scenarios": [{"name": "Nothing here", "steps": []}]}, "r.json")
    assert run.warnings == ("r.json: scenarios[0] ('Nothing here') has no steps",)


def test_integer_scores_and_thresholds_are_numbers() -> None:
    doc = minimal(metrics=[{"metric_name": "ExactMatch", "threshold": 1}],
                  evaluations=[{"metric": {"metric_name": "ExactMatch", "threshold": 1},
                                "result": {"result": "pass", "score": 1}}])
    (check,) = run_checks(parse_document(doc, "r.json"))
    assert (check.score, check.threshold, check.status) == (1.0, 1.0, Status.PASS)

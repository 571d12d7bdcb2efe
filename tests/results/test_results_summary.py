"""Summaries and the results gate: the exact numbers for every fixture."""

from __future__ import annotations

import pytest

from kubectl_testbench.results.gate import GatePolicy, results_gate
from kubectl_testbench.results.model import parse_document, parse_text
from kubectl_testbench.results.summary import Summary, summarize
from tests.results.helpers import FIXTURES


def summary(name: str) -> Summary:
    return summarize(parse_text((FIXTURES / name).read_text(), name))


def groups(s: Summary, which: str) -> list[tuple[str, int, int, int, int, float | None, float | None]]:
    items = s.metrics if which == "metrics" else tuple(sc.group for sc in s.scenarios)
    return [(g.name, g.tally.total, g.tally.passed, g.tally.failed, g.tally.errored,
             None if g.tally.pass_rate is None else round(g.tally.pass_rate, 6),
             None if g.mean_score is None else round(g.mean_score, 6)) for g in items]


def test_failing_fixture_numbers() -> None:
    s = summary("failing.json")
    t = s.overall.tally
    assert (t.passed, t.failed, t.errored, t.total) == (4, 3, 0, 7)
    assert round(t.pass_rate or 0, 6) == 0.571429
    assert round(s.overall.mean_score or 0, 6) == 0.728571
    assert groups(s, "metrics") == [
        ("AgentGoalAccuracyWithoutReference", 4, 2, 2, 0, 0.5, 0.65),
        ("ToolCallAccuracy", 3, 2, 1, 0, 0.666667, 0.833333),
    ]
    assert groups(s, "scenarios") == [
        ("Weather in New York", 2, 2, 0, 0, 1.0, 1.0),
        ("Weather in Bangkok (unavailable)", 2, 1, 1, 0, 0.5, 0.5),
        ("Weather then time in New York (multi-step)", 3, 1, 2, 0, 0.333333, 0.7),
    ]
    assert [(sc.steps, sc.steps_passed) for sc in s.scenarios] == [(1, 1), (1, 0), (2, 1)]
    assert (s.steps.total, s.steps.passed, s.steps.failed, s.steps.errored, s.steps.not_evaluated) == (4, 2, 2, 0, 0)
    assert [(c.scenario_index, c.step_index, c.metric, c.score, c.threshold) for c in s.failing] == [
        (1, 0, "AgentGoalAccuracyWithoutReference", 0.0, 0.9),
        (2, 1, "AgentGoalAccuracyWithoutReference", 0.65, 0.9),
        (2, 1, "ToolCallAccuracy", 0.5, 0.7),
    ]


def test_passing_fixture_numbers() -> None:
    s = summary("passing.json")
    assert (s.overall.tally.passed, s.overall.tally.total) == (4, 4)
    assert round(s.overall.mean_score or 0, 6) == 0.89
    assert groups(s, "metrics") == [("AgentGoalAccuracyWithoutReference", 2, 2, 0, 0, 1.0, 0.88),
                                    ("ToolCallAccuracy", 2, 2, 0, 0, 1.0, 0.9)]
    assert s.failing == [] and s.warnings == ()


def test_errored_fixture_counts_errored_in_the_denominator_and_not_in_means() -> None:
    s = summary("errored.json")
    assert groups(s, "metrics") == [
        ("AgentGoalAccuracyWithoutReference", 2, 1, 0, 1, 0.5, 1.0),
        ("Faithfulness", 1, 0, 0, 1, 0.0, None),
        ("ToolCallAccuracy", 2, 1, 0, 1, 0.5, 1.0),
    ]
    assert round(s.overall.tally.pass_rate or 0, 6) == 0.4
    assert (s.steps.passed, s.steps.errored) == (0, 2)


def test_multi_turn_fixture_groups_by_metric_name_and_skips_steps_without_metrics() -> None:
    s = summary("multi_turn.json")
    assert groups(s, "metrics") == [("AgentGoalAccuracyWithoutReference", 1, 1, 0, 0, 1.0, 0.95),
                                    ("TopicAdherence", 3, 2, 1, 0, 0.666667, 0.616667)]
    assert (s.steps.total, s.steps.passed, s.steps.failed, s.steps.not_evaluated) == (3, 1, 1, 1)


def test_empty_run_warns_and_has_no_rates() -> None:
    s = summary("empty.json")
    assert s.overall.tally.pass_rate is None and s.overall.mean_score is None
    assert s.warnings == ("empty.json: the run has no scenarios: nothing was evaluated",)


def test_recorded_verdict_disagreeing_with_the_score_is_reported() -> None:
    doc = {"default_threshold": 0.9, "scenarios": [{"name": "S", "steps": [{
        "input": "q", "metrics": [{"metric_name": "M"}],
        "evaluations": [{"metric": {"metric_name": "M"}, "result": {"result": "pass", "score": 0.5}}]}]}]}
    s = summarize(parse_document(doc, "r.json"))
    assert s.checks[0].status.value == "fail"
    assert s.warnings == ("r.json: S › step 1 › M: the file records 'pass' but score 0.5 against threshold 0.9 "
                          "is 'fail'; reporting 'fail'",)


@pytest.mark.parametrize(("name", "policy", "reasons"), [
    ("passing.json", GatePolicy(), ()),
    ("failing.json", GatePolicy(), ("failing.json: 3 of 7 checks failed",)),
    ("errored.json", GatePolicy(), ("errored.json: 3 of 5 checks errored",)),
    ("errored.json", GatePolicy(ignore_errored=True), ()),
    ("nan_score.json", GatePolicy(), ("nan_score.json: 2 of 3 checks errored",)),
    ("empty.json", GatePolicy(), ("empty.json: nothing was evaluated (0 scenarios, 0 checks)",)),
    ("empty.json", GatePolicy(min_pass_rate=0.0), ("empty.json: nothing was evaluated (0 scenarios, 0 checks)",)),
    ("failing.json", GatePolicy(min_pass_rate=0.5), ()),
    ("failing.json", GatePolicy(min_pass_rate=0.6), ("failing.json: pass rate 57.1% (4/7) is below 60.0%",)),
    ("errored.json", GatePolicy(min_pass_rate=0.5), ("errored.json: pass rate 40.0% (2/5) is below 50.0%",)),
    ("errored.json", GatePolicy(min_pass_rate=1.0, ignore_errored=True), ()),
    ("multi_turn.json", GatePolicy(min_pass_rate=0.75), ()),
])
def test_results_gate(name: str, policy: GatePolicy, reasons: tuple[str, ...]) -> None:
    gate = results_gate([summary(name)], policy)
    assert gate.reasons == reasons
    assert gate.passed is (not reasons)


def test_gate_not_enforced_still_reports_but_does_not_fail_the_exit() -> None:
    gate = results_gate([summary("failing.json")], GatePolicy(enforce=False))
    assert not gate.passed and not gate.exit_failed and gate.reasons == ("failing.json: 3 of 7 checks failed",)

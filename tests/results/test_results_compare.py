"""Comparing runs: matching rules, deltas, changes and the compare gate, with exact numbers."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from kubectl_testbench.results.compare import Change, CompareError, Comparison, Match, compare, match_steps
from kubectl_testbench.results.gate import GatePolicy, compare_gate
from kubectl_testbench.results.model import Step, parse_document
from kubectl_testbench.results.summary import summarize
from tests.results.helpers import FIXTURES


def doc(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text())


def comparison(base: Any = None, candidate: Any = None) -> Comparison:
    b = parse_document(base if base is not None else doc("baseline.json"), "baseline.json")
    c = parse_document(candidate if candidate is not None else doc("candidate.json"), "candidate.json")
    return compare(summarize(b), summarize(c))


def test_metric_deltas_over_checks_scored_in_both_runs() -> None:
    cmp = comparison()
    assert [(m.metric, m.pairs, m.scored_pairs, round(m.base_mean or 0, 6), round(m.candidate_mean or 0, 6),
             round(m.delta or 0, 6), m.base_passed, m.candidate_passed) for m in cmp.metrics] == [
        ("AgentGoalAccuracyWithoutReference", 4, 4, 0.82, 0.8, -0.02, 3, 2),
        ("ToolCallAccuracy", 3, 2, 1.0, 0.5, -0.5, 3, 1),
    ]


def test_every_check_pair_with_its_change_and_delta() -> None:
    cmp = comparison()
    rows = [(p.scenario, p.base_step, p.candidate_step, p.match.value, p.metric, p.change.value,
             None if p.delta is None else round(p.delta, 6)) for p in cmp.checks]
    aga, tca = "AgentGoalAccuracyWithoutReference", "ToolCallAccuracy"
    ny, bkk = "Weather in New York", "Weather in Bangkok (unavailable)"
    multi = "Weather then time in New York (multi-step)"
    assert rows == [
        (ny, 0, 0, "index", aga, "newly_failing", -0.5),
        (ny, 0, 0, "index", tca, "unchanged", 0.0),
        (bkk, 0, 0, "index", aga, "newly_passing", 0.5),
        (bkk, 0, 0, "index", tca, "newly_failing", -1.0),
        (multi, 0, 1, "input", aga, "unchanged", 0.0),
        (multi, 1, 2, "input", aga, "newly_failing", -0.08),
        (multi, 1, 2, "input", tca, "newly_failing", None),
        (multi, None, 0, "none", aga, "only_in_candidate", None),
        ("Removed scenario", 0, None, "none", aga, "only_in_base", None),
        ("New scenario", None, 0, "none", aga, "only_in_candidate", None),
    ]
    assert [p.newly_errored for p in cmp.checks].count(True) == 1
    assert cmp.matched_steps == 4
    assert [(s.scenario, s.base.index if s.base else None) for s in cmp.steps_only_in("base")] == [
        ("Removed scenario", 0)]
    assert [(s.scenario, s.candidate.index if s.candidate else None) for s in cmp.steps_only_in("candidate")] == [
        ("Weather then time in New York (multi-step)", 0), ("New scenario", 0)]
    assert cmp.warnings == (
        "1 step only in baseline.json, 2 only in candidate.json: they are listed but not compared",)


def _steps(*inputs: str) -> list[Step]:
    return [Step(index=i, input=text, id=None, metrics=(), evaluations=(), has_evaluations_key=True, turns=0)
            for i, text in enumerate(inputs)]


@pytest.mark.parametrize(("base", "candidate", "expected"), [
    (("a", "b"), ("a", "b"), [(0, 0, "index"), (1, 1, "index")]),
    (("a", "b"), ("new", "a", "b"), [(0, 1, "input"), (1, 2, "input"), (None, 0, "none")]),
    (("a", "b", "c"), ("a", "c"), [(0, 0, "index"), (1, None, "none"), (2, 1, "input")]),
    (("a", "b"), ("a", "b edited"), [(0, 0, "index"), (1, 1, "index-input-changed")]),
    (("a", "b"), ("b", "a"), [(0, 1, "input"), (1, 0, "input")]),
    (("a", "a"), ("a", "a"), [(0, 0, "index"), (1, 1, "index")]),
    (("a",), (), [(0, None, "none")]),
])
def test_step_matching_rules(base: tuple[str, ...], candidate: tuple[str, ...],
                             expected: list[tuple[int | None, int | None, str]]) -> None:
    pairs = match_steps(_steps(*base), _steps(*candidate))
    assert [(b.index if b else None, c.index if c else None, how.value) for b, c, how in pairs] == expected


def test_repeated_scenario_names_pair_by_occurrence() -> None:
    def run(scores: list[float]) -> Any:
        return {"default_threshold": 0.9, "scenarios": [
            {"name": "Same", "steps": [{"input": "q", "metrics": [{"metric_name": "M"}],
                                        "evaluations": [{"metric": {"metric_name": "M"}, "result": {"score": s}}]}]}
            for s in scores]}
    cmp = comparison(run([1.0, 0.2]), run([0.95, 0.3]))
    assert [round(p.delta or 0, 6) for p in cmp.checks] == [-0.05, 0.1]


def test_metric_added_to_a_matched_step_is_only_in_the_candidate() -> None:
    cand = doc("baseline.json")
    step = cand["scenarios"][0]["steps"][0]
    step["metrics"].append({"metric_name": "Faithfulness"})
    step["evaluations"].append({"metric": {"metric_name": "Faithfulness"}, "result": {"result": "pass", "score": 1}})
    cmp = comparison(candidate=cand)
    extra = [p for p in cmp.checks if p.metric == "Faithfulness"]
    assert [(p.change, p.match) for p in extra] == [(Change.ONLY_IN_CANDIDATE, Match.INDEX)]
    assert [m.metric for m in cmp.metrics] == ["AgentGoalAccuracyWithoutReference", "ToolCallAccuracy"]


def test_identical_runs_have_no_changes_and_pass_every_gate() -> None:
    cmp = comparison(doc("baseline.json"), doc("baseline.json"))
    assert {p.change for p in cmp.checks} == {Change.UNCHANGED}
    assert all(m.delta == 0 for m in cmp.metrics)
    assert cmp.warnings == ()
    assert compare_gate(cmp, GatePolicy()).passed
    assert compare_gate(cmp, GatePolicy(max_regression=0.0)).passed


def test_different_datasets_are_refused() -> None:
    with pytest.raises(CompareError) as err:
        comparison(candidate=doc("other_dataset.json"))
    assert str(err.value) == ("baseline.json and candidate.json share no step (0 of 4 base scenarios found in the "
                              "candidate by name): they look like runs of different datasets")


def test_empty_run_cannot_be_compared() -> None:
    with pytest.raises(CompareError) as err:
        comparison(candidate=doc("empty.json"))
    assert str(err.value) == "nothing to compare: candidate.json has no steps"


def test_judge_model_and_default_threshold_changes_are_noted() -> None:
    cand = copy.deepcopy(doc("baseline.json"))
    cand["llm_as_a_judge_model"] = "gpt-4.1-mini"
    cand["default_threshold"] = 0.8
    assert comparison(candidate=cand).warnings == (
        "the judge model differs (gemini-2.5-flash-lite → gpt-4.1-mini): score changes may come from the judge",
        "default_threshold differs (0.9 → 0.8)")


@pytest.mark.parametrize(("policy", "reasons", "regressed"), [
    (GatePolicy(), ("4 checks newly failing (1 of them errored)",), ()),
    (GatePolicy(ignore_errored=True), ("3 checks newly failing",), ()),
    (GatePolicy(max_regression=0.1),
     ("ToolCallAccuracy mean dropped by 0.500 (1.000 → 0.500), more than 0.1",
      "1 check scored in the base errored in the candidate"), ("ToolCallAccuracy",)),
    (GatePolicy(max_regression=0.01),
     ("AgentGoalAccuracyWithoutReference mean dropped by 0.020 (0.820 → 0.800), more than 0.01",
      "ToolCallAccuracy mean dropped by 0.500 (1.000 → 0.500), more than 0.01",
      "1 check scored in the base errored in the candidate"),
     ("AgentGoalAccuracyWithoutReference", "ToolCallAccuracy")),
    (GatePolicy(max_regression=0.4, ignore_errored=True),
     ("ToolCallAccuracy mean dropped by 0.500 (1.000 → 0.500), more than 0.4",), ("ToolCallAccuracy",)),
    (GatePolicy(max_regression=0.6), ("1 check scored in the base errored in the candidate",), ()),
    (GatePolicy(max_regression=0.6, ignore_errored=True), (), ()),
    (GatePolicy(max_regression=0.5, ignore_errored=True), (), ()),
])
def test_compare_gate(policy: GatePolicy, reasons: tuple[str, ...], regressed: tuple[str, ...]) -> None:
    gate = compare_gate(comparison(), policy)
    assert gate.reasons == reasons
    assert gate.regressed_metrics == regressed
    assert gate.passed is (not reasons)

"""Property (issue 32): over generated suites of every format, nothing changes meaning without a located warning.

One abstract suite (cases with an input, maybe an expected answer, maybe expected tool calls, maybe rubric texts,
maybe something the format cannot carry) is written in each format; after the import, every case the fidelity
report calls ``carried`` is exactly the faithful translation, every case with something lossy is reported
``carried with changes`` or ``dropped``, and every warning about a case points into the source.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import hypothesis.strategies as st
from hypothesis import HealthCheck, given, settings

from kubectl_testbench.integrations.importers import ImportOptions, import_dataset
from kubectl_testbench.integrations.importers.common import CARRIED

words = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz "), min_size=1, max_size=16).map(
    lambda s: s.strip() or "x")
names = st.from_regex(r"[a-z][a-z_]{0,8}", fullmatch=True)
arg_values = st.one_of(st.integers(0, 99), words)

AGENTV_LOSSY = ("system message", "regex assertion", "trajectory without args", "superset trajectory",
                "weighted rubric")
ADK_LOSSY = ("tool responses", "intermediate responses", "session state")
ORLOJ_LOSSY = ("output_not_contains", "greaterThan")


@st.composite
def cases(draw: st.DrawFn, lossy: tuple[str, ...], tools: bool = True, rubrics: bool = True) -> list[dict[str, Any]]:
    """Abstract cases; ``tools`` and ``rubrics`` say whether the format has expected tool calls and rubric texts."""
    out = []
    for i in range(draw(st.integers(1, 4))):
        case: dict[str, Any] = {"id": f"case-{i + 1}", "input": draw(words)}
        if draw(st.booleans()):
            case["expected"] = draw(words)
        if tools and draw(st.booleans()):
            case["tools"] = draw(st.lists(st.tuples(names, st.dictionaries(names, arg_values, min_size=1,
                                                                            max_size=2)), min_size=1, max_size=2))
        case["rubrics"] = draw(st.lists(words, min_size=1, max_size=2)) if rubrics and draw(st.booleans()) else []
        case["lossy"] = draw(st.lists(st.sampled_from(lossy), max_size=2, unique=True)) if lossy else []
        out.append(case)
    return out


# --- writers: the abstract suite in each format ---------------------------------------------------------------


def agentv_suite(items: list[dict[str, Any]]) -> str:
    tests = []
    for case in items:
        messages: list[dict[str, Any]] = [{"role": "user", "content": case["input"]}]
        if "system message" in case["lossy"]:
            messages.insert(0, {"role": "system", "content": "be brief"})
        test: dict[str, Any] = {"id": case["id"], "input": messages}
        if "expected" in case:
            test["expected_output"] = case["expected"]
        asserts: list[Any] = list(case["rubrics"])
        if "weighted rubric" in case["lossy"]:
            asserts.append({"type": "llm-rubric", "value": [{"outcome": "is kind", "weight": 2}]})
        if "regex assertion" in case["lossy"]:
            asserts.append({"type": "regex", "value": "a+"})
        if "tools" in case:
            asserts.append({"type": "tool-trajectory", "mode": "exact",
                            "expected": [{"tool": n, "args": a} for n, a in case["tools"]]})
        if "trajectory without args" in case["lossy"]:
            asserts.append({"type": "tool-trajectory", "mode": "exact", "expected": [{"tool": "lookup"}]})
        if "superset trajectory" in case["lossy"]:
            asserts.append({"type": "tool-trajectory", "mode": "superset", "expected": [{"tool": "lookup",
                                                                                          "args": {"q": 1}}]})
        if asserts:
            test["assert"] = asserts
        tests.append(test)
    return json.dumps({"tests": tests}, indent=1)


def adk_suite(items: list[dict[str, Any]]) -> str:
    eval_cases = []
    for case in items:
        inv: dict[str, Any] = {"user_content": {"parts": [{"text": case["input"]}], "role": "user"}}
        if "expected" in case:
            inv["final_response"] = {"parts": [{"text": case["expected"]}], "role": "model"}
        inter: dict[str, Any] = {}
        if "tools" in case:
            inter["tool_uses"] = [{"name": n, "args": a} for n, a in case["tools"]]
        if "tool responses" in case["lossy"]:
            inter["tool_responses"] = [{"name": "x", "response": {"ok": True}}]
        if "intermediate responses" in case["lossy"]:
            inter["intermediate_responses"] = [["sub", [{"text": "hi"}]]]
        if inter:
            inv["intermediate_data"] = inter
        entry: dict[str, Any] = {"eval_id": case["id"], "conversation": [inv]}
        if case["rubrics"]:
            entry["rubrics"] = [{"rubric_id": f"r{i}", "rubric_content": {"text_property": t}}
                                for i, t in enumerate(case["rubrics"])]
        if "session state" in case["lossy"]:
            entry["session_input"] = {"app_name": "a", "user_id": "u", "state": {"k": 1}}
        eval_cases.append(entry)
    return json.dumps({"eval_set_id": "s", "eval_cases": eval_cases}, indent=1)


ADK_CONFIG = json.dumps({"criteria": {"tool_trajectory_avg_score": 1.0, "final_response_match_v2": 0.5,
                                      "rubric_based_final_response_quality_v1": {"threshold": 0.5}}})


def orloj_suite(items: list[dict[str, Any]]) -> str:
    samples = []
    for case in items:
        expected: dict[str, Any] = {}
        if "expected" in case:
            expected["output_contains"] = case["expected"]
        if "output_not_contains" in case["lossy"]:
            expected["output_not_contains"] = "never"
        if "greaterThan" in case["lossy"]:
            expected["greaterThan"] = 3
        sample: dict[str, Any] = {"name": case["id"], "input": {"prompt": case["input"]}}
        if expected:
            sample["expected"] = expected
        samples.append(sample)
    return json.dumps({"apiVersion": "orloj.dev/v1", "kind": "EvalDataset", "metadata": {"name": "d"},
                       "spec": {"samples": samples}}, indent=1)


def table_rows(items: list[dict[str, Any]]) -> str:
    rows = []
    for case in items:
        row = {"user_input": case["input"]}
        if "expected" in case:
            row["reference"] = case["expected"]
        rows.append(row)
    return "\n".join(json.dumps(r) for r in rows) + "\n"


# --- the property -------------------------------------------------------------------------------------------


def check(result: Any, items: list[dict[str, Any]], by_name: bool = True) -> None:
    """Carried means faithful; anything lossy is reported; every warning about a case is located."""
    scenarios = result.experiment["spec"]["dataset"]["inline"]["scenarios"]
    assert len(result.cases) == len(items)
    for case, report in zip(items, result.cases, strict=True):
        if by_name:
            assert report.name == case["id"]
        for warning in report.warnings:
            assert warning.line > 0, warning
        if case["lossy"]:
            assert report.status != CARRIED, (case, report)
        if report.status != CARRIED:
            continue
        scenario = next(s for s in scenarios if s["name"] == report.name)
        step = scenario["steps"][-1]
        assert step["input"] == case["input"]
        assert step.get("reference", {}).get("response") == case.get("expected")
        calls = [(c["name"], c["args"]) for c in step.get("reference", {}).get("toolCalls", [])]
        assert calls == [(n, a) for n, a in case.get("tools", [])]
        texts = [r["text"] for r in step.get("customValues", {}).get("rubrics", [])]
        assert texts == [] and case["rubrics"] == []  # a kept-but-unscored rubric is a change, never "carried"


FORMATS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@FORMATS
@given(items=cases(AGENTV_LOSSY))
def test_agentv(tmp_path: Path, items: list[dict[str, Any]]) -> None:
    path = tmp_path / "gen.eval.yaml"
    path.write_text(agentv_suite(items), encoding="utf-8")
    check(import_dataset("agentv", [str(path)], ImportOptions(name="x", agent="a")), items)


@FORMATS
@given(items=cases(ADK_LOSSY))
def test_adk(tmp_path: Path, items: list[dict[str, Any]]) -> None:
    path = tmp_path / "gen.evalset.json"
    path.write_text(adk_suite(items), encoding="utf-8")
    config = tmp_path / "eval_config.json"
    config.write_text(ADK_CONFIG, encoding="utf-8")
    check(import_dataset("adk", [str(path)], ImportOptions(name="x", agent="a", config=str(config))), items)


@FORMATS
@given(items=cases(ORLOJ_LOSSY, tools=False, rubrics=False))
def test_orloj(tmp_path: Path, items: list[dict[str, Any]]) -> None:
    path = tmp_path / "gen.yaml"
    path.write_text(orloj_suite(items), encoding="utf-8")
    check(import_dataset("orloj", [str(path)], ImportOptions(name="x", agent="a")), items)


@FORMATS
@given(items=cases((), tools=False, rubrics=False))
def test_json_table(tmp_path: Path, items: list[dict[str, Any]]) -> None:
    path = tmp_path / "gen.jsonl"
    path.write_text(table_rows(items), encoding="utf-8")
    check(import_dataset("json", [str(path)], ImportOptions(name="x", agent="a")), items, by_name=False)


@FORMATS
@given(items=cases((), tools=False, rubrics=False))
def test_csv_table(tmp_path: Path, items: list[dict[str, Any]]) -> None:
    path = tmp_path / "gen.csv"
    lines = ["user_input,reference"] + [f"{c['input']},{c.get('expected', '')}" for c in items]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    check(import_dataset("csv", [str(path)], ImportOptions(name="x", agent="a")), items, by_name=False)

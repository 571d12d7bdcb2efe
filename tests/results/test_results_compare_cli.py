"""``kubectl testbench compare``: the expected regressions in every format, and the exit codes."""

from __future__ import annotations

import csv
import io
import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.conftest import run_cli, run_process
from tests.results.helpers import FIXTURES, fixture

BASE, CAND = fixture("baseline.json"), fixture("candidate.json")
UNMATCHED = ("warning: 1 step only in tests/results/fixtures/baseline.json, 2 only in "
             "tests/results/fixtures/candidate.json: they are listed but not compared\n")

COMPARE_TABLE = """\
Base:      tests/results/fixtures/baseline.json (experiment exp_base0001, judge gemini-2.5-flash-lite, 8 checks, 75.0% pass)
Candidate: tests/results/fixtures/candidate.json (experiment exp_cand0002, judge gemini-2.5-flash-lite, 9 checks, 55.6% pass)
Matched 4 steps (7 checks) · newly failing 4 · newly passing 1 · only in base 1 step · only in candidate 2 steps

METRIC                             PAIRS  SCORED  BASE MEAN  CAND MEAN   DELTA  BASE PASSED  CAND PASSED
AgentGoalAccuracyWithoutReference      4       4      0.820      0.800  -0.020          3/4          2/4
ToolCallAccuracy                       3       2      1.000      0.500  -0.500          3/3          1/3{regressed}

NEWLY FAILING (4)
  Weather in New York › step 1 › AgentGoalAccuracyWithoutReference: 1.000 pass → 0.500 fail (-0.500), threshold 0.900
  Weather in Bangkok (unavailable) › step 1 › ToolCallAccuracy: 1.000 pass → 0.000 fail (-1.000), threshold 0.900
  Weather then time in New York (multi-step) › step 2→3 › AgentGoalAccuracyWithoutReference: 0.930 pass → 0.850 fail (-0.080), threshold 0.900
  Weather then time in New York (multi-step) › step 2→3 › ToolCallAccuracy: 1.000 pass → errored, threshold 0.900; no evaluation: the metric raised an error in the evaluate phase

NEWLY PASSING (1)
  Weather in Bangkok (unavailable) › step 1 › AgentGoalAccuracyWithoutReference: 0.400 fail → 0.900 pass (+0.500), threshold 0.900

ONLY IN BASE (1 step)
  Removed scenario › step 1: Tell me a joke

ONLY IN CANDIDATE (2 steps)
  Weather then time in New York (multi-step) › step 1: Hello!
  New scenario › step 1: What is the capital of France?
"""  # noqa: E501 - golden output, compared byte for byte


def test_table_lists_the_expected_regressions_and_exits_1() -> None:
    result = run_cli("compare", BASE, CAND)
    assert result.stdout == COMPARE_TABLE.format(regressed="")
    assert result.stderr == UNMATCHED + "gate failed: 4 checks newly failing (1 of them errored)\n"
    assert result.exit_code == 1


def test_max_regression_marks_the_metric_and_exits_1() -> None:
    result = run_cli("compare", BASE, CAND, "--max-regression", "0.1")
    assert result.stdout == COMPARE_TABLE.format(regressed="  REGRESSED")
    assert result.stderr == UNMATCHED + (
        "gate failed: ToolCallAccuracy mean dropped by 0.500 (1.000 → 0.500), more than 0.1\n"
        "gate failed: 1 check scored in the base errored in the candidate\n")
    assert result.exit_code == 1


@pytest.mark.parametrize(("args", "code"), [
    ((), 1),
    (("--ignore-errored",), 1),
    (("--max-regression", "0.1"), 1),
    (("--max-regression", "0.1", "--ignore-errored"), 1),
    (("--max-regression", "0.5", "--ignore-errored"), 0),
    (("--max-regression", "0.6"), 1),
    (("--max-regression", "0.6", "--ignore-errored"), 0),
    (("--no-gate",), 0),
    (("--max-regression", "0.1", "--no-gate"), 0),
])
def test_exit_codes(args: tuple[str, ...], code: int) -> None:
    assert run_cli("compare", BASE, CAND, *args).exit_code == code


def test_same_run_twice_passes() -> None:
    result = run_cli("compare", BASE, BASE, "--max-regression", "0")
    assert (result.exit_code, result.stderr) == (0, "")
    assert "NEWLY FAILING" not in result.stdout
    assert "Matched 5 steps (8 checks) · newly failing 0 · newly passing 0" in result.stdout


def test_json_has_metric_deltas_check_pairs_and_gate() -> None:
    result = run_cli("compare", BASE, CAND, "-o", "json", "--max-regression", "0.1")
    doc = json.loads(result.stdout)
    assert doc["base"] == {"source": BASE, "experiment": {"id": "exp_base0001",
                           "llm_as_a_judge_model": "gemini-2.5-flash-lite", "default_threshold": 0.9},
                           "checks": 8, "pass_rate": 0.75, "mean_score": 0.885}
    assert doc["candidate"]["checks"] == 9 and doc["candidate"]["pass_rate"] == 0.555556
    assert doc["summary"] == {"matched_steps": 4, "matched_checks": 7, "newly_failing": 4, "newly_passing": 1,
                              "unchanged": 2, "only_in_base": 1, "only_in_candidate": 2, "only_in_base_steps": 1,
                              "only_in_candidate_steps": 2}
    assert doc["metrics"] == [
        {"metric": "AgentGoalAccuracyWithoutReference", "pairs": 4, "scored_pairs": 4, "base_mean": 0.82,
         "candidate_mean": 0.8, "delta": -0.02, "base_passed": 3, "candidate_passed": 2, "regressed": False},
        {"metric": "ToolCallAccuracy", "pairs": 3, "scored_pairs": 2, "base_mean": 1.0, "candidate_mean": 0.5,
         "delta": -0.5, "base_passed": 3, "candidate_passed": 1, "regressed": True}]
    newly_failing = [(c["scenario"], c["base_step_index"], c["candidate_step_index"], c["metric"], c["delta"])
                     for c in doc["checks"] if c["change"] == "newly_failing"]
    assert newly_failing == [
        ("Weather in New York", 0, 0, "AgentGoalAccuracyWithoutReference", -0.5),
        ("Weather in Bangkok (unavailable)", 0, 0, "ToolCallAccuracy", -1.0),
        ("Weather then time in New York (multi-step)", 1, 2, "AgentGoalAccuracyWithoutReference", -0.08),
        ("Weather then time in New York (multi-step)", 1, 2, "ToolCallAccuracy", None)]
    errored = doc["checks"][6]
    assert errored["base"] == {"status": "pass", "score": 1.0, "threshold": 0.9, "reason": None}
    assert errored["candidate"] == {"status": "errored", "score": None, "threshold": 0.9,
                                    "reason": "no evaluation: the metric raised an error in the evaluate phase"}
    assert errored["match"] == "input"
    assert doc["gate"] == {"enforced": True, "passed": False, "reasons": [
        "ToolCallAccuracy mean dropped by 0.500 (1.000 → 0.500), more than 0.1",
        "1 check scored in the base errored in the candidate"],
        "policy": {"min_pass_rate": None, "max_regression": 0.1, "ignore_errored": False}}


def test_csv_has_one_row_per_check_pair() -> None:
    rows = list(csv.DictReader(io.StringIO(run_cli("compare", BASE, CAND, "-o", "csv").stdout)))
    assert len(rows) == 10
    assert [(r["scenario"], r["base_step_index"], r["candidate_step_index"], r["metric"], r["base_score"],
             r["candidate_score"], r["delta"], r["change"]) for r in rows] == [
        ("Weather in New York", "0", "0", "AgentGoalAccuracyWithoutReference", "1.0", "0.5", "-0.5", "newly_failing"),
        ("Weather in New York", "0", "0", "ToolCallAccuracy", "1.0", "1.0", "0.0", "unchanged"),
        ("Weather in Bangkok (unavailable)", "0", "0", "AgentGoalAccuracyWithoutReference", "0.4", "0.9", "0.5",
         "newly_passing"),
        ("Weather in Bangkok (unavailable)", "0", "0", "ToolCallAccuracy", "1.0", "0.0", "-1.0", "newly_failing"),
        ("Weather then time in New York (multi-step)", "0", "1", "AgentGoalAccuracyWithoutReference", "0.95", "0.95",
         "0.0", "unchanged"),
        ("Weather then time in New York (multi-step)", "1", "2", "AgentGoalAccuracyWithoutReference", "0.93", "0.85",
         "-0.08", "newly_failing"),
        ("Weather then time in New York (multi-step)", "1", "2", "ToolCallAccuracy", "1.0", "", "", "newly_failing"),
        ("Weather then time in New York (multi-step)", "", "0", "AgentGoalAccuracyWithoutReference", "", "1.0", "",
         "only_in_candidate"),
        ("Removed scenario", "0", "", "AgentGoalAccuracyWithoutReference", "0.8", "", "", "only_in_base"),
        ("New scenario", "", "0", "AgentGoalAccuracyWithoutReference", "", "1.0", "", "only_in_candidate")]
    assert rows[6]["candidate_status"] == "errored" and rows[6]["match"] == "input"


def test_markdown_comment_shows_regressions() -> None:
    out = run_cli("compare", BASE, CAND, "-o", "markdown", "--max-regression", "0.1").stdout
    lines = out.splitlines()
    assert lines[0] == "### ❌ Testbench compare: 4 newly failing, 1 newly passing"
    assert lines[2] == ("Base `tests/results/fixtures/baseline.json` → candidate "
                        "`tests/results/fixtures/candidate.json` · matched 4 steps (7 checks) · newly failing 4 · "
                        "newly passing 1 · only in base 1 step · only in candidate 2 steps")
    assert "| AgentGoalAccuracyWithoutReference | 4 | 4 | 0.820 | 0.800 | -0.020 | 3/4 | 2/4 |" in lines
    assert "| ToolCallAccuracy ⚠️ | 3 | 2 | 1.000 | 0.500 | -0.500 | 3/3 | 1/3 |" in lines
    assert ("| Weather then time in New York (multi-step) | 2→3 | ToolCallAccuracy | 1.000 pass | errored | - | "
            "What time is it in New York? |") in lines
    assert ("| Weather in Bangkok (unavailable) | 1 | AgentGoalAccuracyWithoutReference | 0.400 fail | 0.900 pass | "
            "+0.500 | What is the weather like in Bangkok right now? |") in lines
    assert "| base | Removed scenario | 1 | Tell me a joke |" in lines
    assert lines[-3:] == ["", "- ToolCallAccuracy mean dropped by 0.500 (1.000 → 0.500), more than 0.1",
                          "- 1 check scored in the base errored in the candidate"]


def test_junit_fails_newly_failing_checks_and_regressed_means() -> None:
    root = ET.fromstring(run_cli("compare", BASE, CAND, "-o", "junit", "--max-regression", "0.1").stdout)
    assert [root.get(k) for k in ("tests", "failures", "errors", "skipped")] == ["12", "4", "1", "3"]
    failing = [(c.get("classname"), c.get("name"), f.get("type")) for c in root.iter("testcase")
               for f in c.findall("failure")]
    assert failing == [
        ("Weather in New York", "step 1: AgentGoalAccuracyWithoutReference", "newly-failing"),
        ("Weather in Bangkok (unavailable)", "step 1: ToolCallAccuracy", "newly-failing"),
        ("Weather then time in New York (multi-step)", "step 2→3: AgentGoalAccuracyWithoutReference", "newly-failing"),
        ("metric means", "ToolCallAccuracy", "max-regression")]
    means = [s for s in root.findall("testsuite") if s.get("name") == "metric means"]
    assert len(means) == 1 and means[0].find("testcase/failure").get("message") == (
        "mean 1.000 → 0.500 (-0.500), more than 0.1 down")
    plain = ET.fromstring(run_cli("compare", BASE, CAND, "-o", "junit").stdout)
    assert [s.get("name") for s in plain.findall("testsuite")][-1] == "New scenario"


def test_runs_of_different_datasets_exit_2() -> None:
    result = run_cli("compare", BASE, fixture("other_dataset.json"))
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == ("error: tests/results/fixtures/baseline.json and tests/results/fixtures/other_dataset.json"
                             " share no step (0 of 4 base scenarios found in the candidate by name): they look like "
                             "runs of different datasets\n")


def test_empty_run_exits_2() -> None:
    result = run_cli("compare", BASE, fixture("empty.json"))
    assert (result.exit_code, result.stderr) == (
        2, "error: nothing to compare: tests/results/fixtures/empty.json has no steps\n")


@pytest.mark.parametrize(("args", "message"), [
    ((BASE,), "error: compare needs 2 paths besides the --*-execution options, got 1 "
              "(usage: kubectl testbench compare BASE CANDIDATE)\n"),
    ((BASE, CAND, CAND), "error: compare needs 2 paths besides the --*-execution options, got 3 "
                         "(usage: kubectl testbench compare BASE CANDIDATE)\n"),
    (("-", "-"), "error: only one side can be read from stdin (-)\n"),
    ((BASE, fixture("malformed_syntax.json")),
     "error: tests/results/fixtures/malformed_syntax.json:7:7: invalid JSON: Expecting ',' delimiter\n"),
])
def test_usage_and_input_errors_exit_2(args: tuple[str, ...], message: str) -> None:
    result = run_cli("compare", *args)
    assert (result.exit_code, result.stderr) == (2, message)


def test_a_side_holding_several_runs_is_refused(tmp_path: Path) -> None:
    for execution in ("a", "b"):
        target = tmp_path / execution / "evaluated_experiment.json"
        target.parent.mkdir()
        shutil.copy(FIXTURES / "baseline.json", target)
    result = run_cli("compare", str(tmp_path), CAND)
    assert result.exit_code == 2
    assert result.stderr == (f"error: {tmp_path}: holds 2 results ({tmp_path}/a/evaluated_experiment.json, "
                             f"{tmp_path}/b/evaluated_experiment.json); compare needs exactly one per side: "
                             "pass the file you mean\n")


def test_a_directory_with_one_execution_is_accepted_and_stdin_works(tmp_path: Path) -> None:
    target = tmp_path / "exec-1" / "data" / "experiments" / "evaluated_experiment.json"
    target.parent.mkdir(parents=True)
    shutil.copy(FIXTURES / "baseline.json", target)
    result = run_cli("compare", str(tmp_path), "-", "-o", "json", input=(FIXTURES / "candidate.json").read_text())
    doc = json.loads(result.stdout)
    assert (doc["base"]["source"], doc["candidate"]["source"]) == (str(target), "stdin")
    assert doc["summary"]["newly_failing"] == 4


def test_real_process_compare_exit_code_and_no_traceback() -> None:
    proc = run_process("compare", BASE, CAND, "--max-regression", "0.1", "-o", "markdown")
    assert proc.returncode == 1
    assert proc.stdout.decode().startswith("### ❌ Testbench compare")
    assert b"Traceback" not in proc.stderr
    proc = run_process("compare", BASE, fixture("malformed_fields.json"))
    assert proc.returncode == 2 and b"Traceback" not in proc.stderr


def test_score_changes_with_the_same_verdict_are_listed(tmp_path: Path) -> None:
    cand = json.loads((FIXTURES / "passing.json").read_text())
    cand["scenarios"][1]["steps"][0]["evaluations"][0]["result"]["score"] = 0.9
    path = tmp_path / "candidate.json"
    path.write_text(json.dumps(cand))
    result = run_cli("compare", fixture("passing.json"), str(path))
    assert result.exit_code == 0
    assert result.stdout.endswith(
        "\nSCORE CHANGED, SAME VERDICT (1)\n"
        "  Time in Berlin › step 1 › AgentGoalAccuracyWithoutReference: 0.760 pass → 0.900 pass (+0.140), "
        "threshold 0.500\n")
    assert "AgentGoalAccuracyWithoutReference      2       2      0.880      0.950  +0.070" in result.stdout

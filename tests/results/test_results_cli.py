"""``kubectl testbench results``: every output format with exact numbers, exit codes, stdout vs stderr."""

from __future__ import annotations

import csv
import io
import json
import shutil
import tarfile
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.conftest import run_cli, run_process
from tests.results.helpers import FIXTURES, fixture

FAILING = fixture("failing.json")

FAILING_TABLE = """\
Results: tests/results/fixtures/failing.json
experiment exp_c41d2e90 · judge gemini-2.5-flash-lite · default threshold 0.900
Checks: 4 passed, 3 failed, 0 errored of 7 (57.1% pass) · steps: 2 of 4 passed · mean score 0.729

METRIC                             CHECKS  PASSED  FAILED  ERRORED  PASS RATE   MEAN
AgentGoalAccuracyWithoutReference       4       2       2        0      50.0%  0.650
ToolCallAccuracy                        3       2       1        0      66.7%  0.833

SCENARIO                                    STEPS  STEPS PASSED  CHECKS  PASSED  FAILED  ERRORED  PASS RATE   MEAN
Weather in New York                             1             1       2       2       0        0     100.0%  1.000
Weather in Bangkok (unavailable)                1             0       2       1       1        0      50.0%  0.500
Weather then time in New York (multi-step)      2             1       3       1       2        0      33.3%  0.700

NOT PASSING (3)
FAIL  Weather in Bangkok (unavailable) › step 1 › AgentGoalAccuracyWithoutReference: score 0.000 < threshold 0.900
      input: What is the weather like in Bangkok right now?
      details: {"reason": "The agent did not provide the weather for Bangkok."}
FAIL  Weather then time in New York (multi-step) › step 2 › AgentGoalAccuracyWithoutReference: score 0.650 < threshold 0.900
      input: What time is it in New York?
      details: {"reason": "The answer gives the time but not the timezone | asked for."}
FAIL  Weather then time in New York (multi-step) › step 2 › ToolCallAccuracy: score 0.500 < threshold 0.700
      input: What time is it in New York?
      details: called get_weather before get_current_time
"""  # noqa: E501 - golden output, compared byte for byte


def test_table_is_the_default_and_exact() -> None:
    result = run_cli("results", FAILING)
    assert result.stdout == FAILING_TABLE
    assert result.stderr == "gate failed: tests/results/fixtures/failing.json: 3 of 7 checks failed\n"
    assert result.exit_code == 1


def test_json_carries_summary_metrics_scenarios_and_every_check() -> None:
    result = run_cli("results", FAILING, "-o", "json")
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    (run,) = doc["runs"]
    assert run["source"] == FAILING
    assert run["experiment"] == {"id": "exp_c41d2e90", "llm_as_a_judge_model": "gemini-2.5-flash-lite",
                                 "default_threshold": 0.9}
    assert run["summary"] == {"checks": 7, "passed": 4, "failed": 3, "errored": 0, "pass_rate": 0.571429,
                              "mean_score": 0.728571, "scored": 7, "scenarios": 3,
                              "steps": {"total": 4, "passed": 2, "failed": 2, "errored": 0, "not_evaluated": 0}}
    assert run["metrics"] == [
        {"metric": "AgentGoalAccuracyWithoutReference", "checks": 4, "passed": 2, "failed": 2, "errored": 0,
         "pass_rate": 0.5, "mean_score": 0.65, "scored": 4},
        {"metric": "ToolCallAccuracy", "checks": 3, "passed": 2, "failed": 1, "errored": 0,
         "pass_rate": 0.666667, "mean_score": 0.833333, "scored": 3}]
    assert [(s["scenario"], s["index"], s["steps"], s["steps_passed"], s["pass_rate"], s["mean_score"])
            for s in run["scenarios"]] == [
        ("Weather in New York", 0, 1, 1, 1.0, 1.0), ("Weather in Bangkok (unavailable)", 1, 1, 0, 0.5, 0.5),
        ("Weather then time in New York (multi-step)", 2, 2, 1, 0.333333, 0.7)]
    assert len(run["checks"]) == 7
    assert run["checks"][2] == {
        "scenario": "Weather in Bangkok (unavailable)", "scenario_index": 1, "step_index": 0,
        "step_id": "stp_cf3cbdb11a9be451", "input": "What is the weather like in Bangkok right now?",
        "metric": "AgentGoalAccuracyWithoutReference", "parameters": {}, "threshold": 0.9,
        "threshold_source": "default_threshold", "score": 0.0, "status": "fail", "recorded_result": "fail",
        "reason": None, "details": {"reason": "The agent did not provide the weather for Bangkok."}}
    assert [c["status"] for c in run["checks"]] == ["pass", "pass", "fail", "pass", "pass", "fail", "fail"]
    assert run["warnings"] == []
    assert doc["gate"] == {"enforced": True, "passed": False,
                           "reasons": ["tests/results/fixtures/failing.json: 3 of 7 checks failed"],
                           "policy": {"min_pass_rate": None, "max_regression": None, "ignore_errored": False}}


def test_json_for_errored_and_nan_runs_uses_null_scores() -> None:
    doc = json.loads(run_cli("results", fixture("nan_score.json"), "-o", "json").stdout)
    checks = doc["runs"][0]["checks"]
    assert [(c["status"], c["score"], c["recorded_result"], c["reason"]) for c in checks] == [
        ("errored", None, "fail", "score is NaN: the judge could not score this step"),
        ("pass", 1.0, "pass", None),
        ("errored", None, None, "no score in the evaluation")]
    assert doc["runs"][0]["metrics"][0]["mean_score"] is None


def test_csv_has_one_row_per_step_and_metric() -> None:
    result = run_cli("results", FAILING, "-o", "csv")
    rows = list(csv.reader(io.StringIO(result.stdout)))
    assert rows[0] == ["run", "scenario", "scenario_index", "step_index", "step_id", "input", "metric", "parameters",
                       "threshold", "threshold_source", "score", "status", "recorded_result", "reason", "details"]
    assert len(rows) == 8
    assert rows[6] == [FAILING, "Weather then time in New York (multi-step)", "2", "1", "stp_0e0e9aeb430ee49a",
                       "What time is it in New York?", "AgentGoalAccuracyWithoutReference", "", "0.9",
                       "default_threshold", "0.65", "fail", "fail", "",
                       '{"reason": "The answer gives the time but not the timezone | asked for."}']
    assert rows[7][8:12] == ["0.7", "metric", "0.5", "fail"]
    assert [r[11] for r in rows[1:]] == ["pass", "pass", "fail", "pass", "pass", "fail", "fail"]


def test_csv_keeps_parameters_and_errored_reasons() -> None:
    rows = list(csv.DictReader(io.StringIO(run_cli("results", fixture("multi_turn.json"), "-o", "csv").stdout)))
    assert [(r["step_index"], r["metric"], r["parameters"], r["score"], r["status"]) for r in rows] == [
        ("1", "TopicAdherence", '{"mode": "precision"}', "0.75", "pass"),
        ("1", "TopicAdherence", '{"mode": "recall"}', "0.5", "fail"),
        ("2", "AgentGoalAccuracyWithoutReference", "", "0.95", "pass"),
        ("2", "TopicAdherence", '{"mode": "precision"}', "0.6", "pass")]
    rows = list(csv.DictReader(io.StringIO(run_cli("results", fixture("errored.json"), "-o", "csv").stdout)))
    assert [(r["metric"], r["score"], r["status"]) for r in rows][2:] == [
        ("Faithfulness", "", "errored"), ("AgentGoalAccuracyWithoutReference", "", "errored"),
        ("ToolCallAccuracy", "", "errored")]
    assert rows[2]["reason"] == "no evaluation: the metric raised an error in the evaluate phase"


FAILING_MARKDOWN = """\
### ❌ Testbench results: 57.1% of 7 checks passed

`tests/results/fixtures/failing.json` · experiment `exp_c41d2e90` · judge `gemini-2.5-flash-lite` · default threshold 0.900

**4 passed · 3 failed · 0 errored** · steps 2/4 passed · mean score 0.729

| Metric | Checks | Passed | Failed | Errored | Pass rate | Mean score |
| --- | ---: | ---: | ---: | ---: | ---: | ---: |
| AgentGoalAccuracyWithoutReference | 4 | 2 | 2 | 0 | 50.0% | 0.650 |
| ToolCallAccuracy | 3 | 2 | 1 | 0 | 66.7% | 0.833 |

<details><summary>Scenarios (3)</summary>

| Scenario | Steps passed | Checks | Passed | Failed | Errored | Pass rate | Mean score |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
| Weather in New York | 1/1 | 2 | 2 | 0 | 0 | 100.0% | 1.000 |
| Weather in Bangkok (unavailable) | 0/1 | 2 | 1 | 1 | 0 | 50.0% | 0.500 |
| Weather then time in New York (multi-step) | 1/2 | 3 | 1 | 2 | 0 | 33.3% | 0.700 |

</details>

#### Not passing (3)

| Scenario | Step | Metric | Status | Score | Threshold | Input | Details |
| --- | ---: | --- | --- | ---: | ---: | --- | --- |
| Weather in Bangkok (unavailable) | 1 | AgentGoalAccuracyWithoutReference | fail | 0.000 | 0.900 | What is the weather like in Bangkok right now? | {"reason": "The agent did not provide the weather for Bangkok."} |
| Weather then time in New York (multi-step) | 2 | AgentGoalAccuracyWithoutReference | fail | 0.650 | 0.900 | What time is it in New York? | {"reason": "The answer gives the time but not the timezone \\| asked for."} |
| Weather then time in New York (multi-step) | 2 | ToolCallAccuracy | fail | 0.500 | 0.700 | What time is it in New York? | called get_weather before get_current_time |

**Gate failed:**

- tests/results/fixtures/failing.json: 3 of 7 checks failed
"""  # noqa: E501 - golden output, compared byte for byte


def test_markdown_is_a_pull_request_comment() -> None:
    result = run_cli("results", FAILING, "-o", "markdown")
    assert result.stdout == FAILING_MARKDOWN
    assert result.exit_code == 1


def test_markdown_for_a_passing_run_has_no_failure_section() -> None:
    out = run_cli("results", fixture("passing.json"), "-o", "markdown").stdout
    assert out.startswith("### ✅ Testbench results: 100.0% of 4 checks passed\n")
    assert "| AgentGoalAccuracyWithoutReference | 2 | 2 | 0 | 0 | 100.0% | 0.880 |" in out
    assert "Not passing" not in out and "Gate failed" not in out


def test_markdown_escapes_html_and_pipes_from_user_text(tmp_path: Path) -> None:
    doc = {"default_threshold": 0.9, "scenarios": [{"name": "<script>x</script> | y", "steps": [{
        "input": "a | b\nc", "metrics": [{"metric_name": "M"}],
        "evaluations": [{"metric": {"metric_name": "M"}, "result": {"score": 0.1}}]}]}]}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(doc))
    out = run_cli("results", str(path), "-o", "markdown").stdout
    assert "| &lt;script&gt;x&lt;/script&gt; \\| y | 1 | M | fail | 0.100 | 0.900 | a \\| b c |  |" in out
    assert "<script>" not in out


def test_junit_makes_each_step_and_metric_a_test_case() -> None:
    result = run_cli("results", FAILING, "-o", "junit")
    root = ET.fromstring(result.stdout)
    assert (root.tag, root.get("tests"), root.get("failures"), root.get("errors")) == ("testsuites", "7", "3", "0")
    suites = root.findall("testsuite")
    assert [(s.get("name"), s.get("tests"), s.get("failures")) for s in suites] == [
        ("Weather in New York", "2", "0"), ("Weather in Bangkok (unavailable)", "2", "1"),
        ("Weather then time in New York (multi-step)", "3", "2")]
    cases = root.iter("testcase")
    failures = [(c.get("classname"), c.get("name"), f.get("message"), f.text)
                for c in cases for f in c.findall("failure")]
    assert failures == [
        ("Weather in Bangkok (unavailable)", "step 1: AgentGoalAccuracyWithoutReference",
         "score 0.000 < threshold 0.900",
         'input: What is the weather like in Bangkok right now?\n'
         'details: {"reason": "The agent did not provide the weather for Bangkok."}'),
        ("Weather then time in New York (multi-step)", "step 2: AgentGoalAccuracyWithoutReference",
         "score 0.650 < threshold 0.900",
         'input: What time is it in New York?\n'
         'details: {"reason": "The answer gives the time but not the timezone | asked for."}'),
        ("Weather then time in New York (multi-step)", "step 2: ToolCallAccuracy", "score 0.500 < threshold 0.700",
         "input: What time is it in New York?\ndetails: called get_weather before get_current_time")]


def test_junit_reports_errored_metrics_as_errors() -> None:
    root = ET.fromstring(run_cli("results", fixture("errored.json"), "-o", "junit").stdout)
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("5", "0", "3")
    errors = [(c.get("name"), e.get("type"), e.get("message"))
              for c in root.iter("testcase") for e in c.findall("error")]
    assert errors == [
        ("step 1: Faithfulness", "errored", "no evaluation: the metric raised an error in the evaluate phase"),
        ("step 1: AgentGoalAccuracyWithoutReference", "errored",
         "no evaluation: the metric raised an error in the evaluate phase"),
        ("step 1: ToolCallAccuracy", "errored", "no evaluation: the metric raised an error in the evaluate phase")]


@pytest.mark.parametrize(("name", "args", "code", "stderr"), [
    ("passing.json", (), 0, ""),
    ("failing.json", (), 1, "gate failed: tests/results/fixtures/failing.json: 3 of 7 checks failed\n"),
    ("failing.json", ("--no-gate",), 0,
     "gate not enforced (--no-gate), would fail: tests/results/fixtures/failing.json: 3 of 7 checks failed\n"),
    ("failing.json", ("--min-pass-rate", "0.5"), 0, ""),
    ("failing.json", ("--min-pass-rate", "0.6"), 1,
     "gate failed: tests/results/fixtures/failing.json: pass rate 57.1% (4/7) is below 60.0%\n"),
    ("errored.json", (), 1, "gate failed: tests/results/fixtures/errored.json: 3 of 5 checks errored\n"),
    ("errored.json", ("--ignore-errored",), 0, ""),
    ("nan_score.json", (), 1, "gate failed: tests/results/fixtures/nan_score.json: 2 of 3 checks errored\n"),
    ("multi_turn.json", (), 1, "gate failed: tests/results/fixtures/multi_turn.json: 1 of 4 checks failed\n"),
    ("missing_thresholds.json", (), 1,
     "gate failed: tests/results/fixtures/missing_thresholds.json: 1 of 2 checks failed\n"),
    ("no_default_threshold.json", (), 1,
     "gate failed: tests/results/fixtures/no_default_threshold.json: 1 of 3 checks failed\n"),
    ("empty.json", (), 1,
     "warning: tests/results/fixtures/empty.json: the run has no scenarios: nothing was evaluated\n"
     "gate failed: tests/results/fixtures/empty.json: nothing was evaluated (0 scenarios, 0 checks)\n"),
    ("malformed_syntax.json", (), 2,
     "error: tests/results/fixtures/malformed_syntax.json:7:7: invalid JSON: Expecting ',' delimiter\n"),
    ("malformed_fields.json", (), 2,
     "error: tests/results/fixtures/malformed_fields.json: scenarios[0].steps[1].input: required field is missing\n"),
    ("does-not-exist.json", (), 2, "error: tests/results/fixtures/does-not-exist.json: no such file or directory\n"),
])
def test_exit_codes_and_stderr(name: str, args: tuple[str, ...], code: int, stderr: str) -> None:
    result = run_cli("results", fixture(name), *args)
    assert (result.exit_code, result.stderr) == (code, stderr)
    if code == 2:
        assert result.stdout == ""


@pytest.mark.parametrize("fmt", ["table", "json", "csv", "markdown", "junit"])
def test_no_traceback_for_bad_input_in_a_real_process(fmt: str) -> None:
    proc = run_process("results", fixture("malformed_fields.json"), "-o", fmt)
    assert proc.returncode == 2
    assert proc.stdout == b""
    assert proc.stderr.decode() == (
        "error: tests/results/fixtures/malformed_fields.json: scenarios[0].steps[1].input: required field is missing\n")


def test_real_process_exit_codes_match_the_gate() -> None:
    assert run_process("results", fixture("passing.json")).returncode == 0
    assert run_process("results", fixture("failing.json")).returncode == 1
    assert run_process("results", fixture("failing.json"), "--no-gate").returncode == 0


def test_stdin_is_read_with_dash() -> None:
    data = (FIXTURES / "passing.json").read_text()
    result = run_cli("results", "-", "-o", "json", input=data)
    assert result.exit_code == 0
    assert json.loads(result.stdout)["runs"][0]["source"] == "stdin"
    bad = run_cli("results", "-", input="{")
    assert (bad.exit_code, bad.stderr) == (2, "error: stdin:1:2: invalid JSON: Expecting property name enclosed in "
                                              "double quotes\n")


def test_output_file_is_written_and_stdout_stays_empty(tmp_path: Path) -> None:
    target = tmp_path / "report.md"
    result = run_cli("results", FAILING, "-o", "markdown", "--output-file", str(target))
    assert result.stdout == ""
    assert target.read_text() == FAILING_MARKDOWN
    assert result.exit_code == 1


def _downloaded(tmp_path: Path, executions: dict[str, str]) -> Path:
    """Lay out executions as ``testkube download artifacts ID --download-dir DIR/ID`` does."""
    root = tmp_path / "artifacts"
    for execution, name in executions.items():
        target = root / execution / "data" / "experiments" / "evaluated_experiment.json"
        target.parent.mkdir(parents=True)
        shutil.copy(FIXTURES / name, target)
    (root / "69a1f0c2" / "data" / "results").mkdir(parents=True)
    (root / "69a1f0c2" / "data" / "results" / "evaluation_report.html").write_text("<html></html>")
    return root


def test_directory_of_executions_yields_one_run_per_execution(tmp_path: Path) -> None:
    root = _downloaded(tmp_path, {"69a1f0c2": "passing.json", "69a1f0c1": "failing.json"})
    result = run_cli("results", str(root), "-o", "json")
    doc = json.loads(result.stdout)
    assert [(Path(r["source"]).relative_to(root).as_posix(), r["summary"]["passed"]) for r in doc["runs"]] == [
        ("69a1f0c1/data/experiments/evaluated_experiment.json", 4),
        ("69a1f0c2/data/experiments/evaluated_experiment.json", 4)]
    assert result.exit_code == 1
    csv_rows = list(csv.DictReader(io.StringIO(run_cli("results", str(root), "-o", "csv").stdout)))
    assert len(csv_rows) == 11
    junit = ET.fromstring(run_cli("results", str(root), "-o", "junit").stdout)
    assert (junit.get("tests"), junit.get("failures")) == ("11", "3")
    assert junit.find("testsuite").get("name").endswith("69a1f0c1/data/experiments/evaluated_experiment.json: "
                                                        "Weather in New York")


def test_directory_without_results_says_what_it_expected(tmp_path: Path) -> None:
    result = run_cli("results", str(tmp_path))
    assert result.exit_code == 2
    assert result.stderr == (f"error: {tmp_path}: no evaluated_experiment.json below this directory (expected one "
                             f"per execution, as `testkube download artifacts ID --download-dir {tmp_path}/ID` "
                             "writes it)\n")


def test_tar_archive_of_artifacts_is_read_in_memory(tmp_path: Path) -> None:
    archive = tmp_path / "artifacts.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(FIXTURES / "failing.json", arcname="data/experiments/evaluated_experiment.json")
    result = run_cli("results", str(archive), "-o", "json")
    run = json.loads(result.stdout)["runs"][0]
    assert run["source"] == f"{archive}!data/experiments/evaluated_experiment.json"
    assert run["summary"]["failed"] == 3
    assert not (tmp_path / "data").exists()


def test_several_sources_are_reported_in_argument_order() -> None:
    result = run_cli("results", fixture("passing.json"), FAILING, "-o", "json")
    doc = json.loads(result.stdout)
    assert [r["source"] for r in doc["runs"]] == [fixture("passing.json"), FAILING]
    assert doc["gate"]["reasons"] == ["tests/results/fixtures/failing.json: 3 of 7 checks failed"]
    assert result.exit_code == 1


def test_usage_errors_exit_2() -> None:
    result = run_cli("results")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: no input: give result files or directories, - for stdin, or --execution")
    assert run_cli("results", FAILING, "-o", "yaml").exit_code == 2
    assert run_cli("results", FAILING, "--min-pass-rate", "1.5").exit_code == 2


def test_commands_are_listed_in_the_help() -> None:
    out = run_cli("--help").stdout
    assert "  compare     Compare two evaluation runs of the same dataset." in out
    assert "  results     Summarise, gate and export evaluation results." in out

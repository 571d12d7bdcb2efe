"""Issue 33 item 7, ``import``'s frictions: the missing gateway said when writing, a destination in a missing
directory is a usage error (exit 2, never 1, which means an invalid Experiment), and ADK's default criteria are
named as such (the real agent-starter-pack suite never names RougeScore or response_match_score)."""

from __future__ import annotations

from pathlib import Path

from importer_helpers import cli, process, run

REAL = Path(__file__).resolve().parent / "real"
ADK = REAL / "adk-python" / "tests" / "integration" / "fixture" / "trip_planner_agent"
STARTER_EVALSET = REAL / "agent-starter-pack" / "agent_starter_pack" / "agents" / "adk" / "tests" / "eval" / \
    "evalsets" / "basic.evalset.json"
BASE = ("import", "--from", "adk", "--name", "trip", "--agent", "a")


def test_on_stdout_without_gateway_the_last_line_is_the_notice() -> None:
    result = cli(*BASE, str(ADK))
    assert result.exit_code == 0, result.stderr
    last = result.stderr.splitlines()[-1]
    assert last.startswith("notice: no --gateway: the Experiment has no spec.aiGatewayRef, so validate --strict")
    assert "--gateway NAME" in last and "testbench-defaults.yaml" in last
    assert "notice:" not in cli(*BASE, "--gateway", "g", str(ADK)).stderr


def test_into_a_file_the_finding_says_it_once(tmp_path: Path) -> None:
    out = tmp_path / "trip.yaml"
    result = cli(*BASE, "--output-file", str(out), str(ADK))
    assert result.exit_code == 0 and "notice:" not in result.stderr
    assert result.stderr.count("semantic/no-gateway") == 1


def test_dataset_out_into_a_missing_directory_is_a_usage_error(tmp_path: Path) -> None:
    target = tmp_path / "missing" / "trip.json"
    proc = process(*BASE, "--dataset-out", str(target), "--s3-bucket", "evals", str(ADK))
    assert proc.returncode == 2 and proc.stdout == b""
    assert proc.stderr.decode() == (f"error: --dataset-out {target}: the directory {target.parent} does not exist "
                                    "(create it first)\n")
    out = tmp_path / "missing" / "trip.yaml"
    proc = process(*BASE, "--output-file", str(out), str(ADK))
    assert proc.returncode == 2
    assert proc.stderr.decode().splitlines() == [
        f"error: --output-file {out}: the directory {out.parent} does not exist (create it first)"]
    assert not (tmp_path / "missing").exists()


def test_adk_defaults_are_named_as_defaults_in_a_file_that_names_no_criterion() -> None:
    assert "Rouge" not in STARTER_EVALSET.read_text() and "response_match" not in STARTER_EVALSET.read_text()
    result = run("adk", str(STARTER_EVALSET))
    rouge = [w.message for w in result.warnings if "RougeScore" in w.message]
    assert rouge == ["ADK's default criterion response_match_score: 2 invocations have no final_response; "
                     "RougeScore is not added (no test_config.json beside the file; name one with --config)"]


def test_a_criterion_the_config_names_keeps_its_own_name() -> None:
    result = run("adk", str(ADK / "trip_inquiry.test.json"))  # its test_config.json names response_match_score
    assert any(w.message.startswith("RougeScore (from response_match_score) is not carried over")
               for w in result.warnings)
    assert not any("ADK's default" in w.message for w in result.warnings)

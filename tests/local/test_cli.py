"""``kubectl testbench run --local``: flags, usage errors and the unreachable-endpoint exit, which all happen before
any phase runs (the runs themselves: tests/phases/test_run_local.py). And the import set: the normal CLI never
loads run --local's code."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, ROOT, run_cli

WEATHER = str(EXAMPLES / "experiments" / "weather-inline.yaml")


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


@pytest.mark.parametrize(("args", "message"), [
    (["--local", WEATHER, "--wait"], "error: --wait is for runs in the cluster; it cannot be combined with --local"),
    (["--local", WEATHER, "--tag", "a=b"], "error: --tag is for runs in the cluster"),
    (["--local", WEATHER, "--context", "kind"], "error: --context is for runs in the cluster"),
    (["--local", WEATHER, "-o", "name"], "error: -o name: with --local the summary is one of table, json"),
    (["--local", WEATHER, "--image", "x"], "error: --image is used by --runtime container"),
    (["weather-eval", "--agent-url", "http://127.0.0.1:1"], "error: --agent-url is used with --local"),
    (["weather-eval", "--env", "A=1"], "error: --env is used with --local"),
    (["weather-eval", "-o", "markdown"], "error: -o markdown is a --local summary format"),
    (["--local", WEATHER, "--env", "NOEQUALS"], "'NOEQUALS': use NAME=VALUE"),
])
def test_flags_of_the_other_mode_are_usage_errors(args: list[str], message: str) -> None:
    result = run_cli("run", *args)
    assert result.exit_code == 2 and message in result.output, result.output


def test_without_agent_url_exit_2_with_the_port_forward_and_nothing_written(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = run_cli("run", "--local", WEATHER, "--output-dir", str(out))
    assert result.exit_code == 2
    assert result.output.strip().splitlines()[-1] == (
        "error: --agent-url is required: the Experiment's agent http://weather-agent.sample-agents:8000 is a "
        "Service in the cluster; kubectl port-forward -n sample-agents svc/weather-agent 8000:8000, then "
        "--agent-url http://127.0.0.1:8000")
    assert not out.exists()


def test_an_invalid_experiment_is_refused_with_its_findings(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(Path(WEATHER).read_text().replace("      llmAsAJudgeModel: gemini-2.5-flash-lite\n", ""))
    result = run_cli("run", "--local", str(bad), "--agent-url", "http://127.0.0.1:1")
    assert result.exit_code == 2
    assert "error[semantic/no-judge-model] spec.dataset.inline" in result.output
    assert result.output.strip().splitlines()[-1] == f"error: {bad}: nothing run: 1 file, 1 experiment: 0 valid, " \
        "1 invalid, 0 warnings"


def test_an_unreachable_agent_or_judge_is_exit_3_before_anything_runs(tmp_path: Path) -> None:
    agent, judge = closed_port_url(), closed_port_url() + "/v1"
    result = run_cli("run", "--local", WEATHER, "--agent-url", agent, "--judge-url", judge, "--output-dir",
                     str(tmp_path / "out"), "--phase-python", "/nonexistent/python3.13")
    assert result.exit_code == 3, result.output
    assert f"error: the agent at {agent} cannot be reached:" in result.output
    assert f"error: the judge at {judge} cannot be reached:" in result.output
    assert "phase environment" not in result.output and not (tmp_path / "out").exists()


def test_the_normal_cli_start_up_never_imports_run_local() -> None:
    """cli.main, validate, render, run --help and a cluster run's client dry run load nothing of run --local;
    run --local loads it."""
    code = f"""
import sys
import kubectl_testbench.cli.main as m
OURS = ('kubectl_testbench.local', 'kubectl_testbench.cli.run_local', 'kubectl_testbench.phases')
def loaded():
    return sorted(n for n in sys.modules if n.startswith(OURS))
for argv in (['validate', {WEATHER!r}], ['render', {WEATHER!r}], ['run', '--help'],
             ['run', 'weather-eval', '-n', 'x', '--dry-run=client']):
    try:
        m.cli.main(args=argv, prog_name='kubectl testbench', standalone_mode=False)
    except SystemExit:
        pass
    assert loaded() == [], (argv, loaded())
try:
    m.cli.main(args=['run', '--local', {WEATHER!r}], prog_name='kubectl testbench', standalone_mode=False)
except SystemExit:
    pass
print(loaded())
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    modules = ["execute", "plan", "preflight", "progress", "session", "steps", "values"]
    assert done.stdout.strip().splitlines()[-1] == str([
        "kubectl_testbench.cli.run_local", "kubectl_testbench.local",
        *(f"kubectl_testbench.local.{m}" for m in modules)])

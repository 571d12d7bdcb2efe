"""``kubectl testbench run --local`` for real: the CLI as a process, the cached phase environment, the stand-ins.

The README's example runs as written (only the stand-ins' ports differ) and exits 0 with every metric scored;
``results`` and ``compare`` read what it writes; a failing evaluation exits 1; ``--runtime container`` runs the
same steps through the ``docker`` command line it builds, executed here by a stand-in ``docker`` (no daemon can
run on this machine) that maps the mount, the working dir and the env names onto the phase environment's Python.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kubectl_testbench.phases.env import Env
from tests.conftest import EXAMPLES, ROOT, phase_cache_dir, run_process
from tests.phases.a2a_agent import A2AAgentStandIn
from tests.phases.judge import JudgeStandIn
from tests.phases.otlp import OtlpStandIn

EVALUATED = Path("data/experiments/evaluated_experiment.json")
REPORT = Path("data/results/evaluation_report.html")


def readme_command() -> list[str]:
    """The ``kubectl testbench run --local …`` command of the README's run --local section, as argv."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("## run --local", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    joined = block.replace("\\\n", " ")
    [line] = [line for line in joined.splitlines() if line.startswith("kubectl testbench run --local")]
    return shlex.split(line.split("#", 1)[0])[2:]


def cli_env(**extra: str) -> dict[str, str]:
    """The CLI finds the phase environment the session built; no OPENAI_API_KEY of the caller leaks in."""
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    env["KUBECTL_TESTBENCH_CACHE_DIR"] = str(phase_cache_dir())
    env.update(extra)
    return env


def run_local(args: list[str], cwd: Path, **env: str) -> tuple[int, str, str]:
    done = run_process(*args, cwd=cwd, env=cli_env(**env), timeout=600)
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def scores(output_dir: Path) -> list[tuple[str, Any]]:
    data = json.loads((output_dir / EVALUATED).read_text(encoding="utf-8"))
    return [(e["metric"]["metric_name"], e["result"].get("score")) for s in data["scenarios"] for step in s["steps"]
            for e in step.get("evaluations") or []]


def swap_ports(argv: list[str], agent: A2AAgentStandIn, judge: JudgeStandIn) -> list[str]:
    """The README's 127.0.0.1 URLs with the stand-ins' ports (the hosts and paths stay as written)."""
    out = []
    for arg in argv:
        if arg.startswith("http://127.0.0.1:8000"):
            arg = agent.url + arg[len("http://127.0.0.1:8000"):]
        elif arg.startswith("http://127.0.0.1:4000"):
            arg = judge.url + arg[len("http://127.0.0.1:4000"):]
        out.append(arg)
    return out


def test_the_readme_example_exits_0_with_every_metric_scored_and_results_reads_it(
        phase_env: Env, agent: A2AAgentStandIn, judge: JudgeStandIn, tmp_path: Path) -> None:
    argv = readme_command()
    assert argv[:3] == ["run", "--local", "examples/experiments/weather-inline.yaml"]
    argv[2] = str(ROOT / argv[2])
    code, stdout, stderr = run_local(swap_ports(argv, agent, judge), tmp_path)
    assert code == 0, stderr
    out = tmp_path / "testbench-run"
    asked = ["AgentGoalAccuracyWithoutReference", "ToolCallAccuracy", "TopicAdherence"]
    assert [name for name, _ in scores(out)] == asked
    assert all(isinstance(score, float) for _, score in scores(out))
    assert "Checks: 3 passed, 0 failed, 0 errored of 3 (100.0% pass)" in stdout
    assert "Weather in New York" in (out / REPORT).read_text(encoding="utf-8")
    assert set(judge.authorizations) == {"Bearer testbench"}
    assert agent.executor.inputs == ["What is the weather like in New York right now?"]
    for line in ("[1/3] run (run)", "  scenario 1/1: Weather in New York",
                 "    step 1/1: What is the weather like in New York right now?", "[2/3] evaluate-results (evaluate)",
                 "    ToolCallAccuracy: 1.000 (threshold 0.900) pass", f"HTML report: {out / REPORT}"):
        assert line in stderr.splitlines(), (line, stderr)
    assert sorted(p.name for p in (out / "logs").iterdir()) == ["01-run.log", "02-evaluate-results.log",
                                                                "03-visualize-metrics.log"], "no endpoint: no publish"

    results = run_process("results", str(out), "--min-pass-rate", "1", cwd=tmp_path)
    assert results.returncode == 0 and b"3 passed, 0 failed, 0 errored" in results.stdout
    as_json = json.loads(run_process("results", str(out), "-o", "json", cwd=tmp_path).stdout)
    assert as_json["gate"]["passed"] is True


EXACT = """apiVersion: testbench.agentic-layer.ai/v1alpha1
kind: Experiment
metadata: {name: exact, namespace: team}
spec:
  agentRef: {name: agent}
  dataset:
    inline:
      llmAsAJudgeModel: gpt-4o-mini
      scenarios:
        - name: Exact answer
          steps:
            - input: Say hello
              reference: {response: hello}
              metrics:
                - {metricName: ExactMatch, threshold: THRESHOLD}
"""
"""No gateway: the judge comes from --judge-url alone. ExactMatch scores 0 against the stand-in's answer."""


def test_a_failing_evaluation_exits_1_and_compare_finds_the_newly_failing_check(
        phase_env: Env, agent: A2AAgentStandIn, judge: JudgeStandIn, otlp: OtlpStandIn, tmp_path: Path) -> None:
    common = ["--agent-url", agent.url, "--judge-url", judge.base_url]
    lenient, strict = tmp_path / "lenient.yaml", tmp_path / "strict.yaml"
    lenient.write_text(EXACT.replace("THRESHOLD", "0"))
    strict.write_text(EXACT.replace("THRESHOLD", "1"))
    code, stdout, stderr = run_local(["run", "--local", str(lenient), *common, "--output-dir", "base",
                                      "--otlp-endpoint", otlp.url, "-o", "json"], tmp_path, OPENAI_API_KEY="sk-mine")
    assert code == 0, stderr
    assert json.loads(stdout)["gate"]["passed"] is True
    assert [(p.metric, p.value, p.attributes["result"]) for p in otlp.gauges] == [
        ("testbench_evaluation_metric", 0.0, "pass")]
    code, stdout, stderr = run_local(["run", "--local", str(strict), *common, "--output-dir", "candidate"],
                                     tmp_path)
    assert code == 1, stderr
    assert "Checks: 0 passed, 1 failed, 0 errored of 1" in stdout
    assert scores(tmp_path / "candidate") == [("ExactMatch", 0.0)]
    assert judge.authorizations == [], "ExactMatch never asks the judge"
    compared = run_process("compare", str(tmp_path / "base"), str(tmp_path / "candidate"), cwd=tmp_path)
    assert compared.returncode == 1 and b"newly failing" in compared.stdout.lower()
    assert run_process("results", str(tmp_path / "candidate"), cwd=tmp_path).returncode == 1


STAND_IN_DOCKER = r'''#!INTERPRETER
"""Stand-in for docker: executes `docker run` as the phase container would, with the phase environment's Python.
Only the options run --local writes are understood; anything else exits 125 like docker's usage errors."""
import json, os, subprocess, sys
args = sys.argv[1:]
with open(os.environ["DOCKER_CALLS"], "a") as log:
    log.write(json.dumps(args) + "\n")
if args[:4] != ["run", "--rm", "--pull=missing", "--volume"]:
    sys.exit(125)
host, _, target = args[4].rpartition(":")
rest = args[5:]
if target != "/data" or rest[0] != "--workdir" or rest[2] != "--network=host":
    sys.exit(125)
workdir, rest = rest[1], rest[3:]
env = {"PATH": os.environ["PATH"], "HOME": os.environ["HOME"]}
while rest and rest[0] == "--env":
    env[rest[1]] = os.environ[rest[1]]
    rest = rest[2:]
image, argv = rest[0], rest[1:]
root = os.path.dirname(host)                           # the mount's parent plays the container's /
cwd = os.path.join(root, workdir.lstrip("/"))
sys.exit(subprocess.run([os.environ["PHASE_PYTHON"], *argv], cwd=cwd, env=env).returncode)
'''


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the command line under test is the Linux one")
def test_runtime_container_runs_the_steps_through_the_docker_command_line_it_builds(
        phase_env: Env, agent: A2AAgentStandIn, judge: JudgeStandIn, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    docker = bin_dir / "docker"
    docker.write_text(STAND_IN_DOCKER.replace("INTERPRETER", sys.executable, 1))
    docker.chmod(docker.stat().st_mode | stat.S_IEXEC)
    calls = tmp_path / "calls.txt"
    code, stdout, stderr = run_local(
        ["run", "--local", str(EXAMPLES / "experiments" / "weather-inline.yaml"), "--runtime", "container",
         "--image", "ghcr.io/agentic-layer/testbench/testworkflows:0.10.0", "--agent-url", agent.url,
         "--judge-url", judge.base_url], tmp_path,
        PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}", DOCKER_CALLS=str(calls), PHASE_PYTHON=str(phase_env.python),
        OPENAI_API_KEY="sk-container")
    assert code == 0, stderr
    logged = [json.loads(line) for line in calls.read_text().splitlines()]
    assert [call[call.index("ghcr.io/agentic-layer/testbench/testworkflows:0.10.0") + 2] for call in logged] == [
        "testbench.run", "testbench.evaluate", "testbench.visualize"]
    assert all("sk-container" not in " ".join(call) for call in logged), "secrets go by name, not in argv"
    assert all(isinstance(score, float) for _, score in scores(tmp_path / "testbench-run"))
    assert set(judge.authorizations) == {"Bearer sk-container"}
    assert re.search(r"Checks: 3 passed", stdout)


def test_the_benchmark_compares_run_local_with_the_standalone_runner(phase_env: Env) -> None:
    """benchmarks/run.py's run --local section runs (one repetition; the figures live in benchmarks/results.md)."""
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "run.py"), "--only-run-local", "--quick"],
                          capture_output=True, text=True, env=cli_env(), timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = [line for line in proc.stdout.splitlines() if line.startswith("| ")]
    assert [row.split(" | ")[0] for row in rows[1:]] == [
        "| floor: phase python -c 'import testbench.evaluate'", "| peer: testworkflow config.yaml (one process)",
        "| kubectl testbench run --local (warm environment)"]
    assert all(row.split(" | ")[2] == "0" for row in rows[1:]), "every run exits 0"
    assert re.search(r"Target: run --local within 1\.2× of the standalone runner: \d+\.\d\d×", proc.stdout)

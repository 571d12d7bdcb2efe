"""Shell completion: kubectl's plugin protocol (kubectl_complete-testbench) and click's own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kubectl_testbench.cli.kubectl_complete import completions
from tests.cluster.conftest import FIXTURES, cli
from tests.cluster.fakeapi import FakeApiServer
from tests.conftest import ROOT, kubectl

pytestmark = pytest.mark.fake_api(
    "completion's requests and an unreachable cluster, answered at once and counted; kubectl's plugin protocol "
    "itself runs for real (kubectl 1.32)")


def values(lines: list[str]) -> list[str]:
    return [line.split("\t", 1)[0] for line in lines[:-1]]


def test_subcommands_then_no_file_completion() -> None:
    out = completions([""])
    assert out[-1] == ":4"
    assert {"apply", "diff", "prune", "run", "status", "validate", "render"} <= set(values(out))
    assert values(completions(["st"])) == ["status"]
    assert "apply\tServer-side apply Experiments as Testkube objects." in out


def test_flags_of_a_subcommand() -> None:
    out = completions(["apply", "--dr"])
    assert values(out) == ["--dry-run"] and out[-1] == ":4"
    assert {"--kubeconfig", "--context", "--namespace", "--request-timeout", "--prune"} <= set(
        values(completions(["apply", "--"])))


def test_choice_values() -> None:
    assert values(completions(["apply", "--dry-run", ""])) == ["none", "client", "server"]
    assert values(completions(["status", "-o", "j"])) == ["json"]


def test_path_arguments_complete_manifest_files() -> None:
    assert completions(["apply", ""]) == ["yaml", "yml", "json", ":8"]
    assert completions(["validate", "exp"]) == ["yaml", "yml", "json", ":8"]


def test_file_flags_use_the_shells_file_completion() -> None:
    assert completions(["status", "--kubeconfig", ""]) == [":0"]
    assert completions(["render", "x.yaml", "--output-dir", ""]) == [":16"]


def test_contexts_come_from_the_kubeconfig(kubeconfig: Path) -> None:
    assert values(completions(["status", "--context", ""])) == ["other", "stand-in"]
    assert values(completions(["status", "--kubeconfig", str(kubeconfig), "--context", "st"])) == ["stand-in"]


def test_experiment_names_come_from_the_cluster(api: FakeApiServer, kubeconfig: Path) -> None:
    assert cli("apply", str(FIXTURES)).exit_code == 0
    api.put({"apiVersion": "testbench.agentic-layer.ai/v1alpha1", "kind": "Experiment",
             "metadata": {"name": "operator-made", "namespace": "team-a"}, "spec": {}})
    assert completions(["run", ""]) == ["news", "operator-made", "weather", ":4"]
    assert completions(["status", "w"]) == ["weather", ":4"]
    assert completions(["run", "-n", "team-b", ""]) == [":4"]


def test_namespaces_come_from_the_cluster(api: FakeApiServer, kubeconfig: Path) -> None:
    assert values(completions(["status", "-n", "te"])) == ["team-a", "testkube"]


def test_unreachable_cluster_completes_nothing_silently(api: FakeApiServer, isolated: Path,
                                                        closed_port: int) -> None:
    config = api.kubeconfig(isolated / "kc", server=f"http://127.0.0.1:{closed_port}")
    assert completions(["run", "--kubeconfig", str(config), ""]) == [":4"]
    assert completions(["run", ""]) == [":4"], "no kubeconfig at all"


def test_broken_command_line_never_raises() -> None:
    assert completions(["no-such-verb", "--x", ""])[-1].startswith(":")
    assert completions(["apply", "--request-timeout", "soon", ""])[-1].startswith(":")


def test_console_script_is_declared_and_speaks_the_protocol(api: FakeApiServer, kubeconfig: Path) -> None:
    text = (ROOT / "pyproject.toml").read_text()
    assert 'kubectl_complete-testbench = "kubectl_testbench.cli.kubectl_complete:main"' in text
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "kubectl_testbench.cli.kubectl_complete", "status", "--context", ""],
                          capture_output=True, text=True, env=env, check=False, timeout=60)
    assert proc.returncode == 0
    assert proc.stdout == "other\nstand-in\n:4\n"
    assert proc.stderr == ""


def test_clicks_own_completion_script_and_answers() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "_KUBECTL_TESTBENCH_COMPLETE": "bash_source"}
    proc = subprocess.run([sys.executable, "-m", "kubectl_testbench"], capture_output=True, text=True, env=env,
                          check=False, timeout=60)
    assert proc.returncode == 0
    assert "complete -o nosort -F _kubectl_testbench_completion kubectl-testbench" in proc.stdout
    env.update({"_KUBECTL_TESTBENCH_COMPLETE": "bash_complete", "COMP_WORDS": "kubectl-testbench sta",
                "COMP_CWORD": "1"})
    proc = subprocess.run([sys.executable, "-m", "kubectl_testbench"], capture_output=True, text=True, env=env,
                          check=False, timeout=60)
    assert proc.stdout.splitlines() == ["plain,status"]


def test_real_kubectl_finds_the_plugin_and_its_completion(api: FakeApiServer, kubeconfig: Path,
                                                          tmp_path: Path) -> None:
    """kubectl ≥ 1.26 runs kubectl_complete-testbench from PATH and passes its candidates through."""
    binary = kubectl()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, module in (("kubectl-testbench", "kubectl_testbench"),
                         ("kubectl_complete-testbench", "kubectl_testbench.cli.kubectl_complete")):
        script = bin_dir / name
        script.write_text(f'#!/bin/sh\nPYTHONPATH={ROOT} exec {sys.executable} -m {module} "$@"\n')
        script.chmod(0o755)
    assert cli("apply", str(FIXTURES)).exit_code == 0
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}

    def kubectl_run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([binary, *args], capture_output=True, text=True, env=env, check=False, timeout=60)

    proc = kubectl_run("__complete", "testbench", "run", "")
    assert proc.stdout.splitlines() == ["news", "weather", ":4"], proc.stderr
    proc = kubectl_run("__complete", "testbench", "apply", "")
    assert proc.stdout.splitlines() == ["yaml", "yml", "json", ":8"]
    proc = kubectl_run("testbench", "status", "-o", "json")
    assert proc.returncode == 0, proc.stderr
    assert {row["name"] for row in json.loads(proc.stdout)["items"]} == {"news", "weather"}

"""``kubectl testbench completion bash|zsh|fish`` prints a script that each real shell sources and then completes
with: subcommands from the command table, flags of a subcommand (run against this checkout's executable)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.integrations.helpers import console_script, env_with_path


def shell(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed here: its completion script is not exercised")
    return path


def run_in(shell_path: str, script: str, tmp_path: Path) -> list[str]:
    env = env_with_path(console_script(tmp_path / "bin"), HOME=str(tmp_path))
    proc = subprocess.run([shell_path, "-c", script], capture_output=True, text=True, env=env, timeout=60,
                          check=False, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "", proc.stderr
    return proc.stdout.splitlines()


def test_every_shell_gets_its_script_and_others_are_a_usage_error() -> None:
    assert "complete -o nosort -F _kubectl_testbench_completion kubectl-testbench" in \
        run_cli("completion", "bash").stdout
    assert run_cli("completion", "zsh").stdout.startswith("#compdef kubectl-testbench\n")
    assert "complete --no-files --command kubectl-testbench" in run_cli("completion", "fish").stdout
    wrong = run_cli("completion", "tcsh")
    assert wrong.exit_code == 2 and "'tcsh' is not one of 'bash', 'zsh', 'fish'" in wrong.output
    assert "completion" in run_cli("--help").output


def test_bash_sources_the_script_and_completes(tmp_path: Path) -> None:
    bash = shell("bash")
    lines = run_in(bash, """
        source <(kubectl-testbench completion bash)
        complete -p kubectl-testbench
        COMP_WORDS=(kubectl-testbench val); COMP_CWORD=1
        _kubectl_testbench_completion kubectl-testbench
        printf 'word:%s\\n' "${COMPREPLY[@]}"
        COMPREPLY=(); COMP_WORDS=(kubectl-testbench render --output-d); COMP_CWORD=2
        _kubectl_testbench_completion kubectl-testbench
        printf 'word:%s\\n' "${COMPREPLY[@]}"
    """, tmp_path)
    assert lines == ["complete -o nosort -F _kubectl_testbench_completion kubectl-testbench", "word:validate",
                     "word:--output-dir"]


def test_zsh_sources_the_script_registers_it_and_completes(tmp_path: Path) -> None:
    zsh = shell("zsh")
    lines = run_in(zsh, """
        autoload -Uz compinit && compinit -u -d "$HOME/.zcompdump"
        source <(kubectl-testbench completion zsh)
        print -r -- "registered:${_comps[kubectl-testbench]}"
        _describe() { print -rl -- "${(@P)3}" }
        compadd() { print -rl -- "${(@P)${@[-1]}}" }
        words=(kubectl-testbench val); CURRENT=2
        _kubectl_testbench_completion
    """, tmp_path)
    assert lines[0] == "registered:_kubectl_testbench_completion"
    assert lines[1:] == ["validate:Check Experiments as the API server would, and more."]


def test_fish_sources_the_script_and_completes(tmp_path: Path) -> None:
    fish = shell("fish")
    lines = run_in(fish, """
        kubectl-testbench completion fish | source
        complete -C 'kubectl-testbench val'
        complete -C 'kubectl-testbench render --output-d'
    """, tmp_path)
    assert [line.split("\t")[0] for line in lines] == ["validate", "--output-dir"]

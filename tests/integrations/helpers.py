"""Helpers for running the integrations the way their host tools do: real processes, real PATH lookups."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

CONSOLE_SCRIPT = "kubectl-testbench"


def console_script(directory: Path) -> Path:
    """A ``kubectl-testbench`` executable in ``directory`` that runs this checkout (as the installed script would).

    plugin.yaml, the pre-commit hooks and the KRM wrappers call ``kubectl-testbench`` by name; putting
    this directory first on PATH runs them exactly as written, against the code under test rather than
    whatever version may be installed.
    """
    directory.mkdir(parents=True, exist_ok=True)
    script = directory / CONSOLE_SCRIPT
    script.write_text(f'#!/bin/sh\nPYTHONPATH="{ROOT}${{PYTHONPATH:+:$PYTHONPATH}}" '
                      f'exec "{sys.executable}" -m kubectl_testbench "$@"\n')
    script.chmod(0o755)
    return directory


def env_with_path(bin_dir: Path, **extra: str) -> dict[str, str]:
    """The test process's environment with ``bin_dir`` first on PATH and no Argo CD variables leaking in."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ARGOCD_", "PARAM_", "GITHUB_", "KUSTOMIZE_"))}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env.update(extra)
    return env


HOSTILE_CPU_SECONDS = 5
HOSTILE_MEMORY = 512 * 1024 * 1024


def _hostile_limits() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (HOSTILE_MEMORY, HOSTILE_MEMORY))
    resource.setrlimit(resource.RLIMIT_CPU, (HOSTILE_CPU_SECONDS, HOSTILE_CPU_SECONDS + 1))


def run_bounded(*args: str, input: bytes = b"", cwd: Path | None = None,
                env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    """``python -m kubectl_testbench ARGS`` under the hostile-input budget (tests/hostile): 5 s of CPU and
    512 MiB of address space. A run over budget ends by SIGXCPU or a MemoryError, which no test accepts."""
    full_env = {**os.environ, **(env or {})}
    full_env["PYTHONPATH"] = str(ROOT) + os.pathsep + full_env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "kubectl_testbench", *args], input=input, cwd=cwd, env=full_env,
                          capture_output=True, timeout=120, preexec_fn=_hostile_limits, check=False)

"""Helpers for running the integrations the way their host tools do: real processes, real PATH lookups."""

from __future__ import annotations

import os
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

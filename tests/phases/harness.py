"""Run resolved steps with the real phase package, the way the phase container runs them.

The step type and the executor are run --local's own (:mod:`kubectl_testbench.local.steps` and ``.execute``):
a :class:`PhaseStep` is the argv after the image's ``uv run python3``, its env, working directory and mounted
files in container paths; :func:`run_phase` maps the container's ``/`` to a sandbox directory and runs the phase
environment's Python there with only the step's env, what the image sets, and :data:`SANDBOX_ENV`.
"""

from __future__ import annotations

import os
from pathlib import Path

from kubectl_testbench.local.execute import StepResult, host_path, run_step
from kubectl_testbench.local.steps import LocalStep
from kubectl_testbench.phases.env import Env

PhaseStep = LocalStep
PhaseResult = StepResult
SANDBOX_ENV = {"RAGAS_DO_NOT_TRACK": "true"}
"""Not in the image: ragas' usage analytics would send to the internet; the tests talk to 127.0.0.1 only."""

__all__ = ["SANDBOX_ENV", "PhaseResult", "PhaseStep", "host_path", "run_phase", "run_phases"]


def run_phase(env: Env, step: PhaseStep, root: Path, *, timeout: float = 300) -> PhaseResult:
    """Run ``step`` with the phase environment's Python in the sandbox ``root`` (the container's ``/``)."""
    home = root / ".home"
    home.mkdir(parents=True, exist_ok=True)
    base = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.fspath(home), **SANDBOX_ENV}
    return run_step(env.python, step, root, base_env=base, timeout=timeout)


def run_phases(env: Env, steps: list[PhaseStep], root: Path, *, timeout: float = 300) -> list[PhaseResult]:
    """Run the steps in order, as Testkube does, stopping after the first that fails."""
    results: list[PhaseResult] = []
    for step in steps:
        results.append(run_phase(env, step, root, timeout=timeout))
        if results[-1].returncode != 0:
            break
    return results

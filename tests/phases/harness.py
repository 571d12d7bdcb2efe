"""Run one step of a phase workflow with the real phase package, the way the phase container runs it.

A :class:`PhaseStep` is the generic shape of a resolved TestWorkflow step: the argv after the image's
``uv run python3`` (``["-m", "testbench.run", URL, NAME]`` or ``["-c", SCRIPT, URL]``), its env, its working
directory and the files mounted into it, all in container paths. :func:`run_phase` maps the container's ``/``
to a sandbox directory (every absolute path, the working dir included, lands under it), starts the phase
environment's Python there with only the step's env plus what the image sets, and returns what happened.
"""

from __future__ import annotations

import os
import posixpath
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from kubectl_testbench.phases.env import Env

IMAGE_ENV = {"PYTHONUNBUFFERED": "1", "PYTHONDONTWRITEBYTECODE": "1"}
"""What the phase image's Dockerfile sets for every phase."""
SANDBOX_ENV = {"RAGAS_DO_NOT_TRACK": "true"}
"""Not in the image: ragas' usage analytics would send to the internet; the tests talk to 127.0.0.1 only."""


@dataclass(frozen=True)
class PhaseStep:
    """One resolved step: what the container runs (argv after ``python3``), with which env, where, and files."""

    name: str
    argv: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict)
    working_dir: str = "/"
    files: Mapping[str, bytes] = field(default_factory=dict)
    """Container path (absolute, or relative to ``working_dir``) → content, placed before the step starts."""


@dataclass(frozen=True)
class PhaseResult:
    step: PhaseStep
    returncode: int
    stdout: str
    stderr: str
    seconds: float

    def explain(self) -> str:
        """For assertion messages: the step, its exit code and the end of its log."""
        tail = "\n".join(self.stderr.strip().splitlines()[-25:])
        return f"{self.step.name} ({' '.join(self.step.argv[:3])} ...) exited {self.returncode}:\n{tail}"


def host_path(root: Path, container_path: str, working_dir: str = "/") -> Path:
    """Where a container path lives in the sandbox: ``/data/x`` → ``root/data/x``; ``..`` cannot escape root."""
    absolute = posixpath.normpath(posixpath.join("/", working_dir, container_path))
    return root.joinpath(*[part for part in absolute.split("/") if part])


def run_phase(env: Env, step: PhaseStep, root: Path, *, timeout: float = 300) -> PhaseResult:
    """Run ``step`` with the phase environment's Python in the sandbox ``root`` (the container's ``/``)."""
    for path, content in step.files.items():
        target = host_path(root, path, step.working_dir)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
    cwd = host_path(root, step.working_dir)
    cwd.mkdir(parents=True, exist_ok=True)
    home = root / ".home"
    home.mkdir(exist_ok=True)
    process_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.fspath(home),
                   **IMAGE_ENV, **SANDBOX_ENV, **step.env}
    start = time.monotonic()
    done = subprocess.run([os.fspath(env.python), *step.argv], cwd=cwd, env=process_env, capture_output=True,
                          text=True, timeout=timeout, check=False)
    return PhaseResult(step, done.returncode, done.stdout, done.stderr, time.monotonic() - start)


def run_phases(env: Env, steps: list[PhaseStep], root: Path, *, timeout: float = 300) -> list[PhaseResult]:
    """Run the steps in order, as Testkube does, stopping after the first that fails."""
    results: list[PhaseResult] = []
    for step in steps:
        results.append(run_phase(env, step, root, timeout=timeout))
        if results[-1].returncode != 0:
            break
    return results

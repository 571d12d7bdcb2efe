"""Where the phase image's own package (agentic-layer-testbench 0.10.0, Python >= 3.12) is installed here.

Tests that run the real phase code ask for :func:`phase_python` and skip cleanly when no such interpreter
exists. ``TESTBENCH_PHASE_PYTHON`` names one; otherwise cached virtualenvs under ``../cache/*/venv`` next to the
checkout are tried, and then the phase environment the phase tests use (kubectl_testbench.phases.env: the image's
locked versions in a cached virtualenv, built on first use with any Python >= 3.12 found here), so CI runs these
tests too.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest

from kubectl_testbench.phases.env import Env, PhaseEnvError
from tests.conftest import ROOT


@cache
def _find() -> str | None:
    candidates = [os.environ.get("TESTBENCH_PHASE_PYTHON", "")]
    candidates += [str(p) for p in sorted((ROOT.parent / "cache").glob("*/venv/bin/python"))]
    for candidate in candidates:
        if not candidate or not Path(candidate).exists():
            continue
        probe = subprocess.run([candidate, "-c", "import testbench.setup, testbench.schema.models"],
                               capture_output=True, timeout=120, check=False)
        if probe.returncode == 0:
            return candidate
    return _phase_env()


def cached_phase_env(progress: Callable[[str], None] | None = None) -> Env:
    """agentic-layer-testbench in the cached virtualenv of kubectl_testbench.phases.env, built on first use with a
    Python >= 3.12 found here (``KUBECTL_TESTBENCH_PHASE_PYTHON`` names one); PhaseEnvError where there is none."""
    from kubectl_testbench.phases import env as phase_env
    from tests.conftest import phase_cache_dir

    python, version = phase_env.find_python(os.environ.get("KUBECTL_TESTBENCH_PHASE_PYTHON") or None)
    return phase_env.ensure_env(phase_env.phase_spec(), python, version, cache_dir=phase_cache_dir(),
                                progress=progress)


def _phase_env() -> str | None:
    try:
        return str(cached_phase_env().python)
    except PhaseEnvError:
        return None


def phase_python() -> str:
    """An interpreter that imports ``testbench`` (the phase package), or skip."""
    found = _find()
    if found is None:
        pytest.skip("the phase package agentic-layer-testbench cannot be installed here: no Python >= 3.12 (set "
                    "TESTBENCH_PHASE_PYTHON to a Python >= 3.12 with agentic-layer-testbench==0.10.0)")
    return found


def clean_env(**extra: str) -> dict[str, str]:
    """The environment for a phase process: no proxies (local stand-ins), no inherited OpenAI/MinIO settings."""
    env = {k: v for k, v in os.environ.items()
           if "proxy" not in k.lower() and not k.startswith(("OPENAI_", "MINIO_", "OTEL_", "PYTHON"))}
    env["NO_PROXY"] = "*"
    env.update(extra)
    return env

"""``_generated/metrics.json``: the metrics the phase package can score, asked of the package itself.

The phase environment is found (or built: minutes, and the network) and ``introspect_metrics.py`` runs
inside it; hence ``python -m kubectl_testbench.generate`` regenerates this file only when asked by name
(``--write metrics``). validate, explain, init and the importers read the committed file
(:mod:`kubectl_testbench.validate.metrics`), so they need no phase environment.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import resources
from typing import Any

from kubectl_testbench.phases.env import Env, PhaseEnvError, ensure_phase_env


def introspect(env: Env) -> dict[str, Any]:
    """Run the introspection script with the environment's Python (isolated mode: nothing of ours leaks in)."""
    script = resources.files("kubectl_testbench.phases").joinpath("introspect_metrics.py")
    with resources.as_file(script) as path:
        done = subprocess.run([os.fspath(env.python), "-I", os.fspath(path)], capture_output=True, text=True,
                              timeout=600, check=False, env={**os.environ, "RAGAS_DO_NOT_TRACK": "true"})
    if done.returncode != 0:
        raise PhaseEnvError(f"introspecting the metrics failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    table: dict[str, Any] = json.loads(done.stdout)
    return table


def render(table: dict[str, Any]) -> str:
    """The committed bytes: sorted keys, two-space indent, final newline."""
    return json.dumps(table, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def metrics_text() -> str:
    """The table of the phase environment ``$KUBECTL_TESTBENCH_PHASE_PYTHON`` names, else the cached one;
    raises :class:`PhaseEnvError` when there is none and it cannot be built."""
    env = ensure_phase_env(os.environ.get("KUBECTL_TESTBENCH_PHASE_PYTHON"),
                           progress=lambda message: print(message, file=sys.stderr))
    return render(introspect(env))

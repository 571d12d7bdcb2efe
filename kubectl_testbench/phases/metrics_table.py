"""Generate ``_generated/metrics.json``: the metrics the phase package can score, asked of the package itself.

``python -m kubectl_testbench.phases.metrics_table --write`` finds (or builds) the phase environment, runs
``introspect_metrics.py`` inside it and writes the result; ``--check`` exits 1 when the committed file differs.
validate, explain, init and the importers read the committed file, so they need no phase environment.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import resources
from typing import Any

from kubectl_testbench.package_data import GENERATED_DIR
from kubectl_testbench.phases.env import Env, PhaseEnvError, ensure_phase_env

GENERATED = GENERATED_DIR / "metrics.json"


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


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args not in (["--write"], ["--check"]):
        print("usage: python -m kubectl_testbench.phases.metrics_table --write|--check", file=sys.stderr)
        return 2
    try:
        env = ensure_phase_env(os.environ.get("KUBECTL_TESTBENCH_PHASE_PYTHON"),
                               progress=lambda message: print(message, file=sys.stderr))
        text = render(introspect(env))
    except PhaseEnvError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3
    if args == ["--check"]:
        current = GENERATED.read_text(encoding="utf-8") if GENERATED.exists() else ""
        if current != text:
            print(f"{GENERATED} is out of date: run python -m kubectl_testbench.phases.metrics_table --write",
                  file=sys.stderr)
            return 1
        return 0
    tmp = GENERATED.with_suffix(".json.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(GENERATED)
    print(f"wrote {GENERATED}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Timings of the phase package on this machine: the phase environment, each phase, and the OTLP stall.

    python benchmarks/phases.py

1. the phase environment: a cold build into an empty cache dir (pip's own download cache stays as it is), then
   a warm lookup of the same key;
2. each phase of examples/experiments/weather-inline.yaml as render --resolve resolves it, against the stand-ins
   (tests/phases: A2A agent, judge, OTLP receiver), as the phase end-to-end tests run it;
3. the run phase with no OTLP endpoint (the package's span exporter retries localhost:4318) against
   OTEL_SDK_DISABLED=true. A floor for every process: ``python -c pass`` with the phase environment's Python.

Wall clock, one run each (the numbers are seconds, not ratios: there is no peer that runs these phases).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kubectl_testbench.local.values import Values  # noqa: E402
from kubectl_testbench.phases import env as phase_env  # noqa: E402
from tests.phases import workflow as wf  # noqa: E402
from tests.phases.a2a_agent import A2AAgentStandIn  # noqa: E402
from tests.phases.harness import PhaseStep, run_phase, run_phases  # noqa: E402
from tests.phases.judge import JudgeStandIn  # noqa: E402
from tests.phases.otlp import OtlpStandIn  # noqa: E402


def main() -> int:
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    python, version = phase_env.find_python()
    rows: list[tuple[str, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        start = time.monotonic()
        phase_env.ensure_env(phase_env.phase_spec(), python, version, cache_dir=Path(tmp))
        rows.append(("phase environment: cold build (pip cache warm)", time.monotonic() - start))
        start = time.monotonic()
        built = phase_env.ensure_env(phase_env.phase_spec(), python, version, cache_dir=Path(tmp))
        rows.append(("phase environment: warm lookup", time.monotonic() - start))
        start = time.monotonic()
        subprocess.run([str(built.python), "-c", "pass"], check=True)
        rows.append(("floor: phase python -c pass", time.monotonic() - start))
        work = Path(tmp) / "work"
        workflow = wf.resolve_gitops(ROOT / "examples" / "experiments" / "weather-inline.yaml")
        with A2AAgentStandIn() as agent, JudgeStandIn() as judge, OtlpStandIn() as otlp:
            steps = wf.phase_steps(workflow, Values(), {"agent": agent.url, "gateway": judge.url, "otlp": otlp.url})
            for result in run_phases(built, steps, work / "e2e"):
                rows.append((f"phase {result.step.name} (exit {result.returncode})", result.seconds))
            dataset = {"scenarios": [{"name": "one", "steps": [{"input": "hi"}]}]}
            files = {"/data/datasets/experiment.json": json.dumps(dataset).encode()}
            argv = ("-m", "testbench.run", agent.url, "stall")
            for label, extra in (("no OTLP endpoint", {}), ("OTEL_SDK_DISABLED=true", {"OTEL_SDK_DISABLED": "true"}),
                                 ("endpoint = OTLP stand-in", {"OTEL_EXPORTER_OTLP_ENDPOINT": otlp.url})):
                result = run_phase(built, PhaseStep("run", argv, extra, files=files), work / label)
                rows.append((f"run phase, 1 scenario / 1 step, {label} (exit {result.returncode})", result.seconds))
    width = max(len(name) for name, _ in rows)
    print(f"{'case':{width}}  seconds")
    for name, seconds in rows:
        print(f"{name:{width}}  {seconds:7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

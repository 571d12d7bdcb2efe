"""``run --local`` against upstream's standalone runner on the same input, with a warm phase environment.

    python benchmarks/run_local.py [--repeats N]     # also a section of benchmarks/run.py

Input: examples/experiments/weather-inline.yaml (one scenario, one step, three metrics) against the phase tests'
stand-ins (A2A agent, OpenAI-compatible judge) in this process. Ours: ``kubectl testbench run --local`` as a
fresh process (render, resolve, pre-flight, then one process per phase, as Testkube runs them). Peer: the phase
package's own ``testworkflow config.yaml`` (one process for every phase) given the snake_case experiment.json our
render writes, with the same judge, key and ``OTEL_SDK_DISABLED=true`` (without it the peer's run phase waits on
localhost:4318 for every span; run --local sets it when no --otlp-endpoint is given). Floor: the phase
environment's ``python -c "import testbench.evaluate"`` (the heaviest import, which both pay at least once).
Wall clock, median of the repeats.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from kubectl_testbench.phases import env as phase_env  # noqa: E402
from tests.phases.a2a_agent import A2AAgentStandIn  # noqa: E402
from tests.phases.judge import JudgeStandIn  # noqa: E402

EXAMPLE = ROOT / "examples" / "experiments" / "weather-inline.yaml"
TARGET = 1.2
"""run --local within 1.2x of the standalone runner."""


@dataclass
class Row:
    name: str
    seconds: list[float]
    exit_codes: set[int]

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)


def _once(row: Row, cmd: list[str], cwd: Path, env: dict[str, str], fresh: Path | None = None) -> None:
    if fresh is not None:  # each run starts from an empty directory, as a first run would
        for path in sorted(fresh.rglob("*"), reverse=True):
            path.unlink() if path.is_file() or path.is_symlink() else path.rmdir()
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    row.seconds.append(time.perf_counter() - start)
    row.exit_codes.add(done.returncode)


def rendered_experiment_json() -> str:
    done = subprocess.run([sys.executable, "-m", "kubectl_testbench", "render", str(EXAMPLE), "-o", "json"],
                          capture_output=True, text=True, check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    [configmap] = [o for o in json.loads(done.stdout)["items"] if o["kind"] == "ConfigMap"]
    return str(configmap["data"]["experiment.json"])


def measure(repeats: int) -> list[Row]:
    """Floor, peer and ours (in that order), each run ``repeats`` times after one warm-up run."""
    built = phase_env.ensure_phase_env(progress=lambda m: print(f"phase environment: {m}", file=sys.stderr))
    base = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/tmp"),
            "RAGAS_DO_NOT_TRACK": "true"}
    with tempfile.TemporaryDirectory() as tmp, A2AAgentStandIn() as agent, JudgeStandIn() as judge:
        work = Path(tmp)
        peer_dir, ours_dir = work / "peer", work / "ours"
        (peer_dir / "run").mkdir(parents=True)
        ours_dir.mkdir()
        (peer_dir / "experiment.json").write_text(rendered_experiment_json(), encoding="utf-8")
        (peer_dir / "config.yaml").write_text(
            f"dataset: {{source: file, path: {peer_dir / 'experiment.json'}}}\n"
            f"agent: {{url: '{agent.url}'}}\nexperiment: {{name: weather-agent-smoke}}\n"
            "workflow: {execution_id: benchmark, execution_number: 1}\n", encoding="utf-8")
        peer_env = {**base, "OPENAI_BASE_URL": judge.base_url, "OPENAI_API_KEY": "testbench",
                    "OTEL_SDK_DISABLED": "true"}
        peer_cmd = [str(built.root / "bin" / "testworkflow"), str(peer_dir / "config.yaml")]
        ours_env = {**os.environ, "PYTHONPATH": str(ROOT), "KUBECTL_TESTBENCH_CACHE_DIR": str(built.root.parent)}
        ours_env.pop("OPENAI_API_KEY", None)
        ours_cmd = [sys.executable, "-m", "kubectl_testbench", "run", "--local", str(EXAMPLE), "--agent-url",
                    agent.url, "--judge-url", judge.base_url, "--output-dir", str(ours_dir / "out")]
        floor_cmd = [str(built.python), "-c", "import testbench.evaluate"]
        floor = Row("floor: phase python -c 'import testbench.evaluate'", [], set())
        peer = Row("peer: testworkflow config.yaml (one process)", [], set())
        ours = Row("kubectl testbench run --local (warm environment)", [], set())
        warm_up = Row("warm-up", [], set())
        _once(warm_up, peer_cmd, peer_dir / "run", peer_env, fresh=peer_dir / "run")
        _once(warm_up, ours_cmd, ours_dir, ours_env)
        for _ in range(repeats):  # interleaved, so a change in the machine's load hits all three alike
            _once(floor, floor_cmd, work, base)
            _once(peer, peer_cmd, peer_dir / "run", peer_env, fresh=peer_dir / "run")
            _once(ours, ours_cmd, ours_dir, ours_env)
        return [floor, peer, ours]


def section(repeats: int) -> str:
    """The markdown section benchmarks/run.py appends."""
    try:
        floor, peer, ours = measure(repeats)
    except phase_env.PhaseEnvError as err:
        return f"\n## run --local\n\nnot measured: {err}\n"
    lines = ["", "## run --local against upstream's standalone runner", "",
             f"{EXAMPLE.relative_to(ROOT)} against the phase tests' stand-ins, warm phase environment, median of "
             f"{repeats} fresh process run(s); `python benchmarks/run_local.py`.", "",
             "| case | median s | exit codes | vs peer | vs floor |", "|---|---:|---|---:|---:|"]
    for row in (floor, peer, ours):
        vs_peer = f"{row.median / peer.median:.2f}×" if row is not floor else "-"
        vs_floor = f"{row.median / floor.median:.2f}×" if row is not floor else "-"
        lines.append(f"| {row.name} | {row.median:.2f} | {','.join(map(str, sorted(row.exit_codes)))} | {vs_peer} | "
                     f"{vs_floor} |")
    value = ours.median / peer.median
    lines += ["", f"Target: run --local within {TARGET:g}× of the standalone runner: {value:.2f}× "
                  f"({'met' if value <= TARGET else 'NOT met'})."]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    print(section(parser.parse_args().repeats))
    return 0


if __name__ == "__main__":
    sys.exit(main())

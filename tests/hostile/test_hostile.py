"""Hostile inputs (manifest.yaml): exact exit code and message, within 5 s of CPU and 512 MiB, never a traceback.

The limit is CPU time (RLIMIT_CPU), not wall-clock time: on a shared machine a busy neighbour stretches the wall
clock, not the work done. A generous wall-clock timeout still catches a child that blocks (a FIFO, a read that never
ends)."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT
from tests.hostile.generate import GENERATORS

HERE = Path(__file__).parent
CASES: list[dict[str, Any]] = yaml.safe_load((HERE / "manifest.yaml").read_text())
MEMORY = 512 * 1024 * 1024
# Under mutmut (it sets MUTANT_UNDER_TEST, which the child inherits) every call goes through a trampoline that
# records which test reached it: 1.1 million scalars then cost several times the CPU. The limit there only has to
# catch a runaway mutant.
SECONDS = 60 if "MUTANT_UNDER_TEST" in os.environ else 5
BLOCKED_SECONDS = 2 * SECONDS + 50


def test_corpus_has_at_least_sixty_cases_and_every_file_is_used() -> None:
    assert len(CASES) >= 60
    assert len({c["name"] for c in CASES}) == len(CASES)
    used = {c["file"] for c in CASES if "file" in c}
    assert used == {p.name for p in (HERE / "corpus").iterdir()}


def _limit_memory_and_cpu() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
    resource.setrlimit(resource.RLIMIT_CPU, (SECONDS, SECONDS + 1))


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_hostile_case(case: dict[str, Any], tmp_path: Path) -> None:
    command = case.get("command", "validate")
    stdin = None
    if "file" in case:
        args = [str(HERE / "corpus" / case["file"])]
    else:
        args, stdin = GENERATORS[case["generate"]](tmp_path)
    extra = ["-j", "1"] if command in ("validate", "render") else []
    argv = [sys.executable, "-m", "kubectl_testbench", command, *extra, *args, *case.get("args", [])]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    try:
        proc = subprocess.run(argv, input=stdin if stdin is not None else b"", capture_output=True, env=env,
                              timeout=BLOCKED_SECONDS, preexec_fn=_limit_memory_and_cpu, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{case['name']} blocked for more than {BLOCKED_SECONDS} s")
    if proc.returncode == -signal.SIGXCPU:
        pytest.fail(f"{case['name']} took more than {SECONDS} s of CPU")
    out = proc.stdout.decode("utf-8", "replace") + proc.stderr.decode("utf-8", "replace")
    assert "Traceback" not in out and "MemoryError" not in out, out[-2000:]
    assert proc.returncode == case["exit"], out[-2000:]
    for fragment in case.get("contains", []):
        assert fragment in out, f"{fragment!r} not in output:\n{out[-2000:]}"
    for fragment in case.get("not_contains", []):
        assert fragment not in out

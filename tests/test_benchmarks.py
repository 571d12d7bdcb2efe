"""The benchmark script runs end to end in CI in --quick mode (no timing assertions: numbers live in
benchmarks/results.md, produced by a full run on a quiet machine)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, phase_cache_dir
from tests.go_toolchain import KUBECONFORM, KUBECTL_VALIDATE, NO_GO, go_binary, go_tool


def test_benchmark_quick_mode_prints_the_table(tmp_path: Path) -> None:
    if shutil.which("check-jsonschema", path=os.pathsep.join((str(Path(sys.executable).parent),
                                                             os.environ.get("PATH", "")))) is None:
        pytest.skip("check-jsonschema (the peer) is not installed: pip install '.[test]'")
    built = {tool[2]: go_tool(*tool) for tool in (KUBECONFORM, KUBECTL_VALIDATE)}  # built here, not in the timeout
    # the benchmark finds the Go tools where go_tool put them (the user's cache, not this session's private one)
    env = {**os.environ, "KUBECTL_TESTBENCH_CACHE_DIR": str(phase_cache_dir())}
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "run.py"), "--quick", "--corpus", str(tmp_path)],
                          capture_output=True, text=True, timeout=600, check=False, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout
    assert ("| case | cache | files | median s | ms/file | peak MiB | vs peer | vs floor | vs kubeconform "
            "| vs kubectl-validate | caught |") in out
    assert "Load average (1 / 5 / 15 min) when the run started:" in out
    for row in ("| python -c pass |", "| CSafeLoader load | - | 100 |", "| check-jsonschema | cold | 100 |",
                "| validate (1000 steps) | warm | 1 |", "| validate (JSON) | warm | 100 |",
                "| validate (1000 steps, JSON) | warm | 1 |", "| fix --check (10% fixable) | warm | 100 |",
                "| validate (10% fixable) | warm | 100 |", "| render --output-dir again (unchanged) | warm | 100 |",
                "| python -c 'import yaml' | - | - |", "| import validate's modules | - | - |",
                "| CSafeLoader load + write 2 files each | - | 100 |"):
        assert row in out, row
    for cache in ("cold", "warm"):
        for row in ("| validate | {} | 1 |", "| validate | {} | 100 |", "| render --output-dir | {} | 1 |",
                    "| render --output-dir | {} | 100 |", "| validate -j 1 | {} | 100 |", "| fix --check | {} | 100 |"):
            assert row.format(cache) in out, row.format(cache)
    assert "| interpreter start-up (python -c pass) |" in out and "| our modules' import (click, the engine) |" in out
    _assert_go_peers(out, built)
    _assert_caught(out)
    assert (tmp_path / "n100" / "exp-00099.yaml").exists()
    assert (tmp_path / "n100-json" / "exp-00099.json").exists()


def _assert_go_peers(out: str, built: dict[str, Path | str]) -> None:
    """Each Go peer has its rows and ratios, or the report says why it is absent; on this project's machines Go
    is installed and both are built."""
    if go_binary() is None:
        for name in built:
            assert f"- {name} " in out and f"not measured: {NO_GO}" in out, name
        return
    for name, found in built.items():
        assert isinstance(found, Path), found  # Go is here: the proxy must serve the pinned version
        for cache in ("cold", "warm"):
            for n in (1, 100):
                row = re.search(rf"^\| {name} \| {cache} \| {n} \| (\d+\.\d+) \|", out, re.M)
                assert row and float(row.group(1)) > 0, (name, cache, n)
        assert f"| {name} (1000 steps) | - | 1 |" in out, name
    ours = re.search(r"^\| validate \| cold \| 100 \|.*\| (\d+\.\d+)× \| (\d+\.\d+)× \| \d+/\d+ \|$", out, re.M)
    assert ours, "validate's row has a ratio against each Go peer"


def _assert_caught(out: str) -> None:
    """The caught table: every tool's count over the held invalid corpora; ours flags every one of them."""
    header = re.search(r"^\| tool \| negative corpus \((\d+)\) \| hostile corpus \((\d+)\) \| caught \(of (\d+)\) \|",
                       out, re.M)
    assert header, "caught table"
    negative, hostile, total = map(int, header.groups())
    assert negative >= 40 and hostile >= 20 and total == negative + hostile
    assert f"| validate | {negative} | {hostile} | {total} | 0 |" in out
    rows = dict(re.findall(r"^\| (check-jsonschema|kubeconform|kubectl-validate) \| \d+ \| \d+ \| (\d+) \|", out, re.M))
    assert set(rows) >= ({"check-jsonschema"} | ({"kubeconform", "kubectl-validate"} if go_binary() else set()))
    assert all(int(n) < total for n in rows.values()), rows  # schema-only peers miss the semantic mistakes
    assert re.search(rf"^\| validate \| cold \| 100 \|.* \| {total}/{total} \|$", out, re.M)

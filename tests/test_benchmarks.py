"""The benchmark script runs end to end in CI in --quick mode (no timing assertions: numbers live in
benchmarks/results.md, produced by a full run on a quiet machine)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT


def test_benchmark_quick_mode_prints_the_table(tmp_path: Path) -> None:
    if shutil.which("check-jsonschema", path=os.pathsep.join((str(Path(sys.executable).parent),
                                                             os.environ.get("PATH", "")))) is None:
        pytest.skip("check-jsonschema (the peer) is not installed: pip install '.[test]'")
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "run.py"), "--quick", "--corpus", str(tmp_path)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout
    assert "| case | cache | files | median s | ms/file | peak MiB | vs peer | vs floor |" in out
    assert "Load average (1 / 5 / 15 min) when the run started:" in out
    for row in ("| python -c pass |", "| CSafeLoader load | - | 100 |", "| check-jsonschema | cold | 100 |",
                "| validate (1000 steps) | warm | 1 |", "| validate (JSON) | warm | 100 |",
                "| validate (1000 steps, JSON) | warm | 1 |", "| fix --check (10% fixable) | warm | 100 |",
                "| validate (10% fixable) | warm | 100 |"):
        assert row in out, row
    for cache in ("cold", "warm"):
        for row in ("| validate | {} | 1 |", "| validate | {} | 100 |", "| render --output-dir | {} | 1 |",
                    "| render --output-dir | {} | 100 |", "| validate -j 1 | {} | 100 |", "| fix --check | {} | 100 |"):
            assert row.format(cache) in out, row.format(cache)
    assert (tmp_path / "n100" / "exp-00099.yaml").exists()
    assert (tmp_path / "n100-json" / "exp-00099.json").exists()

"""The language server benchmark runs end to end in --quick mode (numbers live in the report of a full run,
never in timing assertions)."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT


def test_lsp_latency_quick_mode_prints_its_table() -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "lsp_latency.py"), "--quick"],
                          capture_output=True, text=True, timeout=300, check=False, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout
    assert out.startswith("## Language server: diagnostics after an edit\n")
    assert "| case | p50 ms | p95 ms | max ms | p50 vs floor | p95 vs floor |" in out
    for row in ("| warm edit (5) |", "| burst of 10 keystrokes, last one |",
                "| cold: start, didOpen → first diagnostics |", "| floor: validate_text (5) |"):
        assert row in out, row
    assert "-line Experiment" in out and "| target |" not in out

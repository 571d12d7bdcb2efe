"""The language server benchmark runs end to end in --quick mode (numbers live in the report of a full run,
never in timing assertions): every row it reports is there and holds numbers of its kind."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.conftest import ROOT

NUMBER = r"[0-9]+(?:\.[0-9])?"


def test_lsp_latency_quick_mode_prints_its_table() -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "lsp_latency.py"), "--quick"],
                          capture_output=True, text=True, timeout=300, check=False, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout
    assert out.startswith("## Language server: diagnostics after an edit, hover\n")
    assert "| case | p50 ms | p95 ms | max ms | p50 vs floor | p95 vs floor |" in out
    assert re.search(r"Load average \(1 / 5 / 15 min\) when the run started: [0-9.]+ / [0-9.]+ / [0-9.]+; when it "
                     r"ended: [0-9.]+ / [0-9.]+ / [0-9.]+ \([0-9]+ CPUs\)\.", out)
    with_floor = f"{NUMBER} \\| {NUMBER} \\| {NUMBER} \\| [0-9.]+× \\| [0-9.]+× \\|"
    plain = f"{NUMBER} \\| {NUMBER} \\| {NUMBER} \\| - \\| - \\|"
    for row in (rf"\| warm edit \(6\) \| {with_floor}",
                rf"\| warm edit with a fixable finding \(3\) \| {with_floor}",  # every other edit: 3 of 6
                rf"\| burst of 10 keystrokes, last one \(2 bursts\) \| {plain}",
                r"\| cold: start, didOpen → first diagnostics \| [0-9]+ \| - \| - \| - \| - \|",
                rf"\| floor: validate_text \(6\) \| {NUMBER} \| {NUMBER} \| {NUMBER} \| 1\.00× \| 1\.00× \|",
                rf"\| hover at the end of 2[0-9]{{4}} lines, after an edit \(5\) \| {plain}",
                rf"\| first hover after didOpen, end of 2[0-9]{{4}} lines \| {NUMBER} \| - \| - \| - \| - \|"):
        assert re.search(row, out), row
    assert re.search(r"a 20[0-9]{2}-line Experiment", out)
    assert re.search(r"The bursts published [0-9]+ of their 20 versions", out)
    assert "| target |" not in out

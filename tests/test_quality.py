"""ruff (package, tests, benchmarks) and mypy --strict on the package, as part of the suite (skipped when the tools
are absent)."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from tests.conftest import ROOT


def _tool(name: str) -> list[str]:
    try:
        __import__(name)
    except ImportError:
        pytest.skip(f"{name} is not installed (pip install '.[test]')")
    return [sys.executable, "-m", name]


def test_ruff_is_clean() -> None:
    proc = subprocess.run([*_tool("ruff"), "check", "kubectl_testbench", "tests", "benchmarks"], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_strict_is_clean() -> None:
    proc = subprocess.run([*_tool("mypy"), "--strict", "kubectl_testbench"], cwd=ROOT, capture_output=True,
                          text=True, check=False)
    assert proc.returncode == 0, proc.stdout[-4000:]


def test_kubectl_plugin_entry_point_is_declared() -> None:
    text = (ROOT / "pyproject.toml").read_text()
    assert 'kubectl-testbench = "kubectl_testbench.cli.main:main"' in text
    assert shutil.which("git") is not None

"""``python -m kubectl_testbench.generate``: its arguments, its exit statuses, the metric table only on request,
and the two former commands the committed artefacts name."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import pytest

from kubectl_testbench.generate import __main__ as entry
from kubectl_testbench.generate import committed, metrics
from kubectl_testbench.phases.env import PhaseEnvError
from kubectl_testbench.validate import metrics as metric_table


@pytest.mark.parametrize("argv", [[], ["--write", "--check"], ["--check", "bogus"]])
def test_usage_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert entry.main(argv) == 2
    assert "usage: python -m kubectl_testbench.generate" in capsys.readouterr().err


def test_the_metric_table_is_generated_only_when_named() -> None:
    assert "metrics" in committed.TARGETS and "metrics" not in committed.DEFAULT_TARGETS


def test_metrics_without_a_phase_environment_exit_3(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    def no_env() -> str:
        raise PhaseEnvError("no phase environment")

    monkeypatch.setattr(metrics, "metrics_text", no_env)
    assert entry.main(["--check", "metrics"]) == 3
    assert "error: no phase environment" in capsys.readouterr().err


def test_metrics_are_checked_and_written_like_the_rest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(metrics, "metrics_text", lambda: "{}\n")
    monkeypatch.setattr(metric_table, "GENERATED", tmp_path / "metrics.json")
    assert entry.main(["--check", "metrics"]) == 1
    assert "run: python -m kubectl_testbench.generate --write metrics)" in capsys.readouterr().err
    assert entry.main(["--write", "metrics"]) == 0
    assert (tmp_path / "metrics.json").read_text(encoding="utf-8") == "{}\n"
    assert entry.main(["--check", "metrics"]) == 0


@pytest.mark.parametrize(("module", "argv", "expected"), [
    ("kubectl_testbench.crd.artifacts", [], ["--check", "crd", "defaults", "rules"]),
    ("kubectl_testbench.crd.artifacts", ["--write"], ["--write", "crd", "defaults", "rules"]),
    ("kubectl_testbench.install.artifacts", [], ["--check", "kustomize"]),
    ("kubectl_testbench.install.artifacts", ["--write"], ["--write", "kustomize"]),
])
def test_the_commands_the_committed_files_name_still_work(module: str, argv: list[str], expected: list[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """``_generated/cel-*.json`` and ``kustomize/base/kustomization.yaml`` name the former commands."""
    seen: list[list[str]] = []
    monkeypatch.setattr(entry, "main", lambda args: seen.append(args) or 0)
    monkeypatch.setattr(sys, "argv", [module, *argv])
    with pytest.raises(SystemExit) as exited:
        runpy.run_module(module, run_name="__main__")
    assert (exited.value.code, seen) == (0, [expected])

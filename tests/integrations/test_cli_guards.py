"""CI guard rails: a path without Experiments is never silent success; typos in subcommands get a suggestion."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, run_process


def test_a_path_without_experiments_is_named_on_stderr(tmp_path: Path) -> None:
    (tmp_path / "empty-dir").mkdir()
    (tmp_path / "exps").mkdir()
    shutil.copy(EXAMPLES / "experiments" / "weather-inline.yaml", tmp_path / "exps")
    (tmp_path / "deployment.yaml").write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\n")
    proc = run_process("validate", "empty-dir/", "exps", "deployment.yaml", cwd=tmp_path)
    assert proc.returncode == 0  # a warning, not a failure, unless asked
    assert proc.stdout.decode() == "2 files, 1 experiment: 1 valid, 0 invalid, 0 warnings (1 other document skipped)\n"
    assert proc.stderr.decode().splitlines() == [
        "warning: empty-dir/: no Experiment found (nothing was validated there; check the path)",
        "warning: deployment.yaml: no Experiment found (nothing was validated there; check the path)",
    ]


def test_fail_if_empty_makes_a_mistyped_directory_fail(tmp_path: Path) -> None:
    (tmp_path / "experiments").mkdir()
    shutil.copy(EXAMPLES / "experiments" / "weather-inline.yaml", tmp_path / "experiments")
    (tmp_path / "experimets").mkdir()  # the typo in a CI file
    ok = run_process("validate", "--fail-if-empty", "experiments", cwd=tmp_path)
    assert ok.returncode == 0 and ok.stderr == b""
    typo = run_process("validate", "--fail-if-empty", "experimets", cwd=tmp_path)
    assert typo.returncode == 1
    assert typo.stderr.decode() == ("error: experimets: no Experiment found (nothing was validated there; check "
                                    "the path)\n")


def test_hook_mode_does_not_warn_about_each_foreign_file(tmp_path: Path) -> None:
    (tmp_path / "mkdocs.yml").write_text("site_name: x\n")
    proc = run_process("validate", "--only-testbench-files", "mkdocs.yml", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stderr == b""


@pytest.mark.parametrize(("typed", "suggestion"), [("valdate", "validate"), ("rendr", "render"),
                                                  ("instal", "install"), ("argo", "argocd"), ("frobnicate", None)])
def test_an_unknown_subcommand_suggests_the_closest(typed: str, suggestion: str | None) -> None:
    proc = run_process(typed, "x")
    assert proc.returncode == 2 and proc.stdout == b""
    last = proc.stderr.decode().splitlines()[-1]
    hint = f" Did you mean '{suggestion}'?" if suggestion else ""
    assert last == f"Error: No such command '{typed}'.{hint}"


@pytest.mark.parametrize("args", [["values.yaml"], ["charts"], ["-q", "values.yaml"], ["-o", "json", "values.yaml"]])
def test_fail_if_empty_says_it_once_as_an_error_never_also_as_a_warning(tmp_path: Path, args: list[str]) -> None:
    """Issue 33 item 7: one line for one thing (a path without Experiments), the error that fails the run."""
    (tmp_path / "values.yaml").write_text("replicas: 2\n")
    (tmp_path / "charts" / "bot").mkdir(parents=True)
    (tmp_path / "charts" / "bot" / "Chart.yaml").write_text("apiVersion: v2\nname: bot\nversion: 0.1.0\n")
    proc = run_process("validate", "--fail-if-empty", *args, cwd=tmp_path)
    assert proc.returncode == 1
    said = [line for line in (proc.stdout + proc.stderr).decode().splitlines() if "no Experiment found" in line]
    assert said == [f"error: {args[-1]}: no Experiment found (nothing was validated there; check the path)"]
    assert not any(line.startswith("warning") for line in proc.stderr.decode().splitlines())

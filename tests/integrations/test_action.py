"""The composite GitHub Action (action.yml): schema-valid, and its run steps executed as GitHub would run them."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import EXAMPLES, ROOT
from tests.integrations.helpers import console_script, env_with_path

ACTION = ROOT / "action.yml"


def action() -> dict[str, Any]:
    doc = yaml.safe_load(ACTION.read_text())
    assert isinstance(doc, dict)
    return doc


def step(name: str) -> dict[str, Any]:
    return next(s for s in action()["runs"]["steps"] if s["name"] == name)


def expand(text: str, inputs: dict[str, str]) -> str:
    """GitHub's expression substitution for the few expressions the action uses."""
    values = {f"inputs.{k}": v for k, v in inputs.items()}
    values.update({"github.action_path": str(ROOT), "steps.python.outputs.python-path": sys.executable})
    return re.sub(r"\$\{\{\s*([\w.-]+)\s*\}\}", lambda m: values[m.group(1)], text)


def run_step(name: str, inputs: dict[str, str], workspace: Path, bin_dir: Path) -> subprocess.CompletedProcess[str]:
    """One ``shell: bash`` step: its env with expressions substituted, GitHub's bash flags, the workspace as cwd."""
    defaults = {k: str(v.get("default", "")) for k, v in action()["inputs"].items()}
    given = {**defaults, **inputs}
    spec = step(name)
    assert spec["shell"] == "bash"
    env = env_with_path(bin_dir, GITHUB_WORKSPACE=str(workspace), GITHUB_STEP_SUMMARY=str(workspace / "summary.md"),
                        RUNNER_TEMP=str(workspace.parent / "runner-temp"), GITHUB_ACTIONS="true")
    env.update({k: expand(str(v), given) for k, v in spec.get("env", {}).items()})
    return subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", expand(spec["run"], given)],
                          cwd=workspace, env=env, capture_output=True, text=True, timeout=120, check=False)


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "workspace"
    shutil.copytree(EXAMPLES / "experiments", ws / "experiments")
    return ws


def test_action_is_valid_for_github() -> None:
    checker = shutil.which("check-jsonschema") or str(Path(sys.executable).parent / "check-jsonschema")
    if not Path(checker).exists():
        pytest.skip("check-jsonschema is not installed (pip install '.[test]')")
    proc = subprocess.run([checker, "--builtin-schema", "vendor.github-actions", str(ACTION)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_action_installs_from_its_own_path_or_pypi_without_touching_the_jobs_python() -> None:
    doc = action()
    assert doc["runs"]["using"] == "composite"
    setup = doc["runs"]["steps"][0]
    assert setup["uses"].startswith("actions/setup-python@") and setup["with"]["update-environment"] is False
    install = step("Install kubectl-testbench")
    assert install["env"]["ACTION_PATH"] == "${{ github.action_path }}"
    assert '"$venv/bin/pip" install --quiet "$ACTION_PATH"' in install["run"]
    assert '"kubectl-testbench==$VERSION"' in install["run"] and 'echo "$venv/bin" >> "$GITHUB_PATH"' in install["run"]
    for spec in doc["runs"]["steps"]:  # inputs reach scripts through env only (no script injection)
        assert "${{" not in spec.get("run", "")


def test_validate_step_passes_on_valid_experiments(workspace: Path, tmp_path: Path) -> None:
    proc = run_step("Validate", {"paths": "experiments"}, workspace, console_script(tmp_path / "bin"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "5 files, 4 experiments: 4 valid, 0 invalid, 0 warnings (1 other document skipped)\n"
    assert (workspace / "summary.md").read_text().startswith("### kubectl-testbench validate\n")


def test_validate_step_annotates_and_fails_and_sarif_step_keeps_going(workspace: Path, tmp_path: Path) -> None:
    bad = workspace / "experiments" / "weather-inline.yaml"
    bad.write_text(bad.read_text().replace("defaultThreshold: 0.9", "defaultThreshold: 1.5"))
    bin_dir = console_script(tmp_path / "bin")
    inputs = {"paths": "experiments/weather-inline.yaml experiments/rag-s3-nightly.yaml",
              "sarif-file": "reports/testbench.sarif"}
    sarif = run_step("Write SARIF", inputs, workspace, bin_dir)
    assert sarif.returncode == 0, sarif.stderr
    doc = json.loads((workspace / "reports" / "testbench.sarif").read_text())
    (result,) = doc["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "experiments/weather-inline.yaml"
    validate = run_step("Validate", inputs, workspace, bin_dir)
    assert validate.returncode == 1
    assert validate.stdout.splitlines()[0] == (
        "::error file=experiments/weather-inline.yaml,line=24,col=25,title=schema/maximum::"
        "spec.dataset.inline.defaultThreshold: Invalid value: 1.5: must be less than or equal to 1")


def test_strict_input_fails_on_warnings(workspace: Path, tmp_path: Path) -> None:
    warned = workspace / "experiments" / "weather-inline.yaml"
    warned.write_text(warned.read_text() + "  trigger:\n    concurrencyPolicy: Forbid\n")  # trigger-inactive
    bin_dir = console_script(tmp_path / "bin")
    lenient = run_step("Validate", {"paths": "experiments"}, workspace, bin_dir)
    strict = run_step("Validate", {"paths": "experiments", "strict": "true"}, workspace, bin_dir)
    assert lenient.returncode == 0 and strict.returncode == 1
    assert "::warning file=experiments/weather-inline.yaml" in strict.stdout

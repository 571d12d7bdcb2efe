"""The pre-commit hooks, installed and run by pre-commit itself (``pre-commit try-repo`` on this checkout).

pre-commit builds a virtualenv and pip-installs this repository into it (from PyPI for the dependencies),
exactly as a user's ``pre-commit install`` would. When that environment cannot be built (no network,
no pip), the test is skipped with pre-commit's own error.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import EXAMPLES, ROOT, run_cli

HOOKS = ROOT / ".pre-commit-hooks.yaml"
HELM_TEMPLATE = "{{- if .Values.enabled }}\napiVersion: apps/v1\nkind: Deployment\n{{- end }}\n"


def test_hooks_file_declares_both_hooks_as_python_hooks() -> None:
    hooks = {h["id"]: h for h in yaml.safe_load(HOOKS.read_text())}
    assert set(hooks) == {"testbench-validate", "testbench-render-check", "testbench-fix"}
    validate, check = hooks["testbench-validate"], hooks["testbench-render-check"]
    assert validate["entry"] == "kubectl-testbench validate --only-testbench-files"
    assert validate["language"] == check["language"] == "python"
    assert validate["types_or"] == ["yaml", "json"] and validate.get("pass_filenames", True) is True
    assert re.search(validate["files"], "a/b.yml") and not re.search(validate["files"], "a/b.md")
    assert check["entry"] == "kubectl-testbench render --check" and check["pass_filenames"] is False
    assert check["args"][:2] == ["--output-dir", "rendered/"]


def test_only_testbench_files_skips_foreign_yaml_without_reading_it(tmp_path: Path) -> None:
    (tmp_path / "deployment.yaml").write_text(HELM_TEMPLATE)
    (tmp_path / "empty.yaml").write_text("")
    exp = tmp_path / "exp.yaml"
    exp.write_text((EXAMPLES / "experiments" / "weather-inline.yaml").read_text())
    files = [str(tmp_path / n) for n in ("deployment.yaml", "empty.yaml", "exp.yaml")]
    plain = run_cli("validate", *files)
    assert plain.exit_code == 2 and "error[yaml/syntax]" in plain.output
    hook = run_cli("validate", "--only-testbench-files", *files)
    assert hook.exit_code == 0 and hook.output == "1 file, 1 experiment: 1 valid, 0 invalid, 0 warnings\n"
    utf16 = tmp_path / "utf16.yaml"
    utf16.write_bytes(b"\xff\xfe" + exp.read_text().replace("0.9", "9").encode("utf-16-le"))
    assert run_cli("validate", "--only-testbench-files", str(utf16)).exit_code == 1


def _pre_commit() -> list[str]:
    try:
        import pre_commit  # noqa: F401
    except ImportError:
        pytest.skip("pre-commit is not installed (pip install '.[test]')")
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    return [sys.executable, "-m", "pre_commit"]


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def test_pre_commit_try_repo_runs_both_hooks(tmp_path: Path) -> None:
    pre_commit = _pre_commit()
    work = tmp_path / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PRE_COMMIT", "GIT_", "VIRTUAL_ENV"))}
    env.update(PRE_COMMIT_HOME=str(tmp_path / "cache"), GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com", PRE_COMMIT_COLOR="never")
    _git(work, "init", "-q")
    valid = (EXAMPLES / "experiments" / "weather-inline.yaml").read_text()
    (work / "experiments").mkdir()
    (work / "experiments" / "valid.yaml").write_text(valid)
    (work / "experiments" / "invalid.yaml").write_text(
        valid.replace("weather-agent-smoke", "weather-agent-broken").replace("defaultThreshold: 0.9",
                                                                             "defaultThreshold: 1.5"))
    (work / "chart" / "templates").mkdir(parents=True)
    (work / "chart" / "templates" / "deployment.yaml").write_text(HELM_TEMPLATE)
    _git(work, "add", "-A")

    def try_repo(hook: str, *args: str) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run([*pre_commit, "try-repo", str(ROOT), hook, "--color", "never", *args], cwd=work,
                              env=env, capture_output=True, text=True, timeout=900, check=False)
        output = proc.stdout + proc.stderr
        if "An unexpected error has occurred" in output and "Installing environment" in output:
            log = tmp_path / "cache" / "pre-commit.log"
            detail = log.read_text()[-1500:] if log.exists() else output[-1500:]
            pytest.skip(f"pre-commit could not build the hook environment (offline?): {detail}")
        return proc

    passed = try_repo("testbench-validate", "--files", "experiments/valid.yaml", "chart/templates/deployment.yaml")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert re.search(r"validate Testbench Experiments\.+Passed", passed.stdout)

    failed = try_repo("testbench-validate", "--files", "experiments/valid.yaml", "experiments/invalid.yaml",
                      "chart/templates/deployment.yaml")
    assert failed.returncode == 1
    assert re.search(r"validate Testbench Experiments\.+Failed", failed.stdout)
    assert "- hook id: testbench-validate\n- exit code: 1" in failed.stdout
    assert ("experiments/invalid.yaml:24:25: error[schema/maximum] spec.dataset.inline.defaultThreshold: "
            "Invalid value: 1.5: must be less than or equal to 1") in failed.stdout
    assert "2 files, 2 experiments: 1 valid, 1 invalid, 0 warnings" in failed.stdout

    # render-check: the hook's default args render "." into rendered/ (the chart is removed: it is no YAML)
    (work / "experiments" / "invalid.yaml").unlink()
    shutil.rmtree(work / "chart")
    _git(work, "add", "-A")
    stale = try_repo("testbench-render-check", "--all-files")
    assert stale.returncode == 1
    assert re.search(r"rendered Testbench manifests are up to date\.+Failed", stale.stdout)
    assert "+++ b/rendered/testworkflow_testkube_weather-agent-smoke-testkube-workflow.yaml" in stale.stdout
    assert run_cli("render", str(work / "experiments"), "--output-dir", str(work / "rendered")).exit_code == 0
    _git(work, "add", "-A")
    fresh = try_repo("testbench-render-check", "--all-files")
    assert fresh.returncode == 0, fresh.stdout
    assert re.search(r"rendered Testbench manifests are up to date\.+Passed", fresh.stdout)

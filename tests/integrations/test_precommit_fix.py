"""The ``testbench-fix`` pre-commit hook, installed and run by pre-commit itself (``pre-commit try-repo``).

It rewrites files with safe fixes and fails when it changed something (as formatters do); a second run passes.
Foreign YAML is skipped unread; findings without a safe fix do not fail it (testbench-validate reports them).
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT
from tests.integrations.test_precommit import HELM_TEMPLATE, HOOKS, _git, _pre_commit
from tests.validate.helpers import VALID

FIXABLE = "# a comment that stays\n" + VALID + "  trigger:\n    enabled: on\n    concurrencyPolicy: allow  # case\n"
UNFIXABLE = VALID.replace("defaultThreshold: 0.8", "defaultThreshold: 1.5")


def test_fix_hook_is_declared_as_a_python_hook_that_fails_on_changes() -> None:
    hooks = {h["id"]: h for h in yaml.safe_load(HOOKS.read_text())}
    fix = hooks["testbench-fix"]
    assert fix["entry"] == "kubectl-testbench fix --only-testbench-files --exit-zero --exit-non-zero-on-fix --quiet"
    assert fix["language"] == "python" and fix["types_or"] == ["yaml", "json"]
    assert fix.get("pass_filenames", True) is True and re.search(fix["files"], "exps/a.yaml")


def test_pre_commit_try_repo_runs_the_fix_hook(tmp_path: Path) -> None:
    pre_commit = _pre_commit()
    work = tmp_path / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PRE_COMMIT", "GIT_", "VIRTUAL_ENV"))}
    env.update(PRE_COMMIT_HOME=str(tmp_path / "cache"), GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com", PRE_COMMIT_COLOR="never")
    _git(work, "init", "-q")
    (work / "experiments").mkdir()
    (work / "experiments" / "fixable.yaml").write_text(FIXABLE)
    (work / "experiments" / "clean.yaml").write_text(VALID)
    (work / "experiments" / "unfixable.yaml").write_text(UNFIXABLE)
    (work / "chart" / "templates").mkdir(parents=True)
    (work / "chart" / "templates" / "deployment.yaml").write_text(HELM_TEMPLATE)
    _git(work, "add", "-A")

    def try_repo(*args: str) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run([*pre_commit, "try-repo", str(ROOT), "testbench-fix", "--color", "never", *args],
                              cwd=work, env=env, capture_output=True, text=True, timeout=900, check=False)
        output = proc.stdout + proc.stderr
        if "An unexpected error has occurred" in output and "Installing environment" in output:
            log = tmp_path / "cache" / "pre-commit.log"
            detail = log.read_text()[-1500:] if log.exists() else output[-1500:]
            pytest.skip(f"pre-commit could not build the hook environment (offline?): {detail}")
        return proc

    changed = try_repo("--all-files")
    assert changed.returncode == 1, changed.stdout + changed.stderr
    assert re.search(r"fix Testbench Experiments\.+Failed", changed.stdout)
    assert "- files were modified by this hook" in changed.stdout
    assert "fixed experiments/fixable.yaml: 2 fixes (schema/enum, yaml/yaml11-boolean)" in changed.stdout
    assert (work / "experiments" / "fixable.yaml").read_text() == FIXABLE.replace("enabled: on", "enabled: true") \
        .replace("allow  # case", "Allow  # case")
    assert (work / "experiments" / "clean.yaml").read_text() == VALID
    assert (work / "experiments" / "unfixable.yaml").read_text() == UNFIXABLE
    assert (work / "chart" / "templates" / "deployment.yaml").read_text() == HELM_TEMPLATE

    _git(work, "add", "-A")
    clean = try_repo("--all-files")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert re.search(r"fix Testbench Experiments\.+Passed", clean.stdout)

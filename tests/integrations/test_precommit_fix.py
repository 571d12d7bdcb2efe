"""The ``testbench-fix`` pre-commit hook, installed and run by pre-commit itself (tests/integrations/precommit.py).

It rewrites files with safe fixes and fails when it changed something (as formatters do); a second run passes.
Foreign YAML is skipped unread, Go/Helm templates of Experiments with a notice; findings without a safe fix do
not fail it (testbench-validate reports them).
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from tests.conftest import run_cli
from tests.integrations.precommit import HOOKS, HooksRepo, run_hook, work_repo
from tests.integrations.test_precommit import FOREIGN, HELM_EXPERIMENT
from tests.validate.helpers import VALID

FIXABLE = "# a comment that stays\n" + VALID + "  trigger:\n    enabled: on\n    concurrencyPolicy: allow  # case\n"
UNFIXABLE = VALID.replace("defaultThreshold: 0.8", "defaultThreshold: 1.5")


def test_fix_hook_is_declared_as_a_python_hook_that_fails_on_changes() -> None:
    hooks = {h["id"]: h for h in yaml.safe_load(HOOKS.read_text())}
    fix = hooks["testbench-fix"]
    assert fix["entry"] == "kubectl-testbench fix --only-testbench-files --exit-zero --exit-non-zero-on-fix --quiet"
    assert fix["language"] == "python" and fix["types_or"] == ["yaml", "json"]
    assert fix.get("pass_filenames", True) is True and re.search(fix["files"], "exps/a.yaml")


def test_fix_hook_rewrites_fails_once_then_passes_and_leaves_foreign_yaml_and_templates(
        tmp_path: Path, hooks_repo: HooksRepo) -> None:
    files = {"experiments/fixable.yaml": FIXABLE, "experiments/clean.yaml": VALID,
             "experiments/unfixable.yaml": UNFIXABLE, **FOREIGN}
    work = work_repo(tmp_path, hooks_repo, [{"id": "testbench-fix"}], files)

    changed = run_hook(work, hooks_repo, "testbench-fix", "--all-files")
    assert changed.returncode == 1, changed.stdout + changed.stderr
    assert re.search(r"fix Testbench Experiments\.+Failed", changed.stdout)
    assert "- files were modified by this hook" in changed.stdout
    assert "fixed experiments/fixable.yaml: 2 fixes (schema/enum, yaml/yaml11-boolean)" in changed.stdout
    assert "yaml/syntax" not in changed.stdout and "broken.yaml" not in changed.stdout  # --quiet: no notices
    assert (work / "experiments" / "fixable.yaml").read_text() == FIXABLE.replace("enabled: on", "enabled: true") \
        .replace("allow  # case", "Allow  # case")
    for name, text in files.items():
        if name != "experiments/fixable.yaml":
            assert (work / name).read_text() == text, name

    clean = run_hook(work, hooks_repo, "testbench-fix", "--all-files")  # the Helm template of an Experiment too
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert re.search(r"fix Testbench Experiments\.+Passed", clean.stdout)


def test_only_testbench_files_skips_templates_of_experiments_with_a_notice_and_foreign_files_unread(
        tmp_path: Path) -> None:
    for name, text in {"experiment.yaml": HELM_EXPERIMENT, "broken.yaml": FOREIGN["broken.yaml"],
                       "fixable.yaml": FIXABLE}.items():
        (tmp_path / name).write_text(text)
    plain = run_cli("fix", "--check", str(tmp_path))
    assert plain.exit_code == 1 and "error[yaml/syntax]" in plain.stderr
    hook = run_cli("fix", "--only-testbench-files", "--exit-zero", str(tmp_path))
    assert hook.exit_code == 0, hook.output
    assert f"{tmp_path / 'experiment.yaml'}: info[input/template] a Go/Helm template, not YAML: skipped" \
        in hook.stderr
    assert "broken.yaml" not in hook.stderr and f"fixed {tmp_path / 'fixable.yaml'}: 2 fixes" in hook.stderr
    assert (tmp_path / "experiment.yaml").read_text() == HELM_EXPERIMENT

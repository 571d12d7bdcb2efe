"""The pre-commit hooks read the repository's configuration file (.testbench.yaml) and the files' suppression
comments, as validate does: pre-commit runs them at the repository's root with the staged files' paths."""

from __future__ import annotations

from pathlib import Path

from tests.integrations.precommit import HooksRepo, run_hook, work_repo
from tests.integrations.test_precommit import VALID

OVER = VALID.replace("defaultThreshold: 0.9", "defaultThreshold: 1.5")
"""schema/maximum at line 24."""


def test_the_validate_hook_follows_the_configuration_file_and_suppressions(tmp_path: Path,
                                                                           hooks_repo: HooksRepo) -> None:
    work = work_repo(tmp_path, hooks_repo, [{"id": "testbench-validate"}],
                     {"experiments/over.yaml": OVER, ".testbench.yaml": "ignore: [schema/maximum]\n"})
    passed = run_hook(work, hooks_repo, "testbench-validate", "--all-files")
    assert passed.returncode == 0, passed.stdout
    (work / ".testbench.yaml").write_text("strict: true\n")
    (work / "experiments" / "over.yaml").write_text(
        OVER.replace("Threshold: 1.5", "Threshold: 1.5  # testbench: ignore[schema/maximum, schema/enum]"))
    failed = run_hook(work, hooks_repo, "testbench-validate", "--all-files")
    assert failed.returncode == 1, failed.stdout  # strict: the unused suppression of schema/enum is a warning
    assert ("experiments/over.yaml:24:30: warning[suppression/unused] unused suppression of schema/enum: no such "
            "finding on line 24") in failed.stdout
    assert "schema/maximum]" not in failed.stdout.replace("ignore[schema/maximum", "")

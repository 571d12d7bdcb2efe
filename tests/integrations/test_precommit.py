"""The pre-commit hooks, installed and run by pre-commit itself on this checkout (tests/integrations/precommit.py
builds the hook repository and the user's repository; the fix hook has its own file)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from tests.conftest import EXAMPLES, run_cli, run_process
from tests.integrations.precommit import HELM_TEMPLATE, HOOKS, HooksRepo, commit, git, run_hook, work_repo


def test_hooks_file_declares_both_hooks_as_python_hooks() -> None:
    hooks = {h["id"]: h for h in yaml.safe_load(HOOKS.read_text())}
    assert set(hooks) == {"testbench-validate", "testbench-render-check", "testbench-fix"}
    validate, check = hooks["testbench-validate"], hooks["testbench-render-check"]
    assert validate["entry"] == "kubectl-testbench validate --only-testbench-files"
    assert validate["language"] == check["language"] == "python"
    assert validate["types_or"] == ["yaml", "json"] and validate.get("pass_filenames", True) is True
    assert re.search(validate["files"], "a/b.yml") and not re.search(validate["files"], "a/b.md")
    assert check["entry"] == "kubectl-testbench render --check --only-testbench-files"
    assert check["pass_filenames"] is False and check["always_run"] is True  # deletions must run it too
    assert check["args"][:2] == ["--output-dir", "rendered/"]


def test_only_testbench_files_skips_foreign_yaml_without_reading_it(tmp_path: Path) -> None:
    (tmp_path / "deployment.yaml").write_text(HELM_TEMPLATE)
    (tmp_path / "empty.yaml").write_text("")
    exp = tmp_path / "exp.yaml"
    exp.write_text((EXAMPLES / "experiments" / "weather-inline.yaml").read_text())
    files = [str(tmp_path / n) for n in ("deployment.yaml", "empty.yaml", "exp.yaml")]
    plain = run_cli("validate", *files)
    assert plain.exit_code == 1 and "error[yaml/syntax]" in plain.output
    hook = run_cli("validate", "--only-testbench-files", *files)
    assert hook.exit_code == 0 and hook.output == "1 file, 1 experiment: 1 valid, 0 invalid, 0 warnings\n"
    utf16 = tmp_path / "utf16.yaml"
    utf16.write_bytes(b"\xff\xfe" + exp.read_text().replace("0.9", "9").encode("utf-16-le"))
    assert run_cli("validate", "--only-testbench-files", str(utf16)).exit_code == 1


VALID = (EXAMPLES / "experiments" / "weather-inline.yaml").read_text()
HELM_EXPERIMENT = VALID.replace("name: weather-agent-smoke", "name: {{ .Release.Name }}-smoke").replace(
    "namespace: testkube", "namespace: {{ .Release.Namespace }}")
FOREIGN = {
    "mkdocs.yml": "site_name: docs\nmarkdown_extensions:\n  - pymdownx.emoji:\n"
                  "      emoji_index: !!python/name:material.extensions.emoji.twemoji\n",
    "broken.yaml": "key: [unclosed\n",
    "chart/templates/deployment.yaml": HELM_TEMPLATE,
    "chart/templates/experiment.yaml": HELM_EXPERIMENT,
    "chart/Chart.yaml": "apiVersion: v2\nname: agents\nversion: 0.1.0\n",
}


def test_validate_hook_passes_foreign_yaml_and_notes_helm_templates_of_experiments(
        tmp_path: Path, hooks_repo: HooksRepo) -> None:
    work = work_repo(tmp_path, hooks_repo, [{"id": "testbench-validate"}],
                     {"experiments/valid.yaml": VALID, **FOREIGN})
    passed = run_hook(work, hooks_repo, "testbench-validate", "--all-files")
    assert passed.returncode == 0, passed.stdout
    assert re.search(r"validate Testbench Experiments\.+Passed", passed.stdout)
    (work / "experiments" / "invalid.yaml").write_text(
        VALID.replace("weather-agent-smoke", "weather-agent-broken").replace("defaultThreshold: 0.9",
                                                                             "defaultThreshold: 1.5"))
    failed = run_hook(work, hooks_repo, "testbench-validate", "--all-files", "--verbose")
    assert failed.returncode == 1
    assert "- hook id: testbench-validate\n" in failed.stdout and "- exit code: 1\n" in failed.stdout
    assert ("experiments/invalid.yaml:24:25: error[schema/maximum] spec.dataset.inline.defaultThreshold: "
            "Invalid value: 1.5: must be less than or equal to 1") in failed.stdout
    assert "chart/templates/experiment.yaml: info[input/template] a Go/Helm template, not YAML: skipped" \
        in failed.stdout
    assert "yaml/syntax" not in failed.stdout and "broken.yaml" not in failed.stdout


def test_render_check_ignores_foreign_yaml_and_catches_every_kind_of_drift(
        tmp_path: Path, hooks_repo: HooksRepo) -> None:
    work = work_repo(tmp_path, hooks_repo, [{"id": "testbench-render-check"}],  # the hook's default args
                     {"experiments/weather.yaml": VALID,
                      "experiments/rag.yaml": (EXAMPLES / "experiments" / "rag-s3-nightly.yaml").read_text(),
                      **FOREIGN})
    stale = run_hook(work, hooks_repo, "testbench-render-check", "--all-files")
    assert stale.returncode == 1, stale.stdout  # 1: drift, not 2: the foreign files were never read
    assert "+++ b/rendered/testworkflow_testkube_weather-agent-smoke-testkube-workflow.yaml" in stale.stdout
    assert ("error: rendered is not up to date with its sources; regenerate it with: kubectl testbench render . "
            "--output-dir rendered/ --only-testbench-files") in stale.stdout
    assert run_cli("render", "--only-testbench-files", str(work), "--output-dir", str(work / "rendered")
                   ).exit_code == 0
    commit(work, hooks_repo)
    fresh = run_hook(work, hooks_repo, "testbench-render-check")  # nothing staged: always_run
    assert fresh.returncode == 0, fresh.stdout
    assert re.search(r"rendered Testbench manifests are up to date\.+Passed", fresh.stdout)

    # deleting an Experiment leaves its rendered files behind: staged deletions alone must fail the hook
    git(work, "rm", "-q", "experiments/rag.yaml")
    deleted = run_hook(work, hooks_repo, "testbench-render-check")
    assert deleted.returncode == 1, deleted.stdout
    orphans = sorted(p.name for p in (work / "rendered").glob("*docs-rag-nightly*"))
    assert orphans
    for name in orphans:
        assert f"--- a/rendered/{name}\n+++ /dev/null" in deleted.stdout
    git(work, "checkout", "-q", "HEAD", "--", "experiments/rag.yaml")

    # deleting a rendered file
    victim = sorted(p.name for p in (work / "rendered").glob("configmap_*.yaml"))[0]
    git(work, "rm", "-q", f"rendered/{victim}")
    missing = run_hook(work, hooks_repo, "testbench-render-check")
    assert missing.returncode == 1, missing.stdout
    assert f"--- /dev/null\n+++ b/rendered/{victim}" in missing.stdout


def test_drift_message_names_the_directory_and_a_command_that_regenerates_it(tmp_path: Path) -> None:
    (tmp_path / "experiments").mkdir()
    (tmp_path / "experiments" / "weather.yaml").write_text(VALID)
    (tmp_path / "deploy").mkdir()
    args = ["render", "experiments", "--output-dir", "deploy/rendered", "--testkube-namespace", "qa",
            "--argocd-sync-waves", "--check"]
    stale = run_process(*args, cwd=tmp_path)
    assert stale.returncode == 1
    err = stale.stderr.decode()
    assert "+++ b/deploy/rendered/configmap_qa_weather-agent-smoke-testkube-experiment.yaml" in stale.stdout.decode()
    command = ("kubectl testbench render experiments --output-dir deploy/rendered --testkube-namespace qa "
               "--argocd-sync-waves")
    assert err == f"error: deploy/rendered is not up to date with its sources; regenerate it with: {command}\n"
    assert run_process(*command.split()[2:], cwd=tmp_path).returncode == 0  # the printed command works
    assert run_process(*args, cwd=tmp_path).returncode == 0


def test_a_batch_without_experiments_prints_no_second_summary(tmp_path: Path, hooks_repo: HooksRepo) -> None:
    """pre-commit splits the files into one batch per CPU (more than four files each with two); a batch of
    foreign files alone reads nothing and must not add a "0 files, 0 experiments" line (issue 33 item 7)."""
    foreign = {f"z/values-{i}.yaml": f"replicas: {i}\n" for i in range(12)}
    work = work_repo(tmp_path, hooks_repo, [{"id": "testbench-validate"}],
                     {"a/experiment.yaml": VALID, **foreign})
    env = {**hooks_repo.env}
    env.pop("PRE_COMMIT_NO_CONCURRENCY", None)
    proc = run_hook(work, HooksRepo(hooks_repo.path, hooks_repo.rev, env, hooks_repo.command), "testbench-validate",
                    "--all-files", "--verbose")
    assert proc.returncode == 0, proc.stdout
    summaries = [line for line in proc.stdout.splitlines() if re.match(r"\d+ files?, \d+ experiments?:", line)]
    assert summaries == ["1 file, 1 experiment: 1 valid, 0 invalid, 0 warnings"]


def test_only_testbench_files_with_nothing_of_ours_prints_nothing(tmp_path: Path) -> None:
    (tmp_path / "values.yaml").write_text("replicas: 2\n")
    proc = run_process("validate", "--only-testbench-files", "values.yaml", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout == b"" and proc.stderr == b""
    plain = run_process("validate", "values.yaml", cwd=tmp_path)  # without the hook's flag the summary stays
    assert plain.stdout == b"1 file, 0 experiments: 0 valid, 0 invalid, 0 warnings (1 other document skipped)\n"

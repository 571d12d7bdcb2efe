"""Running our hooks with pre-commit itself, shared by the hook tests (validate, render-check, fix).

pre-commit builds a virtualenv and pip-installs this repository into it (from PyPI for the dependencies),
exactly as a user's ``pre-commit install`` would. The checkout is copied into a one-commit hook repository
once per test session, with one pre-commit cache, so the hook environment is built once. When it cannot be
built (no network, no pip), the test is skipped with pre-commit's own error.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT

HOOKS = ROOT / ".pre-commit-hooks.yaml"
HELM_TEMPLATE = "{{- if .Values.enabled }}\napiVersion: apps/v1\nkind: Deployment\n{{- end }}\n"
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "PRE_COMMIT_COLOR": "never"}


@dataclass(frozen=True)
class HooksRepo:
    """This checkout as a hook repository at one commit, and the environment pre-commit runs in."""

    path: Path
    rev: str
    env: dict[str, str]
    command: tuple[str, ...]


def pre_commit_command() -> list[str]:
    try:
        import pre_commit  # noqa: F401
    except ImportError:
        pytest.skip("pre-commit is not installed (pip install '.[test]')")
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    return [sys.executable, "-m", "pre_commit"]


def git(repo: Path, *args: str, env: dict[str, str] | None = None) -> None:
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


def build_hooks_repo(base: Path) -> HooksRepo:
    """Copy the checkout's tracked and untracked (not ignored) files into a fresh one-commit repository."""
    command = tuple(pre_commit_command())
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PRE_COMMIT", "GIT_", "VIRTUAL_ENV"))}
    env.update(GIT_ENV, PRE_COMMIT_HOME=str(base / "cache"))
    repo = base / "kubectl-testbench"
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True,
                            text=True, check=True).stdout.splitlines()
    for name in listed:
        source = ROOT / name
        if source.is_file():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, repo / name)
    git(repo, "init", "-q")
    git(repo, "add", "-A", env=env)
    git(repo, "commit", "-qm", "hooks", env=env)
    rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True,
                         check=True).stdout.strip()
    return HooksRepo(repo, rev, env, command)


def work_repo(tmp_path: Path, hooks: HooksRepo, config: list[dict[str, object]],
              files: dict[str, str] | None = None) -> Path:
    """A user's repository whose .pre-commit-config.yaml uses ``config`` from the hook repository."""
    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q", env=hooks.env)
    (work / ".pre-commit-config.yaml").write_text(yaml.safe_dump(
        {"repos": [{"repo": str(hooks.path), "rev": hooks.rev, "hooks": config}]}, sort_keys=False))
    for name, text in (files or {}).items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(text)
    return work


def run_hook(work: Path, hooks: HooksRepo, hook: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``pre-commit run HOOK`` after staging everything; skips when the hook environment cannot be built."""
    git(work, "add", "-A", env=hooks.env)
    proc = subprocess.run([*hooks.command, "run", hook, "--color", "never", *args], cwd=work, env=hooks.env,
                          capture_output=True, text=True, timeout=900, check=False)
    output = proc.stdout + proc.stderr
    if "An unexpected error has occurred" in output and "Installing environment" in output:
        log = Path(hooks.env["PRE_COMMIT_HOME"]) / "pre-commit.log"
        detail = log.read_text()[-1500:] if log.exists() else output[-1500:]
        pytest.skip(f"pre-commit could not build the hook environment (offline?): {detail}")
    return proc


def commit(work: Path, hooks: HooksRepo) -> None:
    git(work, "add", "-A", env=hooks.env)
    git(work, "commit", "-qm", "state", "--no-verify", env=hooks.env)

"""The documentation's commands run: every ``sh`` block in README.md and docs/*.md marked ``<!-- runnable -->``
is run with bash (``set -euo pipefail``) in a fresh temporary directory holding a copy of ``examples/``, with this
checkout's ``kubectl-testbench`` first on PATH, and must exit 0. ``<!-- runnable: needs kpt jq -->`` names
tools the block needs besides bash and Python; without one of them the block is skipped with the reason.
``kubectl testbench …`` runs through the real kubectl's plugin lookup where kubectl is installed, and through a
two-line stand-in of that lookup where it is not. The convention is described in docs/testing.md.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, ROOT
from tests.integrations.helpers import console_script

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
MARKER = re.compile(r"^<!-- runnable(?::\s*needs\s+(?P<needs>[\w\s,.-]+?))?\s*-->\n"
                    r"(?P<fence>```\w*)\n(?P<body>.*?)^```$", re.M | re.S)
ANY_MARKER = re.compile(r"^<!-- runnable\b.*-->$", re.M)


@dataclass(frozen=True)
class Block:
    doc: Path
    line: int
    fence: str
    needs: tuple[str, ...]
    body: str

    @property
    def id(self) -> str:
        return f"{self.doc.relative_to(ROOT)}:{self.line}"


def blocks() -> list[Block]:
    found = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for match in MARKER.finditer(text):
            needs = tuple(n for n in re.split(r"[\s,]+", match.group("needs") or "") if n)
            found.append(Block(doc, text.count("\n", 0, match.start()) + 1, match.group("fence"), needs,
                               match.group("body")))
    return found


BLOCKS = blocks()


def test_every_marker_is_followed_by_a_sh_block() -> None:
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        markers = len(ANY_MARKER.findall(text))
        matched = [m for m in MARKER.finditer(text)]
        assert markers == len(matched), f"{doc.name}: a runnable marker without a sh block right below it"
        assert all(m.group("fence") == "```sh" for m in matched), f"{doc.name}: runnable blocks are ```sh blocks"
    assert len(BLOCKS) >= 15, "the docs keep their runnable blocks"
    assert {b.doc.name for b in BLOCKS} >= {"README.md", "fix.md", "gitops.md", "import.md", "render.md", "results.md"}


def _bin_dir(tmp_path: Path) -> Path:
    """kubectl-testbench of this checkout; ``kubectl`` is the real one when installed, else its plugin lookup."""
    bin_dir = console_script(tmp_path / "bin")
    if shutil.which("kubectl") is None:
        shim = bin_dir / "kubectl"
        shim.write_text('#!/bin/sh\n# kubectl is not installed: only its plugin lookup, for "kubectl testbench"\n'
                        '[ "$1" = testbench ] || { echo "kubectl is not installed" >&2; exit 127; }\n'
                        'shift; exec kubectl-testbench "$@"\n')
        shim.chmod(0o755)
    return bin_dir


@pytest.mark.parametrize("block", BLOCKS, ids=[b.id for b in BLOCKS])
def test_runnable_block_exits_0(block: Block, tmp_path: Path) -> None:
    for tool in block.needs:
        if shutil.which(tool) is None:
            pytest.skip(f"{block.id} needs {tool}, which is not installed")
    work = tmp_path / "work"
    shutil.copytree(EXAMPLES, work / "examples")
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KUBECONFIG", "ARGOCD_", "PARAM_", "GITHUB_"))}
    env.update(PATH=f"{_bin_dir(tmp_path)}{os.pathsep}{env.get('PATH', '')}", HOME=str(home),
               XDG_CACHE_HOME=str(tmp_path / "cache"), NO_COLOR="1")
    proc = subprocess.run(["bash", "-c", "set -euo pipefail\n" + block.body], cwd=work, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, f"{block.id} exited {proc.returncode}:\n{block.body}\n--- stderr:\n{proc.stderr}"
    assert "Traceback" not in proc.stderr
    if block.doc.name == "README.md":  # a reader runs these in a checkout: they must leave it as it was
        left = sorted(str(p.relative_to(work)) for p in work.iterdir() if p.name not in ("examples", "rendered"))
        assert left == [], f"{block.id} leaves files in the directory it runs in (.gitignore lists only rendered/)"
        assert _tree(work / "examples") == _tree(EXAMPLES), f"{block.id} changed examples/"


def _tree(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def test_readme_first_experiment_path_works_up_to_run_local(tmp_path: Path) -> None:
    """The five lines after the set-up commands: init, (edit), validate, render; run --local has its own tests."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"<!-- first-experiment -->\n```sh\n(.*?)```", text, re.S)
    assert match is not None
    lines = [line.split("#")[0].strip() for line in match.group(1).splitlines()]
    assert len(lines) == 5 and lines[0].startswith("kubectl-testbench init") and "run --local" in lines[4]
    assert "EDITOR" in lines[1]
    runnable = "\n".join(line for line in lines if line.split()[1] in ("init", "validate", "render"))
    bin_dir = _bin_dir(tmp_path)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    proc = subprocess.run(["bash", "-c", "set -euo pipefail\n" + runnable], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "weather" / "kustomization.yaml").is_file()
    assert "rendered 1 Experiment into 2 objects" in proc.stderr


def test_the_documented_install_command_installs_this_project(tmp_path: Path) -> None:
    """Not on PyPI: the docs install from the repository's archive. The same requirement, pointed at this
    checkout instead of GitHub, resolves to this project (pip's own resolver, offline, nothing installed)."""
    text = (ROOT / "docs" / "gitops.md").read_text(encoding="utf-8")
    match = re.search(r"<!-- install-command -->\n```sh\npip install '(kubectl-testbench @ (\S+))'\n```", text)
    assert match is not None
    requirement, url = match.groups()
    assert url == "https://github.com/agentic-layer/kubectl-testbench/archive/refs/tags/v0.1.0.tar.gz"
    for doc in [*DOCS, *sorted(EXAMPLES.rglob("*.yaml"))]:
        for line in doc.read_text(encoding="utf-8").splitlines():
            assert not re.search(r"pip install ['\"]?kubectl-testbench(\[\w+\])?(?!\s*@)['\"]?(\s|$)", line), \
                f"{doc.relative_to(ROOT)}: kubectl-testbench is not on PyPI: {line.strip()}"
            if "pip install 'kubectl-testbench @ " in line:
                assert url in line, f"{doc.relative_to(ROOT)}: one install URL everywhere: {line.strip()}"
    # GitHub serves a tag's archive as the tree under one top directory: the same from this checkout's HEAD
    archive = tmp_path / "v0.1.0.tar.gz"
    made = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar.gz", "--prefix=kubectl-testbench-0.1.0/",
                           "-o", str(archive), "HEAD"], capture_output=True, text=True, check=False)
    if made.returncode != 0:
        pytest.skip(f"not a git checkout, no archive to install from: {made.stderr.strip()}")
    report = tmp_path / "report.json"
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--no-deps", "--quiet", "--report", str(report),
         requirement.replace(url, archive.as_uri())],
        capture_output=True, text=True, timeout=300, check=False, cwd=tmp_path)
    if proc.returncode != 0 and re.search(r"(?i)connection|network|resolve|proxy|index", proc.stderr):
        pytest.skip(f"pip could not fetch the build backend: {proc.stderr.strip().splitlines()[-1]}")
    assert proc.returncode == 0, proc.stderr
    import json

    (item,) = json.loads(report.read_text())["install"]
    assert item["metadata"]["name"] == "kubectl-testbench"
    assert item["metadata"]["version"] == "0.1.0"
    assert "parquet" in item["metadata"]["provides_extra"]


def test_the_main_job_ends_with_how_many_experiments_and_what_next(tmp_path: Path) -> None:
    """README's first command: its closing line counts the Experiments and says what to do with the directory."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    setup = re.search(r"```sh\n# 1\. .*?\n(.*?)\n", text, re.S)
    assert setup is not None
    main_job = setup.group(1).split(" && ")[-1]
    assert main_job == "kubectl-testbench render examples/ --output-dir rendered/"
    shutil.copytree(EXAMPLES, tmp_path / "examples")
    env = {**os.environ, "PATH": f"{_bin_dir(tmp_path / 'tools')}{os.pathsep}{os.environ.get('PATH', '')}"}
    proc = subprocess.run(["bash", "-c", main_job], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines()[-1] == (
        "rendered/: rendered 4 Experiments into 7 objects; files (with kustomization.yaml): 8 added, 0 changed, "
        "0 removed. Next: kubectl apply --server-side -k rendered/ (Testkube and kubectl testbench install first), "
        "or commit it for Argo CD or Flux")


def test_ci_runs_the_readmes_test_command() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    setup = re.search(r"# 2\. .*?\n(.*?)\n", text)
    assert setup is not None
    readme = setup.group(1).split(" && ")[-2:]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").rstrip().splitlines()[-1].split(" && ")
    assert readme == ["pip install -c constraints.txt '.[test]'", "python -m pytest"]
    assert ci[-2:] == ["pip install -q -c constraints.txt '.[test]'", "python -m pytest"]

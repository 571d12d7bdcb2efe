"""docs/gitops.md's snippets are real: each marked snippet parses and agrees with the files it describes."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubectl_testbench.validate.report import INFORMATION_URI
from tests.conftest import EXAMPLES, ROOT
from tests.integrations.helpers import console_script, env_with_path

DOC = ROOT / "docs" / "gitops.md"


def snippet(name: str) -> str:
    match = re.search(rf"<!-- snippet: {re.escape(name)} -->\n```\w+\n(.*?)```", DOC.read_text(), re.S)
    assert match is not None, f"snippet {name} is missing from docs/gitops.md"
    return match.group(1)


def snippet_yaml(name: str) -> Any:
    return yaml.safe_load(snippet(name))


def test_pre_commit_config_uses_the_hooks_we_ship() -> None:
    config = snippet_yaml("pre-commit-config")
    (repo,) = config["repos"]
    assert repo["repo"] == INFORMATION_URI
    shipped = {h["id"] for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert {h["id"] for h in repo["hooks"]} == shipped


def test_github_workflow_is_valid_and_uses_the_actions_inputs(tmp_path: Path) -> None:
    workflow = snippet_yaml("github-workflow")
    steps = workflow["jobs"]["validate"]["steps"]
    ours = next(s for s in steps if s["uses"].startswith("agentic-layer/kubectl-testbench@"))
    inputs = yaml.safe_load((ROOT / "action.yml").read_text())["inputs"]
    assert set(ours["with"]) <= set(inputs)
    upload = next(s for s in steps if s["uses"].startswith("github/codeql-action/upload-sarif@"))
    assert upload["with"]["sarif_file"] == ours["with"]["sarif-file"]
    checker = shutil.which("check-jsonschema") or str(Path(sys.executable).parent / "check-jsonschema")
    if not Path(checker).exists():
        pytest.skip("check-jsonschema is not installed")
    path = tmp_path / "workflow.yaml"
    path.write_text(snippet("github-workflow"))
    proc = subprocess.run([checker, "--builtin-schema", "vendor.github-workflows", str(path)], capture_output=True,
                          text=True, check=False)
    assert proc.returncode == 0, proc.stdout


def test_gitlab_job_writes_the_junit_report_it_publishes() -> None:
    job = snippet_yaml("gitlab-ci")["testbench"]
    assert any("validate -o junit" in line and line.endswith("> testbench-junit.xml") for line in job["script"])
    assert job["artifacts"]["reports"]["junit"] == "testbench-junit.xml"


def test_gitlab_job_caches_the_directory_the_tool_uses_keyed_by_the_version_it_installs() -> None:
    job = snippet_yaml("gitlab-ci")["testbench"]
    variables = job["variables"]
    assert variables["XDG_CACHE_HOME"] == "$CI_PROJECT_DIR/.cache"
    assert job["cache"]["paths"] == [".cache/kubectl-testbench/"], "XDG_CACHE_HOME/kubectl-testbench, project-relative"
    assert job["cache"]["key"] == "kubectl-testbench-$KUBECTL_TESTBENCH_VERSION"
    assert ('pip install "kubectl-testbench @ https://github.com/agentic-layer/kubectl-testbench/archive/refs/tags/'
            'v$KUBECTL_TESTBENCH_VERSION.tar.gz"') in job["script"]


def test_argocd_install_points_at_the_component_and_its_image() -> None:
    install = snippet_yaml("argocd-install")
    assert install["components"][0].endswith("//integrations/argocd?ref=main")
    patch = yaml.safe_load((ROOT / "integrations" / "argocd" / "repo-server-sidecar.yaml").read_text())
    image = patch["spec"]["template"]["spec"]["containers"][0]["image"].split(":")[0]
    assert install["images"][0]["name"] == image


def test_flux_kustomization_snippet_matches_the_example() -> None:
    doc = snippet_yaml("flux-kustomization")
    example = list(yaml.safe_load_all((EXAMPLES / "gitops" / "flux" / "testbench-experiments.yaml").read_text()))[1]
    assert (doc["apiVersion"], doc["kind"]) == (example["apiVersion"], example["kind"])
    assert doc["spec"]["dependsOn"] == example["spec"]["dependsOn"]


def test_function_config_snippet_is_the_example_config() -> None:
    doc = snippet_yaml("krm-function-config")
    example = yaml.safe_load((EXAMPLES / "gitops" / "krm" / "exec" / "render.yaml").read_text())
    assert (doc["apiVersion"], doc["kind"]) == (example["apiVersion"], example["kind"])
    assert doc["metadata"]["annotations"] == example["metadata"]["annotations"]


def test_kptfile_pipeline_validates_with_kpt(tmp_path: Path) -> None:
    kpt = shutil.which("kpt")
    if kpt is None:
        pytest.skip("kpt is not installed")
    package = tmp_path / "experiments"
    shutil.copytree(EXAMPLES / "experiments", package)
    (package / "Kptfile").write_text(snippet("kptfile"))
    env = env_with_path(console_script(tmp_path / "bin"))
    proc = subprocess.run([kpt, "fn", "render", str(package), "--allow-exec"], capture_output=True, text=True,
                          env=env, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "[info]: validated 4 of 4 Experiments" in proc.stderr
    bad = package / "weather-inline.yaml"
    bad.write_text(bad.read_text().replace("defaultThreshold: 0.9", "defaultThreshold: 1.5"))
    failed = subprocess.run([kpt, "fn", "render", str(package), "--allow-exec"], capture_output=True, text=True,
                            env=env, timeout=120, check=False)
    assert failed.returncode != 0 and "spec.dataset.inline.defaultThreshold" in failed.stderr

"""The Flux example: a committed rendered directory that must equal a fresh render, and the Flux objects
and CI recipe that deliver it."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import EXAMPLES, ROOT, kubectl, run_cli
from tests.integrations.helpers import console_script, env_with_path

FLUX = EXAMPLES / "gitops" / "flux"
RENDERED = FLUX / "rendered"
FIX = "kubectl-testbench render examples/experiments --output-dir examples/gitops/flux/rendered"


def flux_objects(name: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all((FLUX / name).read_text()) if d]


def test_committed_rendered_directory_equals_a_fresh_render(tmp_path: Path) -> None:
    fresh = tmp_path / "rendered"
    assert run_cli("render", str(EXAMPLES / "experiments"), "--output-dir", str(fresh)).exit_code == 0
    committed = sorted(p.name for p in RENDERED.iterdir())
    assert committed == sorted(p.name for p in fresh.iterdir()), f"stale: run {FIX}"
    for name in committed:
        assert (RENDERED / name).read_text() == (fresh / name).read_text(), f"{name} is stale: run {FIX}"
    check = run_cli("render", str(EXAMPLES / "experiments"), "--output-dir", str(RENDERED), "--check")
    assert check.exit_code == 0, check.output


def test_render_check_fails_on_drift_with_a_diff(tmp_path: Path) -> None:
    copy = tmp_path / "rendered"
    shutil.copytree(RENDERED, copy)
    victim = next(p for p in sorted(copy.iterdir()) if p.name.startswith("testworkflow_"))
    victim.write_text(victim.read_text().replace("experimentName:", "experimentName: x", 1))
    check = run_cli("render", str(EXAMPLES / "experiments"), "--output-dir", str(copy), "--check")
    assert check.exit_code == 1
    shown = str(copy).lstrip("/")  # the directory as given: here an absolute path outside the working directory
    assert f"--- a/{shown}/{victim.name}" in check.output and "is not up to date" in check.output


def test_kubectl_kustomize_builds_the_rendered_directory() -> None:
    built = subprocess.run([kubectl(), "kustomize", str(RENDERED)], capture_output=True, text=True, check=False)
    assert built.returncode == 0, built.stderr
    kinds = [d["kind"] for d in yaml.safe_load_all(built.stdout)]
    assert sorted(kinds) == ["ConfigMap", "ConfigMap", "TestTrigger"] + ["TestWorkflow"] * 4


def test_git_kustomization_applies_the_rendered_directory_after_testkube() -> None:
    source, kustomization = flux_objects("testbench-experiments.yaml")
    assert (source["apiVersion"], source["kind"]) == ("source.toolkit.fluxcd.io/v1", "GitRepository")
    assert (kustomization["apiVersion"], kustomization["kind"]) == ("kustomize.toolkit.fluxcd.io/v1", "Kustomization")
    spec = kustomization["spec"]
    assert spec["dependsOn"] == [{"name": "testkube"}]
    assert spec["sourceRef"] == {"kind": "GitRepository", "name": source["metadata"]["name"]}
    assert (ROOT / spec["path"]).resolve() == RENDERED.resolve()
    assert spec["prune"] is True and spec["interval"] and spec["wait"] is True
    assert "!/examples/gitops/flux/rendered/" in source["spec"]["ignore"]
    assert set(spec["postBuild"]) == {"substitute"}


def test_oci_kustomization_consumes_the_artifact_ci_pushes() -> None:
    repository, kustomization = flux_objects("oci.yaml")
    assert (repository["apiVersion"], repository["kind"]) == ("source.toolkit.fluxcd.io/v1", "OCIRepository")
    assert repository["spec"]["url"].startswith("oci://") and repository["spec"]["ref"] == {"tag": "latest"}
    spec = kustomization["spec"]
    assert spec["sourceRef"] == {"kind": "OCIRepository", "name": repository["metadata"]["name"]}
    assert spec["dependsOn"] == [{"name": "testkube"}] and spec["path"] == "./"
    ci = (FLUX / "ci.yaml").read_text()
    assert "--tag latest" in ci and repository["spec"]["url"].rsplit("/", 1)[1] in ci


def test_substitution_is_disabled_only_where_text_has_dollar_braces(tmp_path: Path) -> None:
    text = (EXAMPLES / "experiments" / "weather-inline.yaml").read_text()
    (tmp_path / "exp.yaml").write_text(text.replace("What is the weather", "What is ${CITY} weather"))
    result = run_cli("render", str(tmp_path))
    docs = {d["kind"]: d for d in yaml.safe_load_all(result.stdout)}
    assert docs["ConfigMap"]["metadata"]["annotations"] == {"kustomize.toolkit.fluxcd.io/substitute": "disabled"}
    assert "annotations" not in docs["TestWorkflow"]["metadata"]
    assert "kustomize.toolkit.fluxcd.io/substitute" not in "".join(p.read_text() for p in RENDERED.iterdir())


def _workflow() -> dict[Any, Any]:
    doc = yaml.safe_load((FLUX / "ci.yaml").read_text())
    assert isinstance(doc, dict)
    return doc


def test_ci_recipe_is_a_valid_github_workflow() -> None:
    checker = shutil.which("check-jsonschema") or str(Path(sys.executable).parent / "check-jsonschema")
    if not Path(checker).exists():
        pytest.skip("check-jsonschema is not installed (pip install '.[test]')")
    proc = subprocess.run([checker, "--builtin-schema", "vendor.github-workflows", str(FLUX / "ci.yaml")],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ci_recipe_validates_checks_drift_and_pushes_on_main_only(tmp_path: Path) -> None:
    doc = _workflow()
    env = doc["env"]
    assert (ROOT / env["EXPERIMENTS"]).is_dir() and (ROOT / env["RENDERED"]).resolve() == RENDERED.resolve()
    steps = doc["jobs"]["render"]["steps"]
    runs = [s.get("run", "") for s in steps]
    assert any(r.startswith("kubectl-testbench validate -o github") for r in runs)
    check = next(r for r in runs if "--check" in r)
    push = next(s for s in steps if "flux push artifact" in s.get("run", ""))
    assert push["if"] == "github.event_name == 'push'"
    assert runs.index(check) < runs.index(push["run"])
    assert "--path=\"$RENDERED\"" in push["run"] and "--revision=" in push["run"] and "--source=" in push["run"]
    assert doc["jobs"]["render"]["permissions"]["packages"] == "write"
    # the drift step, run exactly as written with the recipe's env, passes on this repository
    bin_dir = console_script(tmp_path / "bin")
    proc = subprocess.run(["bash", "-euo", "pipefail", "-c", check], cwd=ROOT,
                          env=env_with_path(bin_dir, EXPERIMENTS=env["EXPERIMENTS"], RENDERED=env["RENDERED"]),
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert shlex.split(check)[:2] == ["kubectl-testbench", "render"]

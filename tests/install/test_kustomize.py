"""kustomize/: the committed base is current, and every overlay builds with the real kubectl kustomize and
does what its README says."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubectl_testbench.generate import kustomize
from kubectl_testbench.generate.__main__ import main as generate
from kubectl_testbench.generate.committed import expected_files
from kubectl_testbench.install import bundle
from kubectl_testbench.install.bundle import Options
from tests.conftest import ROOT, kubectl

FIX = "python -m kubectl_testbench.generate --write kustomize"

KUSTOMIZE = ROOT / "kustomize"
OVERLAYS = KUSTOMIZE / "overlays"
CONTROLLER_KINDS = {"ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "Service",
                    "Deployment"}


@pytest.mark.parametrize("path", sorted(expected_files(("kustomize",))), ids=lambda p: str(p.relative_to(ROOT)))
def test_committed_base_matches_install(path: Path) -> None:
    expected = expected_files(("kustomize",))[path]
    assert path.exists(), f"{path} is missing; run: {FIX}"
    assert path.read_text(encoding="utf-8") == expected, f"{path} drifted from `install`; run: {FIX}"


def test_generate_reports_and_repairs_drift(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kustomize, "BASE", tmp_path)
    assert generate(["--check", "kustomize"]) == 1
    assert generate(["--write", "kustomize"]) == 0
    assert generate(["--check", "kustomize"]) == 0
    assert (tmp_path / "install.yaml").read_text() == bundle.yaml_text(Options())


def _build(directory: Path) -> list[dict[str, Any]]:
    proc = subprocess.run([kubectl(), "kustomize", str(directory)], capture_output=True, text=True, timeout=120,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    return [d for d in yaml.safe_load_all(proc.stdout) if d]


def _key(obj: dict[str, Any]) -> tuple[str, str, str]:
    return obj["kind"], obj["metadata"].get("namespace", ""), obj["metadata"]["name"]


def _index(objs: list[dict[str, Any]]) -> dict[tuple[str, str, str], dict[str, Any]]:
    return {_key(o): o for o in objs}


def test_every_overlay_has_a_readme_that_explains_released_manifests() -> None:
    overlays = sorted(p for p in OVERLAYS.iterdir() if p.is_dir())
    assert [p.name for p in overlays] == ["dashboard-namespace", "gitops", "image-tag"]
    for overlay in overlays:
        readme = (overlay / "README.md").read_text()
        assert "released install.yaml" in readme and "resources:" in readme, overlay.name


def test_base_builds_to_the_install_objects() -> None:
    assert _index(_build(KUSTOMIZE / "base")) == _index(bundle.objects(Options()))


def test_image_tag_overlay_retags_all_five_templates() -> None:
    built = _build(OVERLAYS / "image-tag")
    templates = [o for o in built if o["kind"] == "TestWorkflowTemplate"]
    assert len(templates) == 5
    assert {o["spec"]["steps"][0]["run"]["image"] for o in templates} == \
        {"ghcr.io/agentic-layer/testbench/testworkflows:0.0.2"}
    expected = _index(bundle.objects(Options(image_tag="0.0.2")))
    for obj in templates:
        assert obj == expected[_key(obj)], "only the image may change"
    deployment = next(o for o in built if o["kind"] == "Deployment")
    assert deployment["spec"]["template"]["spec"]["containers"][0]["image"].endswith(":0.0.1"), \
        "the operator image is untouched unless its entry is enabled"


def test_image_tag_overlay_needs_its_configuration(tmp_path: Path) -> None:
    """Without the fieldSpec, images: does not reach TestWorkflowTemplates: the configuration matters."""
    (tmp_path / "base").symlink_to(KUSTOMIZE / "base")
    overlay = tmp_path / "overlay"
    overlay.mkdir()
    text = (OVERLAYS / "image-tag" / "kustomization.yaml").read_text().replace("../../base", "../base")
    text = text.replace("configurations:\n  - kustomizeconfig.yaml\n", "")
    (overlay / "kustomization.yaml").write_text(text)
    images = {o["spec"]["steps"][0]["run"]["image"] for o in _build(overlay) if o["kind"] == "TestWorkflowTemplate"}
    assert images == {"ghcr.io/agentic-layer/testbench/testworkflows:0.0.1"}


def test_dashboard_namespace_overlay_moves_only_the_dashboard() -> None:
    built = _build(OVERLAYS / "dashboard-namespace")
    assert _index(built) == _index(bundle.objects(Options(dashboard_namespace="observability")))
    configmap = next(o for o in built if o["kind"] == "ConfigMap")
    assert configmap["metadata"]["namespace"] == "observability"
    assert configmap["metadata"]["labels"]["grafana_dashboard"] == "1"


def test_gitops_overlay_equals_gitops_mode() -> None:
    built = _build(OVERLAYS / "gitops")
    assert not {o["kind"] for o in built} & (CONTROLLER_KINDS | {"Namespace"})
    assert _index(built) == _index(bundle.objects(Options(mode="gitops")))


@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_output_dir_is_a_kustomization_that_builds_to_the_bundle(tmp_path: Path, fmt: str) -> None:
    from tests.conftest import run_cli

    target = tmp_path / "deploy"
    assert run_cli("install", "--mode", "gitops", "-o", fmt, "--output-dir", str(target)).exit_code == 0
    assert _index(_build(target)) == _index(bundle.objects(Options(mode="gitops")))

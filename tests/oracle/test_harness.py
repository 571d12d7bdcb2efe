"""The oracle's build: module mode at the control plane's Kubernetes versions, nothing from apt, NO_GO without Go."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.go_toolchain import NO_GO
from tests.oracle import harness

CONTROL_PLANE_GO_MOD = ROOT / "scripts" / "control-plane.d" / "kube-apiserver" / "go.mod"
REQUIRED = ("k8s.io/apimachinery", "k8s.io/apiextensions-apiserver", "k8s.io/apiserver", "sigs.k8s.io/yaml",
            "sigs.k8s.io/json", "k8s.io/kube-openapi")


def _versions(go_mod: Path) -> dict[str, str]:
    """Module → version of a go.mod, a ``replace`` winning over its ``require``."""
    text = go_mod.read_text()
    found = dict(re.findall(r"^\s*([\w./-]+) (v\S+)(?: // indirect)?$", text, re.M))
    found.update(re.findall(r"^\s*([\w./-]+) => [\w./-]+ (v\S+)$", text, re.M))
    return found


def test_ci_installs_no_go_sources_then_runs_the_readme_test_command() -> None:
    script = (ROOT / ".ci" / "run").read_text()
    assert "ci_packages=(zsh fish)" in script
    assert "golang-k8s" not in script and "golang-gopkg" not in script
    assert script.rstrip().splitlines()[-1] == "pip install -q -c constraints.txt '.[test]' && python -m pytest"
    assert "pip install -c constraints.txt '.[test]' && python -m pytest" in (ROOT / "README.md").read_text()
    assert not re.search(r"golang-go(?![\w.-])", script.replace("never Debian's golang-go", ""))


def test_the_oracle_requires_the_kubernetes_modules_the_control_plane_runs() -> None:
    ours, control_plane = _versions(harness.HERE / "go.mod"), _versions(CONTROL_PLANE_GO_MOD)
    assert set(REQUIRED) <= set(ours)
    different = {m: (v, control_plane[m]) for m, v in ours.items() if m in control_plane and control_plane[m] != v}
    assert different == {}
    assert control_plane["k8s.io/kubernetes"] == "v" + harness.KUBERNETES_VERSION
    assert ours["k8s.io/apiserver"] == "v0." + harness.KUBERNETES_VERSION.split(".", 1)[1]


def test_the_cel_the_oracle_runs_is_the_api_servers() -> None:
    assert _versions(harness.HERE / "go.mod")["github.com/google/cel-go"] == _versions(CONTROL_PLANE_GO_MOD)[
        "github.com/google/cel-go"]


def test_the_build_key_covers_the_source_and_the_module_files(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    for path in (harness.SOURCE, *harness.MODULE_FILES):
        (tmp_path / path.name).write_bytes(path.read_bytes())
    monkeypatch.setattr(harness, "SOURCE", tmp_path / "oracle.go")
    monkeypatch.setattr(harness, "MODULE_FILES", (tmp_path / "go.mod", tmp_path / "go.sum"))
    before = harness.source_hash()
    for name in ("oracle.go", "go.mod", "go.sum"):
        (tmp_path / name).write_bytes((tmp_path / name).read_bytes() + b"\n")
        assert harness.source_hash() != before, name
        before = harness.source_hash()


def test_without_go_the_skip_reason_is_no_go(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(harness, "go_binary", lambda: None)
    assert harness.missing() == NO_GO
    with pytest.raises(harness.OracleUnavailable, match="Go toolchain is not installed"):
        harness.build()

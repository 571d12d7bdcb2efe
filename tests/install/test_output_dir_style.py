"""install and render name their output files in one style (``<kind>_<namespace>_<name>.<ext>``, render's: stable
when objects come and go), the kustomization keeps apply order, and each refuses the other's directory with the
reason instead of "was not written by kubectl-testbench"."""

from __future__ import annotations

import subprocess
from pathlib import Path

import yaml

from kubectl_testbench.emit.order import file_name
from tests.conftest import kubectl, run_cli
from tests.validate.helpers import VALID


def test_install_names_files_as_render_does(tmp_path: Path) -> None:
    out = tmp_path / "deploy"
    assert run_cli("install", "--output-dir", str(out)).exit_code == 0
    for path in out.iterdir():
        if path.name == "kustomization.yaml":
            continue
        obj = yaml.safe_load(path.read_text())
        assert path.name == file_name(obj, "yaml")
    rendered = tmp_path / "rendered"
    exp = tmp_path / "exp.yaml"
    exp.write_text(VALID)
    assert run_cli("render", str(exp), "--output-dir", str(rendered)).exit_code == 0
    assert "configmap_testkube_weather-eval-agents-experiment.yaml" in {p.name for p in rendered.iterdir()}
    assert "configmap_monitoring_grafana-testkube-dashboard.yaml" in {p.name for p in out.iterdir()}


def test_toggling_a_flag_does_not_rename_the_other_files(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    assert run_cli("install", "--output-dir", str(a)).exit_code == 0
    assert run_cli("install", "--output-dir", str(b), "--create-namespaces").exit_code == 0
    first, second = {p.name for p in a.iterdir()}, {p.name for p in b.iterdir()}
    assert first < second
    assert second - first == {"namespace_monitoring.yaml", "namespace_testkube.yaml"}


def test_kubectl_kustomize_builds_it_in_apply_order(tmp_path: Path) -> None:
    binary = kubectl()
    out = tmp_path / "deploy"
    assert run_cli("install", "--output-dir", str(out), "--create-namespaces").exit_code == 0
    listed = yaml.safe_load((out / "kustomization.yaml").read_text())["resources"]
    assert [yaml.safe_load((out / n).read_text())["kind"] for n in listed][:4] == [
        "Namespace", "Namespace", "Namespace", "CustomResourceDefinition"]
    built = subprocess.run([binary, "kustomize", str(out)], capture_output=True, text=True, check=False)
    assert built.returncode == 0, built.stderr
    kinds = [d["kind"] for d in yaml.safe_load_all(built.stdout)]
    assert kinds[:4] == ["Namespace", "Namespace", "Namespace", "CustomResourceDefinition"]
    assert len(kinds) == len(listed)


def test_install_into_a_directory_render_wrote_says_so(tmp_path: Path) -> None:
    exp = tmp_path / "exp.yaml"
    exp.write_text(VALID)
    out = tmp_path / "out"
    assert run_cli("render", str(exp), "--output-dir", str(out)).exit_code == 0
    before = {p.name: p.read_text() for p in out.iterdir()}
    result = run_cli("install", "--output-dir", str(out))
    assert result.exit_code == 1
    assert ("holds what kubectl testbench render wrote (its kustomization.yaml says so); render and install each "
            "need a directory of their own: choose another --output-dir") in result.output
    assert "was not written by kubectl-testbench" not in result.output
    assert {p.name: p.read_text() for p in out.iterdir()} == before


def test_render_into_a_directory_install_wrote_says_so(tmp_path: Path) -> None:
    out = tmp_path / "deploy"
    assert run_cli("install", "--output-dir", str(out)).exit_code == 0
    exp = tmp_path / "exp.yaml"
    exp.write_text(VALID)
    result = run_cli("render", str(exp), "--output-dir", str(out))
    assert result.exit_code == 1
    assert "holds what kubectl testbench install wrote" in result.output

"""``kubectl testbench install`` end to end: stdout, formats, files, directories, exit codes, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from kubectl_testbench.install import bundle
from kubectl_testbench.install.bundle import Options
from tests.conftest import run_cli, run_process


def test_default_prints_the_operator_bundle_to_stdout() -> None:
    result = run_cli("install")
    assert result.exit_code == 0, result.output
    assert result.stdout == bundle.yaml_text(Options())


def test_json_output_is_a_v1_list() -> None:
    result = run_cli("install", "-o", "json", "--mode", "gitops")
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    assert doc["kind"] == "List" and not any(i["kind"] == "Deployment" for i in doc["items"])


def test_flags_reach_the_bundle() -> None:
    result = run_cli("install", "--mode", "gitops", "--image-tag", "1.0.0", "--testkube-namespace", "tk",
                     "--dashboard-namespace", "grafana", "--create-namespaces")
    assert result.exit_code == 0
    expected = Options(mode="gitops", image_tag="1.0.0", testkube_namespace="tk", dashboard_namespace="grafana",
                       create_namespaces=True)
    assert result.stdout == bundle.yaml_text(expected)


def test_output_file(tmp_path: Path) -> None:
    target = tmp_path / "install.yaml"
    result = run_cli("install", "--output-file", str(target))
    assert result.exit_code == 0 and result.stdout == ""
    assert target.read_text() == bundle.yaml_text(Options())


def test_output_dir_writes_numbered_files_and_a_kustomization(tmp_path: Path) -> None:
    target = tmp_path / "deploy" / "testbench"
    result = run_cli("install", "--mode", "gitops", "--output-dir", str(target))
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    names = sorted(p.name for p in target.iterdir())
    files = bundle.directory_files(Options(mode="gitops"))
    assert names == sorted(files)
    for name, text in files.items():
        assert (target / name).read_text() == text
    assert not [p for p in target.parent.iterdir() if p.name.startswith(".")], "no temporary directory left"


def test_output_dir_replaces_its_own_earlier_output_completely(tmp_path: Path) -> None:
    target = tmp_path / "out"
    assert run_cli("install", "--output-dir", str(target)).exit_code == 0
    assert any("deployment" in p.name for p in target.iterdir())
    assert run_cli("install", "--mode", "gitops", "--output-dir", str(target)).exit_code == 0
    assert not any("deployment" in p.name for p in target.iterdir()), "stale files from the operator mode"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_output_dir_keeps_the_users_files_and_never_overwrites_them(tmp_path: Path) -> None:
    target = tmp_path / "mine"
    target.mkdir()
    (target / "notes.txt").write_text("keep me")
    assert run_cli("install", "--output-dir", str(target)).exit_code == 0
    assert (target / "notes.txt").read_text() == "keep me"
    (target / "kustomization.yaml").write_text("resources: []\n")  # the user takes the file over
    result = run_cli("install", "--output-dir", str(target))
    assert result.exit_code == 1
    assert result.stderr.startswith("error: cannot write") and "was not written by kubectl-testbench" in result.stderr
    assert (target / "kustomization.yaml").read_text() == "resources: []\n"


def test_output_dir_accepts_an_existing_empty_directory(tmp_path: Path) -> None:
    target = tmp_path / "empty"
    target.mkdir()
    assert run_cli("install", "--output-dir", str(target)).exit_code == 0
    assert (target / "kustomization.yaml").exists()


def test_unwritable_output_dir_is_one_line_exit_1_without_traceback(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    proc = run_process("install", "--output-dir", str(blocker / "sub"))
    assert proc.returncode == 1
    lines = proc.stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: cannot write"), lines
    assert proc.stdout == b""


def test_output_dir_that_is_a_file_is_refused(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    result = run_cli("install", "--output-dir", str(blocker))
    assert result.exit_code in (1, 2)
    assert blocker.read_text() == "x"


def test_read_only_parent_directory(tmp_path: Path) -> None:
    parent = tmp_path / "ro"
    parent.mkdir()
    parent.chmod(0o555)
    try:
        proc = run_process("install", "--output-dir", str(parent / "out"), unprivileged=True)
        assert proc.returncode == 1 and b"cannot write" in proc.stderr and not (parent / "out").exists()
    finally:
        parent.chmod(0o755)


@pytest.mark.parametrize(("args", "message"), [
    (["--image-tag", "bad tag"], "--image-tag"),
    (["--testkube-namespace", "Testkube"], "--testkube-namespace"),
    (["--operator-image", "x:"], "--operator-image"),
    (["--output-dir", "a", "--output-file", "b"], "cannot be used together"),
])
def test_bad_flags_are_usage_errors(args: list[str], message: str) -> None:
    proc = run_process("install", *args)
    assert proc.returncode == 2
    stderr = proc.stderr.decode()
    assert len(stderr.splitlines()) == 1 and message in stderr and "Traceback" not in stderr


def test_unknown_mode_is_a_click_usage_error() -> None:
    result = run_cli("install", "--mode", "helm")
    assert result.exit_code == 2


def test_real_process_output_pipes_into_a_yaml_parser() -> None:
    proc = run_process("install", "--create-namespaces")
    assert proc.returncode == 0, proc.stderr
    docs = [d for d in yaml.safe_load_all(proc.stdout) if d]
    assert [d["kind"] for d in docs][:3] == ["Namespace", "Namespace", "Namespace"]


def test_install_is_listed_in_the_help() -> None:
    result = run_cli("--help")
    assert "install" in result.stdout

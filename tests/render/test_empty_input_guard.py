"""render --output-dir never empties a directory it rendered before because the input now holds no Experiment
(a mistyped path or apiVersion): exit 1, the reason on stderr, nothing changed; --allow-empty when intended."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.conftest import run_cli, run_process

FIXTURES = Path(__file__).parent / "fixtures"
WORKFLOW = "testworkflow_testkube_research-regression-research-workflow.yaml"


def rendered(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(FIXTURES / "url-triggered.yaml", src)
    out = tmp_path / "out"
    assert run_cli("render", str(src), "--output-dir", str(out)).exit_code == 0
    return src, out, {p.name: p.read_text() for p in out.iterdir()}


def test_a_mistyped_api_version_does_not_remove_what_render_wrote(tmp_path: Path) -> None:
    src, out, before = rendered(tmp_path)
    exp = src / "url-triggered.yaml"
    exp.write_text(exp.read_text().replace("testbench.agentic-layer.ai/v1alpha1", "testbench.example.com/v1alpha1"))
    proc = run_process("render", str(src), "--output-dir", str(out))
    assert proc.returncode == 1
    assert proc.stdout == b""
    assert (f"error: the input holds no Experiment, but {out} holds 2 files an earlier render wrote "
            f"(testtrigger_testkube_research-regression-research-trigger.yaml, {WORKFLOW}): rendering nothing would "
            "remove them. Check the paths and the apiVersion (testbench.agentic-layer.ai/v1alpha1); pass "
            "--allow-empty if removing them is intended\n").encode() in proc.stderr
    assert {p.name: p.read_text() for p in out.iterdir()} == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")], "no staging directory left behind"


def test_a_wrong_path_is_refused_too(tmp_path: Path) -> None:
    _, out, before = rendered(tmp_path)
    empty = tmp_path / "typo"
    empty.mkdir()
    result = run_cli("render", str(empty), "--output-dir", str(out))
    assert result.exit_code == 1
    assert "the input holds no Experiment" in result.output and "--allow-empty" in result.output
    assert {p.name: p.read_text() for p in out.iterdir()} == before


def test_check_mode_refuses_instead_of_printing_a_diff_that_deletes_everything(tmp_path: Path) -> None:
    _, out, _ = rendered(tmp_path)
    other = tmp_path / "other.yaml"
    other.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")
    result = run_cli("render", str(other), "--output-dir", str(out), "--check")
    assert result.exit_code == 1
    assert "the input holds no Experiment" in result.output
    assert "regenerate it with" not in result.output and "+++ /dev/null" not in result.output


def test_allow_empty_removes_the_files_when_that_is_intended(tmp_path: Path) -> None:
    _, out, _ = rendered(tmp_path)
    empty = tmp_path / "nothing"
    empty.mkdir()
    check = run_cli("render", str(empty), "--output-dir", str(out), "--check", "--allow-empty")
    assert check.exit_code == 1 and f"--- a/{str(out).lstrip('/')}/{WORKFLOW}" in check.output
    assert "regenerate it with: kubectl testbench render " in check.output and "--allow-empty" in check.output
    result = run_cli("render", str(empty), "--output-dir", str(out), "--allow-empty")
    assert result.exit_code == 0, result.output
    assert "0 added, 1 changed, 2 removed" in result.output
    assert sorted(p.name for p in out.iterdir()) == ["kustomization.yaml"]


def test_an_empty_input_into_a_new_or_empty_directory_is_fine(tmp_path: Path) -> None:
    empty = tmp_path / "nothing"
    empty.mkdir()
    result = run_cli("render", str(empty), "--output-dir", str(tmp_path / "new"))
    assert result.exit_code == 0, result.output
    again = run_cli("render", str(empty), "--output-dir", str(tmp_path / "new"))
    assert again.exit_code == 0, "a directory holding only render's empty kustomization.yaml has nothing to lose"

"""render as a command: directories, drift checks, defaults files, determinism, kustomize, errors."""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import hypothesis.strategies as st
from hypothesis import HealthCheck, given, settings

from kubectl_testbench.emit.directory import HEADER
from kubectl_testbench.emit.yamlout import dump
from tests.conftest import EXAMPLES, ROOT, kubectl, run_cli, run_process
from tests.strategies import experiments
from tests.validate.helpers import VALID

FIXTURES = Path(__file__).parent / "fixtures"


def test_output_dir_writes_one_file_per_object_and_a_kustomization(tmp_path: Path) -> None:
    out = tmp_path / "rendered"
    result = run_cli("render", str(FIXTURES), "--output-dir", str(out))
    assert result.exit_code == 0, result.output
    names = sorted(p.name for p in out.iterdir())
    assert names == [
        "configmap_testkube_fixes-team-experiment.yaml", "kustomization.yaml",
        "testtrigger_testkube_research-regression-research-trigger.yaml",
        "testworkflow_testkube_fixes-team-workflow.yaml", "testworkflow_testkube_rag-nightly-knowledge-workflow.yaml",
        "testworkflow_testkube_research-regression-research-workflow.yaml"]
    assert all(p.read_text().startswith(HEADER + "\n") for p in out.iterdir())
    assert (f"{out}: rendered 3 Experiments into 5 objects; files (with kustomization.yaml): 6 added, 0 changed, "
            f"0 removed. Next: kubectl apply --server-side -k {out} (Testkube and kubectl testbench install first), "
            "or commit it for Argo CD or Flux\n") in result.output
    kustomization = (out / "kustomization.yaml").read_text()
    assert "- testtrigger_testkube_research-regression-research-trigger.yaml\n" in kustomization


def test_rerender_removes_stale_owned_files_and_keeps_foreign_ones(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(FIXTURES / "url-triggered.yaml", src)
    shutil.copy(FIXTURES / "s3-scheduled.yaml", src)
    out = tmp_path / "out"
    assert run_cli("render", str(src), "--output-dir", str(out)).exit_code == 0
    (out / "README.md").write_text("notes")
    (src / "s3-scheduled.yaml").unlink()
    result = run_cli("render", str(src), "--output-dir", str(out))
    assert result.exit_code == 0
    assert "1 removed" in result.output
    assert not (out / "testworkflow_testkube_rag-nightly-knowledge-workflow.yaml").exists()
    assert (out / "README.md").read_text() == "notes"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")], "no staging directories left"


def test_refuses_to_overwrite_a_file_it_did_not_write(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "kustomization.yaml").write_text("resources: [mine.yaml]\n")
    result = run_cli("render", str(FIXTURES / "url-triggered.yaml"), "--output-dir", str(out))
    assert result.exit_code == 1
    assert "was not written by kubectl-testbench; refusing to overwrite it" in result.output
    assert (out / "kustomization.yaml").read_text() == "resources: [mine.yaml]\n"


def test_invalid_input_writes_nothing(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(FIXTURES / "url-triggered.yaml", src)
    (src / "bad.yaml").write_text(VALID.replace("defaultThreshold: 0.8", "defaultThreshold: 8"))
    out = tmp_path / "out"
    proc = run_process("render", str(src), "--output-dir", str(out))
    assert proc.returncode == 1 and not out.exists()
    assert b"error[schema/maximum]" in proc.stderr and b"error: nothing rendered" in proc.stderr
    assert proc.stdout == b""


def test_check_reports_drift_with_a_diff_and_exit_1(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert run_cli("render", str(FIXTURES), "--output-dir", str(out)).exit_code == 0
    assert run_cli("render", str(FIXTURES), "--output-dir", str(out), "--check").exit_code == 0
    (out / "testworkflow_testkube_fixes-team-workflow.yaml").unlink()
    result = run_cli("render", str(FIXTURES), "--output-dir", str(out), "--check")
    assert result.exit_code == 1
    # the directory as given (outside the working directory: its absolute path, git-style without the slash)
    assert f"+++ b/{str(out).lstrip('/')}/testworkflow_testkube_fixes-team-workflow.yaml" in result.output
    assert "is not up to date with its sources; regenerate it with: kubectl testbench render " in result.output


def test_unwritable_output_dir_is_a_one_line_error(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    proc = run_process("render", str(FIXTURES / "url-triggered.yaml"), "--output-dir", str(locked / "out"),
                       unprivileged=True)
    assert proc.returncode == 1 and b"Traceback" not in proc.stderr and proc.stderr.startswith(b"error: cannot")


def test_output_dir_that_is_a_file_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "file"
    target.write_text("x")
    result = run_cli("render", str(FIXTURES / "url-triggered.yaml"), "--output-dir", str(target))
    assert result.exit_code == 2 and "is a file" in result.output


def test_defaults_file_next_to_the_experiments_is_used_and_validated(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / "url-triggered.yaml", tmp_path)
    (tmp_path / "testbench-defaults.yaml").write_text(
        "apiVersion: testbench.agentic-layer.ai/v1alpha1\nkind: RenderDefaults\nspec:\n"
        "  testkubeNamespace: qa\n  env:\n    - name: OTEL_EXPORTER_OTLP_ENDPOINT\n      value: http://otel:4318\n")
    result = run_cli("render", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "namespace: qa" in result.stdout and "value: http://otel:4318" in result.stdout
    assert run_cli("validate", str(tmp_path)).exit_code == 0, "validate accepts the defaults file"
    assert "namespace: qa" not in run_cli("render", str(tmp_path), "--no-defaults").stdout
    (tmp_path / "testbench-defaults.yaml").write_text(
        "apiVersion: testbench.agentic-layer.ai/v1alpha1\nkind: RenderDefaults\nspec:\n  agentPort: 0\n")
    bad = run_cli("render", str(tmp_path))
    assert bad.exit_code == 1
    assert f"{tmp_path / 'testbench-defaults.yaml'}:4:14: error[schema/minimum] spec.agentPort" in bad.output
    assert "error[schema/minimum]" in run_cli("validate", str(tmp_path)).output


def test_two_experiments_generating_the_same_name_are_refused(tmp_path: Path) -> None:
    a = (FIXTURES / "url-triggered.yaml").read_text()
    (tmp_path / "a.yaml").write_text(a.replace("name: research-regression", "name: a-b").replace(
        "namespace: research", "namespace: c"))
    (tmp_path / "b.yaml").write_text(a.replace("name: research-regression", "name: a").replace(
        "namespace: research", "namespace: b-c"))
    result = run_cli("render", str(tmp_path))
    assert result.exit_code == 1 and "error[render/duplicate]" in result.output


def test_readme_main_command_renders_examples_that_kubectl_kustomize_builds(tmp_path: Path) -> None:
    binary = kubectl()
    readme = (ROOT / "README.md").read_text()
    assert "kubectl-testbench render examples/ --output-dir rendered/" in readme
    out = tmp_path / "rendered"
    assert run_cli("render", str(EXAMPLES), "--output-dir", str(out)).exit_code == 0
    built = subprocess.run([binary, "kustomize", str(out)], capture_output=True, text=True, check=False)
    assert built.returncode == 0, built.stderr
    assert built.stdout.count("kind: TestWorkflow\n") == 4


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batch=st.lists(experiments(), min_size=1, max_size=4, unique_by=lambda e: e["metadata"]["name"]),
       seed=st.integers(0, 1000))
def test_same_input_in_any_file_order_gives_identical_bytes(tmp_path_factory: Any, batch: list[dict[str, Any]],
                                                              seed: int) -> None:
    first = tmp_path_factory.mktemp("a")
    second = tmp_path_factory.mktemp("b")
    names = [f"{i:02d}.yaml" for i in range(len(batch))]
    shuffled = names[:]
    random.Random(seed).shuffle(shuffled)
    for name, exp in zip(names, batch, strict=True):
        (first / name).write_text(dump(exp))
    for name, exp in zip(shuffled, batch, strict=True):
        (second / name).write_text(dump(exp))
    one = run_cli("render", str(first), "--no-defaults")
    two = run_cli("render", str(second), "--no-defaults")
    again = run_cli("render", str(first), "--no-defaults")
    assert one.exit_code == 0, one.output
    assert one.stdout == two.stdout == again.stdout

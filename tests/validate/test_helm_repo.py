"""A GitOps repository is not only Experiments (issue 33 item 5): a directory scan skips a Helm chart with one
notice and Go/Helm templates with another, and keeps strictness for files named on the command line."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import EXAMPLES, run_cli

CHART = {
    "Chart.yaml": "apiVersion: v2\nname: bot\nversion: 0.1.0\n",
    "values.yaml": "replicaCount: 1\nimage:\n  repository: ghcr.io/acme/bot\n",
    "templates/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n"
                                 "spec:\n  replicas: {{ .Values.replicaCount }}\n",
    "charts/sub/Chart.yaml": "apiVersion: v2\nname: sub\nversion: 0.1.0\n",
    "charts/sub/templates/cm.yaml": "kind: ConfigMap\nmetadata:\n  name: {{ include \"sub.name\" . }}\n",
}


def _repo(root: Path, chart_dir: str = "charts/bot") -> Path:
    for name, text in CHART.items():
        path = root / chart_dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    experiments = root / "experiments"
    experiments.mkdir()
    (experiments / "weather.yaml").write_text((EXAMPLES / "experiments" / "weather-inline.yaml").read_text())
    return root


def test_validate_of_a_repo_with_a_chart_skips_the_chart_with_one_notice(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    result = run_cli("validate", str(repo))
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [
        f"{repo}/charts/bot: info[input/helm-chart] a Helm chart (Chart.yaml): its files are not manifests, skipped",
        f"  hint: validate what it renders: helm template {repo}/charts/bot | kubectl testbench validate -",
        "1 file, 1 experiment: 1 valid, 0 invalid, 0 warnings"]


def test_render_of_a_repo_with_a_chart_renders_its_experiments(tmp_path: Path) -> None:
    result = run_cli("render", str(_repo(tmp_path)))
    assert result.exit_code == 0, result.output
    assert "kind: TestWorkflow" in result.stdout and "Deployment" not in result.stdout


def test_files_of_a_chart_named_on_the_command_line_are_checked(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    chart = run_cli("validate", str(repo / "charts/bot/Chart.yaml"))
    assert chart.exit_code == 1 and "error[kind/missing]" in chart.output
    template = run_cli("validate", str(repo / "charts/bot/templates/deployment.yaml"))
    assert template.exit_code == 1 and "error[yaml/key-type]" in template.output


def test_a_template_outside_a_chart_is_a_notice_in_a_scan(tmp_path: Path) -> None:
    (tmp_path / "deploy.yaml").write_text(CHART["templates/deployment.yaml"])
    result = run_cli("validate", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "info[input/template]" in result.output and "error" not in result.output


def test_fix_leaves_a_chart_alone(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    before = {p: p.read_bytes() for p in (repo / "charts").rglob("*") if p.is_file()}
    result = run_cli("fix", str(repo))
    assert result.exit_code == 0, result.output
    assert {p: p.read_bytes() for p in before} == before


def test_the_hint_quotes_a_chart_path_for_the_shell(tmp_path: Path) -> None:
    repo = _repo(tmp_path, chart_dir="charts/$(touch pwned)")
    result = run_cli("validate", str(repo))
    assert f"helm template '{repo}/charts/$(touch pwned)' | kubectl testbench validate -" in result.output

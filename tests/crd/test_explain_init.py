"""``explain`` reads the model docs; ``init`` writes Experiments that validate."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from kubectl_testbench.validate.engine import validate_text
from tests.conftest import run_cli


def test_explain_field_like_kubectl() -> None:
    result = run_cli("explain", "experiment.spec.dataset.inline")
    assert result.exit_code == 0
    assert "FIELD: inline <Object>" in result.output
    assert "  scenarios\t<[]Object> -required-\n    Test scenarios" in result.output


def test_explain_shows_constraints_and_the_cel_rule() -> None:
    out = run_cli("explain", "exp.spec.dataset").output
    assert "RULE: (has(self.s3) ? 1 : 0)" in out
    assert "RANGE: 0 .. 1" in run_cli("explain", "spec.dataset.inline.defaultThreshold").output
    assert "ENUM: Allow, Forbid, Replace" in run_cli("explain", "spec.trigger.concurrencyPolicy").output


def test_explain_unknown_field_is_one_line_exit_2() -> None:
    result = run_cli("explain", "spec.datset")
    assert result.exit_code == 2
    assert result.output == ('error: field "datset" does not exist in spec; did you mean "dataset"? (fields: agentRef, '
                             "aiGatewayRef, dataset, env, schedule, trigger)\n")
    far = run_cli("explain", "spec.zzz")
    assert "did you mean" not in far.output, "no guess where nothing is close"


def test_explain_metrics_lists_needs() -> None:
    out = run_cli("explain", "metrics").output
    assert "ToolCallAccuracy" in out and "reference.toolCalls" in out


@pytest.mark.parametrize("args", [
    [], ["--dataset", "s3"], ["--dataset", "url"], ["--gateway", "ai-gateway", "--gateway-namespace", "ai-gateway"],
    ["--schedule", "0 3 * * *", "--timezone", "Europe/Berlin", "--trigger", "-n", "team-a",
     "--agent-namespace", "agents"],
])
def test_init_writes_a_valid_experiment(args: list[str]) -> None:
    result = run_cli("init", "my-eval", "--agent", "weather-agent", *args)
    assert result.exit_code == 0, result.output
    checked = validate_text(result.stdout, "init.yaml")
    expected = [] if "--gateway" in args else ["semantic/no-gateway"]
    assert checked.counts.valid == 1 and [d.rule for d in checked.diagnostics] == expected
    if "s3" in args:  # the MinIO the setup phase reads is written out (no semantic/s3-default-minio)
        assert yaml.safe_load(result.stdout)["spec"]["env"] == [
            {"name": "MINIO_ENDPOINT", "value": "http://testkube-minio-service-testkube.testkube:9000"}]


def test_init_refuses_invalid_names_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "exp.yaml"
    result = run_cli("init", "My_Eval", "--agent", "a", "--output-file", str(out))
    assert result.exit_code == 1 and not out.exists()
    assert "metadata/name" in result.output


def test_init_output_file_is_written(tmp_path: Path) -> None:
    out = tmp_path / "exp.yaml"
    assert run_cli("init", "e", "--agent", "a", "--output-file", str(out)).exit_code == 0
    assert validate_text(out.read_text(), str(out)).counts.valid == 1
    assert list(tmp_path.iterdir()) == [out], "no temp files left behind"


def test_crd_and_schema_commands_print_the_committed_artifacts() -> None:
    from tests.conftest import ROOT

    assert run_cli("crd").output == (ROOT / "schemas" / "testbench.agentic-layer.ai_experiments.yaml").read_text()
    assert run_cli("schema").output == (ROOT / "schemas" / "experiment.schema.json").read_text()

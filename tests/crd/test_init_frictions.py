"""Issue 33 item 7, ``init``'s frictions: what it wrote, the missing gateway, the S3 location, one judge model,
and ``explain`` saying what ``trigger.enabled`` does."""

from __future__ import annotations

from pathlib import Path

import yaml

from kubectl_testbench.model.constants import DEFAULT_JUDGE_MODEL
from kubectl_testbench.rules.semantic import SEMANTIC_NO_JUDGE_MODEL
from kubectl_testbench.validate.engine import validate_text
from tests.conftest import run_cli, run_process

NOTICE = ("notice: no --gateway: the Experiment has no spec.aiGatewayRef, so validate --strict and render --strict "
          "fail on it (semantic/no-gateway) until it has one (--gateway NAME [--gateway-namespace NS]) or a "
          "testbench-defaults.yaml beside it names a default gateway (spec.aiGateway.name)")


def test_output_file_says_what_was_written_on_stderr(tmp_path: Path) -> None:
    out = tmp_path / "bot.yaml"
    proc = run_process("init", "bot", "--agent", "a", "--gateway", "g", "--output-file", str(out))
    assert proc.returncode == 0 and proc.stdout == b""
    assert proc.stderr.decode() == f"wrote Experiment bot to {out}\n"
    assert "name: bot\n" in out.read_text()


def test_stdout_stays_the_file_alone(tmp_path: Path) -> None:
    proc = run_process("init", "bot", "--agent", "a", "--gateway", "g")
    assert proc.returncode == 0 and proc.stderr == b""
    assert yaml.safe_load(proc.stdout)["metadata"]["name"] == "bot"


def test_without_gateway_a_notice_names_the_flag_and_the_defaults_file(tmp_path: Path) -> None:
    out = tmp_path / "bot.yaml"
    proc = run_process("init", "bot", "--agent", "a", "--output-file", str(out))
    assert proc.returncode == 0
    assert proc.stderr.decode().splitlines() == [f"wrote Experiment bot to {out}", NOTICE]
    strict = run_process("validate", "--strict", str(out))
    assert strict.returncode == 1 and b"warning[semantic/no-gateway]" in strict.stdout, "the notice tells the truth"
    on_stdout = run_process("init", "bot", "--agent", "a")
    assert on_stdout.stderr.decode() == NOTICE + "\n"


def test_no_notice_when_the_defaults_file_beside_it_names_a_gateway(tmp_path: Path) -> None:
    (tmp_path / "testbench-defaults.yaml").write_text(
        "apiVersion: testbench.agentic-layer.ai/v1alpha1\nkind: RenderDefaults\n"
        "spec:\n  aiGateway:\n    name: ai-gateway\n")
    out = tmp_path / "bot.yaml"
    proc = run_process("init", "bot", "--agent", "a", "--output-file", str(out))
    assert proc.returncode == 0 and proc.stderr.decode() == f"wrote Experiment bot to {out}\n"
    assert run_process("validate", "--strict", str(out)).returncode == 0


def test_s3_bucket_and_key_are_written() -> None:
    result = run_cli("init", "bot", "--agent", "a", "--gateway", "g", "--dataset", "s3", "--s3-bucket", "evals",
                     "--s3-key", "support/bot.json")
    assert result.exit_code == 0, result.output
    assert yaml.safe_load(result.stdout)["spec"]["dataset"] == {"s3": {"bucket": "evals", "key": "support/bot.json"}}
    default = yaml.safe_load(run_cli("init", "bot", "--agent", "a", "--dataset", "s3").stdout)
    assert default["spec"]["dataset"] == {"s3": {"bucket": "datasets", "key": "bot/experiment.json"}}


def test_s3_options_are_validated_and_nothing_is_written(tmp_path: Path) -> None:
    out = tmp_path / "bot.yaml"
    bad_bucket = run_cli("init", "bot", "--agent", "a", "--dataset", "s3", "--s3-bucket", "My_Bucket",
                         "--output-file", str(out))
    assert bad_bucket.exit_code == 1 and not out.exists()
    assert f'{out}:14:15: warning[semantic/s3-bucket] spec.dataset.s3.bucket: Invalid value: "My_Bucket"' \
        in bad_bucket.stderr
    bad_key = run_cli("init", "bot", "--agent", "a", "--dataset", "s3", "--s3-key", "bot.txt")
    assert bad_key.exit_code == 1 and bad_key.stdout == ""
    assert "error[semantic/dataset-format] spec.dataset.s3.key" in bad_key.stderr
    alone = run_cli("init", "bot", "--agent", "a", "--s3-bucket", "evals")
    assert alone.exit_code == 2 and alone.stderr == "error: --s3-bucket describes an S3 dataset: add --dataset s3\n"


def test_the_judge_model_hint_names_the_model_init_writes() -> None:
    written = yaml.safe_load(run_cli("init", "bot", "--agent", "a").stdout)
    model = written["spec"]["dataset"]["inline"]["llmAsAJudgeModel"]
    assert model == DEFAULT_JUDGE_MODEL
    text = run_cli("init", "bot", "--agent", "a", "--gateway", "g").stdout.replace(
        f"      llmAsAJudgeModel: {model}\n", "")
    (finding,) = [d for d in validate_text(text, "x.yaml").diagnostics if d.rule == SEMANTIC_NO_JUDGE_MODEL.id]
    assert finding.hint == f"set spec.dataset.inline.llmAsAJudgeModel to a model the AI gateway serves (e.g. {model})"
    assert SEMANTIC_NO_JUDGE_MODEL.hint == finding.hint


def test_explain_trigger_enabled_says_it_reruns_on_every_rollout() -> None:
    out = run_cli("explain", "experiment.spec.trigger.enabled").output
    assert "re-runs on every rollout of the agent" in " ".join(out.split())
    schema = (Path(__file__).resolve().parents[2] / "schemas" / "experiment.schema.json").read_text()
    assert "the workflow re-runs on every rollout of the agent" in schema
